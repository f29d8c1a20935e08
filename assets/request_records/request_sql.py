"""The request pass's SQL that cannot live in a file: the SELECT of each source's rows (a file's path, a source's
id and load level are data, pasted only through `sql_path_literal`/`sql_string_literal`), those SELECTs joined
with our definitions (TPOT, the latency sample) and the checks of `schemas.observed.requests` (compiled from the
pandera model by `assets.warehouse.validate.sql_checks`), and the columns of observed.requests, which the pass
and the view both select. Every statement with a fixed text is a file in `sql/observed/request_pass/`, reading
the temporary views these SELECTs are created as (`request_rows`, `small_rows`, ...)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import polars as pl

from assets.core.sqltext import quote_ident, sql_path_literal, sql_string_literal
from assets.formats.dumps.exchange import SCAN_COLUMNS, RequestScan
from assets.formats.dumps.scan_sql import COPY_REASON
from assets.warehouse.sqlfiles import read_sql
from assets.warehouse.validate import sql_checks, sql_reasons, sql_valid
from schemas.observed.requests import Requests

TPOT_SQL = "CASE WHEN output_tokens >= 2 THEN (e2e_ms - ttft_ms) / (output_tokens - 1) END"

# A request its tool calls successful is a latency sample only when it produced at least MIN_OUTPUT_TOKENS
# output tokens, took more than 0 ms end to end and had its first token no later than its last: otherwise it
# (vLLM's empty responses: output_lens 0, ttfts 0.0, no error) is counted as failed and in requests_unusable,
# and enters no percentile and no throughput. A value the file does not give is not held against it.
MIN_OUTPUT_TOKENS = 1
UNUSABLE_SQL = (
    "CASE WHEN status <> 'ok' THEN NULL "
    f"WHEN output_tokens < {MIN_OUTPUT_TOKENS} THEN 'no output token' "
    "WHEN e2e_ms <= 0 THEN 'E2E <= 0 ms' "
    "WHEN ttft_ms > e2e_ms THEN 'TTFT > E2E' END"
)
CHECKED_COLUMNS = [
    "phase",
    "status",
    "start_time_unix_s",
    "input_tokens",
    "output_tokens",
    "ttft_ms",
    "e2e_ms",
    "tpot_ms",
]

# A source's rows as the pass reads them: checked SCAN_COLUMNS (checked_scan_sql) after the source's id.
ROW_TYPES = {
    "source_id": pl.Int64,
    "ordinal": pl.Int64,
    "phase": pl.String,
    "status": pl.String,
    "start_s": pl.Float64,
    "start_time_unix_s": pl.Float64,
    "input_tokens": pl.Int64,
    "output_tokens": pl.Int64,
    "ttft_ms": pl.Float64,
    "e2e_ms": pl.Float64,
    "error": pl.String,
    "offered_rate_per_s": pl.Float64,
    "concurrency": pl.Float64,
    "problem": pl.String,
    "row_hash": pl.UInt64,
}

# The part a pass without any source reads (the frames' table, empty): its rows still have a load level's columns.
NO_PARTS = (
    "SELECT *, NULL::VARCHAR AS run_id, NULL::VARCHAR AS level_kind, NULL::DOUBLE AS level_nominal FROM request_frames"
)


def pass_sql(name: str) -> str:
    """The statement in `sql/observed/request_pass/<name>.sql`."""
    return read_sql(f"observed/request_pass/{name}.sql")


def level_columns(
    run_id: str, run_kind: str, level_kind: str | None, level_nominal: float | None, file_levels: bool
) -> str:
    """A source's SQL columns run_id, level_kind and level_nominal: from the file's own level columns
    (`file_levels`: rate first, concurrency first in a concurrency sweep), else the measurement's level, else
    the run's kind."""
    if file_levels:
        kind = (
            f"CASE WHEN offered_rate_per_s IS NOT NULL THEN 'rate' WHEN concurrency IS NOT NULL "
            f"THEN 'concurrency' ELSE {sql_string_literal(run_kind)} END"
        )
        nominal = "round(CASE WHEN offered_rate_per_s IS NOT NULL THEN offered_rate_per_s ELSE concurrency END, 6)"
        if run_kind == "concurrency":
            nominal = "round(CASE WHEN offered_rate_per_s IS NULL THEN concurrency ELSE offered_rate_per_s END, 6)"
    else:
        kind = sql_string_literal(level_kind or run_kind)
        nominal = "NULL::DOUBLE" if level_nominal is None else f"{level_nominal!r}::DOUBLE"
    return f"{sql_string_literal(run_id)} AS run_id, {kind} AS level_kind, {nominal} AS level_nominal"


def frame_part(source_id: int, level: str) -> str:
    """A frame's rows, from the table of every frame (`request_frames`)."""
    return f"SELECT *, {level} FROM request_frames WHERE source_id = {source_id}"


def scan_part(source_id: int, level: str, checked: str) -> str:
    """A file's rows as `checked` (checked_scan_sql) reads them, with the source's id and load level."""
    return f"SELECT {source_id} AS source_id, *, {level} FROM ({checked})"


def owned_part(source_id: int, level: str, owned: Path, hashed: bool) -> str:
    """A file's rows from its records in the warehouse (`owned`), with the source's id and load level; `hashed`:
    row_hash, for the count of distinct rows, computed there over the checked columns (rows equal in the file are
    equal there, so no file holding copies is missed)."""
    every = ", ".join(quote_ident(c) for c in SCAN_COLUMNS if c != "ordinal")
    row_hash = f"hash({every})" if hashed else "NULL::UBIGINT"
    return (
        f"SELECT {source_id} AS source_id, * REPLACE ({row_hash} AS row_hash), {level} "
        f"FROM read_parquet({sql_path_literal(owned)})"
    )


def text_part(source_id: int, text_select: str) -> str:
    """A file's prompt and response texts by ordinal, with the source's id."""
    return f"SELECT {source_id} AS source_id, * FROM ({text_select})"


def rows_sql(parts: list[str]) -> str:
    """The request rows of the given sources with TPOT by our definition, whether each passes every
    check (`valid`: no value problem, every check of schemas.observed.requests), why not (`reasons`: the value
    problem, else the failed schema checks), and whether it is a copy of an earlier row (`copied`)."""
    checks = sql_checks(Requests, CHECKED_COLUMNS)
    return (
        f"SELECT *, problem IS NULL AND {sql_valid(checks)} AS valid, "
        f"coalesce(problem, {sql_reasons(checks, Requests.__name__)}) AS reasons, "
        f"{UNUSABLE_SQL} AS unusable_reason, "
        f"problem IS NOT DISTINCT FROM {sql_string_literal(COPY_REASON)} AS copied "
        f"FROM (SELECT *, {TPOT_SQL} AS tpot_ms FROM ({' UNION ALL BY NAME '.join(parts)}))"
    )


def requests_select(rows: str, keys: str, join_on: str = "source_id") -> str:
    """The columns of observed.requests from request rows (`rows`: checked SCAN_COLUMNS, `problem`, `join_on`
    and tpot_ms) joined to the keys that place them in a sweep: request_index counts rows from the repeat's
    first row in its file (0-based), start offsets from the repeat's first send; only rows passing every
    check. No window (unless a file holds copies of rows): a LIMIT on the view reads only the rows it needs."""
    checks = sql_checks(Requests, CHECKED_COLUMNS)
    return (
        "SELECT k.run_id, k.load_index, k.repeat_index, "
        "r.ordinal - k.first_ordinal AS request_index, r.phase, r.status, "
        "r.start_s - k.first_start_s AS start_offset_s, "
        "r.start_time_unix_s, r.input_tokens, r.output_tokens, r.ttft_ms, r.e2e_ms, r.tpot_ms, r.error, k.source "
        f"FROM {rows} AS r "
        f"JOIN {keys} AS k ON k.{join_on} = r.{join_on} "
        "AND k.file_offered_rate_per_s IS NOT DISTINCT FROM r.offered_rate_per_s "
        "AND k.file_concurrency IS NOT DISTINCT FROM r.concurrency "
        f"WHERE r.problem IS NULL AND {sql_valid(checks)}"
    )


def stored_select(source_ids: list[int]) -> str:
    """The rows of observed.requests the warehouse stores (those of the sources `source_ids`, from `request_rows`
    placed by `request_keys`), in the order of the table."""
    rows = "(SELECT * FROM request_rows WHERE source_id IN (" + ", ".join(map(str, source_ids)) + "))"
    return f"{requests_select(rows, 'request_keys')} ORDER BY run_id, load_index, repeat_index, request_index"


def repointed(scan: RequestScan, copy: Path) -> RequestScan:
    """`scan` reading the file at `copy` instead (a file that is not on disk, written to a temporary copy)."""

    def at(select: str) -> str:
        return select.replace(sql_path_literal(scan.path), sql_path_literal(copy))

    return dataclasses.replace(
        scan,
        path=str(copy),
        select=at(scan.select),
        tolerant_select=None if scan.tolerant_select is None else at(scan.tolerant_select),
        text_select=None if scan.text_select is None else at(scan.text_select),
    )
