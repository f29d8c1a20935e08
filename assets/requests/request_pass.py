"""Per-request records at any size: one DuckDB pass over every request source, no Python object per request.

Sources are the files DuckDB reads where they lie (`RequestScan`: the generic CSV/Parquet, AIPerf's
JSON lines) and the request frames the JSON formats give (registered through Arrow). One scan of
all of them:

- checks every value of the files read in place by the rules of `checked_column`
  (`assets.formats.dumps.scan_sql.checked_scan_sql`: not a number, not finite, not whole, implausible; a copy
  of an earlier row; a last row that may be cut short) and every row against `schemas.observed.requests` (the
  pandera model's checks, compiled to SQL by `assets.warehouse.validate.sql_checks`: pandera itself validates
  a sample of the published view, the full checks run here); a failing row is left out and
  quarantined with its reason;
- computes TPOT by our one definition (`TPOT_SQL`);
- aggregates the rows on two grouping sets at once (`sql/observed/request_pass/request_groups.sql`): per repeat
  (source and the file's own level values: counts, the measured window, token sums, the first
  arrivals, the repeat's own percentiles) and per load level (run, kind and nominal value: the
  percentiles pooled over repeats, with the brackets of the interval).

Once `assets.runs.assemble` has placed each group in its run's sweep (load level and repeat), the groups
give `observed.request_stats` (per repeat) and `observed.request_percentiles` (per load level,
pooled over repeats, with a 95% interval): see those SQL files for the methods. Records that have
no file to be read from later (the JSON formats' frames, files not on disk) are handed back to be
stored in the warehouse; the others are published as the view `observed.requests` over the files.

With a records folder (the warehouse's), each file read in place is first copied there as it is checked (one
Parquet file named by the file's content and the code, `owned_records_name`), and the pass aggregates that copy:
every source file is parsed once, and a file whose copy is already there (unchanged since a build) is not parsed
at all, nor searched again for copies of rows."""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pyarrow as pa

from assets.core.errors import IngestError
from assets.core.records import Reject
from assets.core.sqltext import quote_ident, sql_path_literal, sql_string_literal
from assets.formats.dumps.model import SCAN_COLUMNS, TEXT_COLUMNS, RequestScan
from assets.formats.dumps.scan_sql import COPY_REASON, checked_scan_sql
from assets.inputs.files import sha256_bytes
from assets.inputs.textinput import file_encoding_problem, json_lines_file_problem
from assets.requests.order_stats import EXACT_UP_TO, PERCENTILE_PROBABILITIES, order_statistic_ranks
from assets.warehouse.fingerprint import code_fingerprint
from assets.warehouse.parquet import write_select
from assets.warehouse.sqlfiles import read_sql
from assets.warehouse.validate import sql_checks, sql_reasons, sql_valid
from schemas.observed.request_texts import RequestTexts
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
QUARANTINE_ROWS_PER_SOURCE = 1_000  # failing rows listed one by one per source; the rest counted
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


KEY_COLUMNS = ["source_key", "file_offered_rate_per_s", "file_concurrency"]


# A source's rows as the pass reads them: checked SCAN_COLUMNS (checked_scan_sql) after the source's id.
_ROW_TYPES = {
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


FRAME_ROWS = ("request", -1)  # a JSON format's records are named as `checked_column` names them: request 0, ...


@dataclass(frozen=True)
class Source:
    """One request source of a run: a file read in place (RequestScan), or the frame of one measurement,
    with the load level its rows belong to: `level_kind`/`level_nominal` when the measurement says it
    (None: from the file's own level columns, else the run's kind)."""

    key: str
    name: str
    requests: RequestScan | pl.DataFrame
    run_id: str
    run_kind: str
    level_kind: str | None
    level_nominal: float | None
    sha256: str | None = None  # of the file's content, naming its records in the warehouse (owned_records_name)

    @property
    def in_place(self) -> bool:
        return isinstance(self.requests, RequestScan) and self.requests.data is None

    def row_name(self, ordinal: int) -> str:
        if isinstance(self.requests, RequestScan):
            return self.requests.row_name(ordinal)
        return f"{FRAME_ROWS[0]} {ordinal + FRAME_ROWS[1]}"


class RequestPass:
    """One DuckDB pass over the request sources of a dumps folder (an in-memory database that spills
    to a temporary folder if need be): every source is parsed once, by one aggregation; only the
    load levels of at most EXACT_UP_TO requests are read again, for their exact order statistics.
    Closed with `close`."""

    def __init__(self, store_texts: bool = False, records_dir: Path | None = None) -> None:
        self.store_texts = store_texts  # hold the prompt and response texts of frames (`texts`); off: never held
        self.records_dir = records_dir  # the warehouse's records: files read in place are copied there, then read
        self.folder = Path(tempfile.mkdtemp(prefix="benchbill-requests-"))
        self.conn = duckdb.connect()
        self.conn.execute(f"SET temp_directory = {sql_string_literal(str(self.folder / 'spill'))}")
        self.conn.execute("SET preserve_insertion_order = false")
        self.sources: dict[str, Source] = {}
        self._ids: dict[str, int] = {}
        self._parts: dict[str, str] = {}
        self._scans: dict[str, RequestScan] = {}  # as read: re-pointed to a temporary copy if not on disk
        self._levels: dict[str, str] = {}  # a scan's SQL columns for its run and load level
        self._tolerant: set[str] = set()  # scans read with every value as text (their typed read failed)
        self._copies: set[str] = set()  # scans holding copies of rows (counted by hash), found by a window
        self._owned: dict[str, Path] = {}  # a scan's records in the warehouse, which the pass reads instead
        self._reused: set[str] = set()  # scans whose records were already there (checked before: no hash)
        self._screened: dict[str, bool] = {}  # scans screened for copies as their records were written: any?
        self._frames: list[pl.DataFrame] = []
        self._texts: list[pl.DataFrame] = []
        self.groups: pl.DataFrame | None = None
        self.unreadable: dict[str, str] = {}

    def close(self) -> None:
        self.conn.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> RequestPass:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def add(self, source: Source) -> None:
        source_id = self._ids[source.key] = len(self._ids)
        self.sources[source.key] = source
        requests = source.requests
        if isinstance(requests, RequestScan) and requests.level_columns:
            kind = (
                f"CASE WHEN offered_rate_per_s IS NOT NULL THEN 'rate' WHEN concurrency IS NOT NULL "
                f"THEN 'concurrency' ELSE {sql_string_literal(source.run_kind)} END"
            )
            nominal = "round(CASE WHEN offered_rate_per_s IS NOT NULL THEN offered_rate_per_s ELSE concurrency END, 6)"
            if source.run_kind == "concurrency":
                nominal = "round(CASE WHEN offered_rate_per_s IS NULL THEN concurrency ELSE offered_rate_per_s END, 6)"
        else:
            kind = sql_string_literal(source.level_kind or source.run_kind)
            nominal = "NULL::DOUBLE" if source.level_nominal is None else f"{source.level_nominal!r}::DOUBLE"
        level = f"{sql_string_literal(source.run_id)} AS run_id, {kind} AS level_kind, {nominal} AS level_nominal"
        if isinstance(requests, pl.DataFrame):
            rows = requests.with_columns(
                pl.lit(source_id).alias("source_id"),
                (pl.col("request_index") + 1).alias("ordinal"),
                pl.coalesce("start_offset_s", "start_time_unix_s").alias("start_s"),
                pl.lit(None).alias("offered_rate_per_s"),
                pl.lit(None).alias("concurrency"),
                pl.lit(None).alias("problem"),
                pl.lit(None).alias("row_hash"),
            )
            self._frames.append(rows.select([pl.col(c).cast(t) for c, t in _ROW_TYPES.items()]))
            texts = [c for c in TEXT_COLUMNS if c in rows.columns]
            if texts and self.store_texts:
                self._texts.append(
                    rows.select(
                        "source_id",
                        "ordinal",
                        *[
                            pl.col(c).cast(pl.String) if c in texts else pl.lit(None, pl.String).alias(c)
                            for c in TEXT_COLUMNS
                        ],
                    )
                )
            self._parts[source.key] = f"SELECT *, {level} FROM request_frames WHERE source_id = {source_id}"
            return
        if requests.data is not None:  # not on disk: read from a temporary copy
            copy = self.folder / f"source-{source_id}{Path(requests.path).suffix}"
            copy.write_bytes(requests.data)
            requests = repointed(requests, copy)
        self._scans[source.key] = requests
        self._levels[source.key] = level
        self._parts[source.key] = self._scan_part(source.key)

    def _scan_part(self, key: str, explain: bool = False) -> str:
        """The rows of one file as the pass reads them: checked (checked_scan_sql; the reasons only when
        `explain`), with the source's id and load level; from its records in the warehouse when it has some
        (row_hash, for the count of distinct rows, computed there over the checked columns: rows equal in the
        file are equal there, so no file holding copies is missed)."""
        owned = self._owned.get(key)
        if owned is None or explain:
            return f"SELECT {self._ids[key]} AS source_id, *, {self._levels[key]} FROM ({self._checked(key, explain)})"
        hashed = (
            self._scans[key].read_once
            and key not in self._copies
            and key not in self._reused
            and key not in self._screened
        )
        every = ", ".join(quote_ident(c) for c in SCAN_COLUMNS if c != "ordinal")
        row_hash = f"hash({every})" if hashed else "NULL::UBIGINT"
        return (
            f"SELECT {self._ids[key]} AS source_id, * REPLACE ({row_hash} AS row_hash), {self._levels[key]} "
            f"FROM read_parquet({sql_path_literal(owned)})"
        )

    def _own_records(self) -> None:
        """Each source read in place, copied into the records folder as the pass checks it (unless its copy is
        there already); the pass then reads the copies. The copies are written on every core at once (one DuckDB
        cursor per file: a file's own write keeps its rows in order and so uses about one core); a file whose
        typed read fails is then written again on its own (`_write_records`). A file whose rows may hold copies
        of rows (`_copy_records`) is written again with them found and quarantined."""
        assert self.records_dir is not None
        self.records_dir.mkdir(parents=True, exist_ok=True)
        targets: dict[str, Path] = {}
        for key in list(self._parts):
            source = self.sources[key]
            if key not in self._scans or not source.in_place:
                continue
            target = self.records_dir / owned_records_name(source.sha256, key)
            if target.exists():
                self._reused.add(key)
                self._owned[key] = target
                self._parts[key] = self._scan_part(key)
            else:
                targets[key] = target
        self.conn.execute("SET preserve_insertion_order = true")
        try:
            with ThreadPoolExecutor(max_workers=max(1, min(len(targets), os.cpu_count() or 1))) as pool:
                failed = [key for key, ok in zip(targets, pool.map(self._try_write_records, targets.items())) if not ok]
        finally:
            self.conn.execute("SET preserve_insertion_order = false")
        for key, target in targets.items():
            if key in failed and not self._write_records(key, target):
                continue
            if self._screened.get(key):
                self._copies.add(key)
                if not self._write_records(key, target):
                    continue
            self._owned[key] = target
            self._parts[key] = self._scan_part(key)

    def _copy_records(self, conn: duckdb.DuckDBPyConnection, key: str, partial: Path) -> None:
        """One file's checked rows, in the file's order, written to `partial` (`write_select`). A file whose equal
        rows are copies (`read_once`) is screened for them as it is written: its rows' hashes (not stored) sorted,
        two equal neighbours mean it may hold copies (`_screened`: True), which only a window over the file then
        finds; sorting costs a tenth of DuckDB's count(DISTINCT) over the same hashes."""
        scan = self._scans[key]
        screen = scan.read_once and key not in self._copies
        copies = "find" if key in self._copies else "hash" if screen else None
        checked = checked_scan_sql(scan, scan.select_for(key in self._tolerant), explain=False, copies=copies)
        hashes = write_select(conn, checked, partial, RECORDS_DICTIONARY, withhold="row_hash" if screen else None)
        if screen:
            values = np.sort(pa.chunked_array(hashes, pa.uint64()).to_numpy())
            self._screened[key] = bool(values.size > 1 and (values[1:] == values[:-1]).any())

    def _try_write_records(self, item: tuple[str, Path]) -> bool:
        """One file's checked rows written to its target on a cursor of its own; False when DuckDB could not
        (the caller then tries `_write_records`, which knows what to do about it)."""
        key, target = item
        partial = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.partial")
        try:
            with self.conn.cursor() as cursor:
                self._copy_records(cursor, key, partial)
            os.replace(partial, target)
            return True
        except duckdb.Error:
            return False
        finally:
            partial.unlink(missing_ok=True)

    def _write_records(self, key: str, target: Path) -> bool:
        """The checked rows of one file written to `target` (a temporary name, then renamed: a kill leaves no
        half file under the real name), in the file's order; False when the file cannot be read (`_cannot_read`)."""
        partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
        self.conn.execute("SET preserve_insertion_order = true")
        try:
            while True:
                try:
                    self._copy_records(self.conn, key, partial)
                    os.replace(partial, target)
                    return True
                except duckdb.Error as exc:
                    if not self._cannot_read(key, str(exc).splitlines()[0]):
                        return False
        finally:
            partial.unlink(missing_ok=True)
            self.conn.execute("SET preserve_insertion_order = false")

    def _cannot_read(self, key: str, reason: str) -> bool:
        """A file DuckDB could not read: True to try again with every value as text (its typed read failed);
        else it is left out and listed in `unreadable` (False), or, for JSON lines, the run stops (IngestError)."""
        scan = self._scans[key]
        if scan.tolerant_select and key not in self._tolerant:
            self._tolerant.add(key)
            self._parts[key] = self._scan_part(key)
            return True
        name = self.sources[key].name
        if "read_ndjson" in scan.select:
            raise IngestError(
                json_lines_file_problem(Path(scan.path), name) or f"{name}: invalid JSON ({reason})"
            ) from None
        problem = file_encoding_problem(Path(scan.path)) if "read_csv" in scan.select else None
        self.unreadable[key] = problem or f"cannot read as CSV/Parquet: {reason}"
        del self._parts[key]
        return False

    def _checked(self, key: str, explain: bool) -> str:
        scan = self._scans[key]
        copies = "find" if key in self._copies else "hash" if scan.read_once else None
        return checked_scan_sql(scan, scan.select_for(key in self._tolerant), explain=explain, copies=copies)

    def run(self) -> pl.DataFrame:
        """Parse every source once (a file holding copies of rows twice); the groups (per source and load level)
        it holds. A file DuckDB cannot read
        with the types it inferred or was told is read again with every value as text (its values are then
        checked row by row); a CSV or Parquet file DuckDB cannot read at all is left out and listed in
        `unreadable` (key -> reason: not UTF-8 text, or DuckDB's reason), to be quarantined; JSON lines that
        are not JSON stop the run (IngestError naming the file and the line), as any file that looks like
        JSON and is not."""
        self.conn.register(
            "request_frames", (pl.concat(self._frames) if self._frames else pl.DataFrame(schema=_ROW_TYPES)).to_arrow()
        )
        self.conn.register(
            "request_source_ids",
            pl.DataFrame(
                {"source_id": list(self._ids.values()), "source_key": list(self._ids)},
                schema={"source_id": pl.Int64, "source_key": pl.String},
            ).to_arrow(),
        )
        if self.records_dir is not None:
            self._own_records()
        while True:
            parts = list(self._parts.values()) or [
                "SELECT *, NULL::VARCHAR AS run_id, NULL::VARCHAR AS level_kind, NULL::DOUBLE AS level_nominal "
                "FROM request_frames"
            ]
            try:
                self.conn.execute(f"CREATE OR REPLACE TEMP VIEW request_rows AS {_rows_sql(parts)}")
                self.conn.execute(
                    f"CREATE OR REPLACE TEMP TABLE request_groups AS "
                    f"{read_sql('observed/request_pass/request_groups.sql')}"
                )
            except duckdb.Error as exc:
                key, reason = self._unreadable(exc)
                scan = self._scans.get(key) if key is not None else None
                if key is None or scan is None:
                    raise IngestError(f"reading per-request records failed: {reason}") from None
                self._cannot_read(key, reason)
                continue
            # Files with fewer distinct row hashes than rows hold copies of rows (or, rarely, rows whose hashes
            # collide): read those again, finding the copies row by row (a window, only there).
            copied = {
                key
                for (key,) in self.conn.execute(
                    "SELECT DISTINCT i.source_key FROM request_groups AS g "
                    "JOIN request_source_ids AS i USING (source_id) "
                    "WHERE g.grouping_set = 'repeat' AND g.rows_maybe_copied > 0"
                ).fetchall()
            } - self._copies
            if not copied:
                break
            self._copies |= copied
            for key in copied:
                if key in self._owned and not self._write_records(key, self._owned[key]):
                    continue
                self._parts[key] = self._scan_part(key)
        # Records already in the warehouse were searched for copies when written: those holding some say so.
        self._copies |= {
            key
            for (key,) in self.conn.execute(
                "SELECT DISTINCT i.source_key FROM request_groups AS g JOIN request_source_ids AS i USING (source_id) "
                "WHERE g.grouping_set = 'repeat' AND g.rows_copied > 0"
            ).fetchall()
            if key in self._reused
        }
        self.groups = self.conn.execute(
            "SELECT i.source_key, g.* EXCLUDE (grouping_set, first_arrivals_s, ttft_q, tpot_q, e2e_q, "
            "rows_maybe_copied) "
            "FROM request_groups AS g JOIN request_source_ids AS i USING (source_id) "
            "WHERE grouping_set = 'repeat' ORDER BY i.source_key, file_offered_rate_per_s, file_concurrency"
        ).pl()
        return self.groups

    def _unreadable(self, exc: duckdb.Error) -> tuple[str | None, str]:
        """(key, DuckDB's reason) of the source the pass could not read (None: no single source)."""
        for key, part in self._parts.items():
            try:
                self.conn.execute(
                    "SELECT count(*), min(phase), min(status), min(start_s), min(input_tokens), "
                    "min(output_tokens), min(ttft_ms), min(e2e_ms), min(level_nominal) "
                    f"FROM ({_rows_sql([part])})"
                ).fetchall()
            except duckdb.Error as own:
                return key, str(own).splitlines()[0]
        return None, str(exc).splitlines()[0]

    def rejects(self) -> list[Reject]:
        """The rows that failed a check: the first QUARANTINE_ROWS_PER_SOURCE of each source one by one
        (location: the row as the file counts it, `line 6` of a CSV, `request 3` of a JSON format's
        records), then one line with the count."""
        if self.groups is None or not self.groups.get_column("rows_quarantined").sum():
            return []
        names = ["phase", "status", "start_s", "input_tokens", "output_tokens", "ttft_ms", "e2e_ms", "tpot_ms", "error"]
        failing = set(self.groups.filter(pl.col("rows_quarantined") > 0).get_column("source_key").to_list())
        explained = _rows_sql(
            [
                self._scan_part(key, explain=True) if key in self._scans else part
                for key, part in self._parts.items()
                if key in failing
            ]
        )
        rows = self.conn.execute(
            f"SELECT i.source_key, r.ordinal, r.reasons, {', '.join('r.' + n for n in names)} "
            "FROM (SELECT *, row_number() OVER (PARTITION BY source_id ORDER BY ordinal) AS listed "
            f"      FROM ({explained}) WHERE NOT valid) AS r JOIN request_source_ids AS i USING (source_id) "
            "WHERE r.listed <= ? ORDER BY i.source_key, r.ordinal",
            [QUARANTINE_ROWS_PER_SOURCE],
        ).fetchall()
        out = [
            Reject(self.sources[key].name, self.sources[key].row_name(ordinal), reasons, dict(zip(names, values)))
            for key, ordinal, reasons, *values in rows
        ]
        totals = (
            self.groups.group_by("source_key")
            .agg(pl.col("rows_quarantined").sum())
            .filter(pl.col("rows_quarantined") > QUARANTINE_ROWS_PER_SOURCE)
        )
        for key, count in totals.iter_rows():
            out.append(
                Reject(
                    self.sources[key].name,
                    "rows",
                    f"{count - QUARANTINE_ROWS_PER_SOURCE} more rows failed "
                    f"a value check or the checks of schema {Requests.__name__} (the first "
                    f"{QUARANTINE_ROWS_PER_SOURCE} are listed one by one)",
                )
            )
        return out

    def finish(self, keys: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
        """observed.request_stats and observed.request_percentiles, once `keys` (KEY_COLUMNS -> run_id,
        load_index, repeat_index) places every group in its run's sweep."""
        ids = pl.DataFrame(
            {"source_key": list(self._ids), "source_id": list(self._ids.values())},
            schema={"source_key": pl.String, "source_id": pl.Int64},
        )
        self.conn.register(
            "request_keys",
            keys.join(ids, on="source_key")
            .select(
                *KEY_COLUMNS,
                "source_id",
                "run_id",
                "load_index",
                "repeat_index",
                "source",
                "first_ordinal",
                "first_start_s",
                "level_kind",
                "level_nominal",
            )
            .to_arrow(),
        )
        self.conn.execute(
            f"CREATE TEMP VIEW request_groups_keyed AS {read_sql('observed/request_pass/request_groups_keyed.sql')}"
        )
        stats = self.conn.execute(read_sql("observed/request_pass/request_stats.sql")).pl()
        self._read_small_levels()
        self.conn.execute(f"CREATE TEMP TABLE request_pooled AS {read_sql('observed/request_pass/request_pooled.sql')}")
        sizes = [
            n
            for (n,) in self.conn.execute(
                "SELECT DISTINCT requests_used FROM request_pooled WHERE requests_used BETWEEN 1 AND ?", [EXACT_UP_TO]
            ).fetchall()
        ]
        ranks = [
            {"requests_used": n, "percentile": p, "lower_rank": lo, "upper_rank": hi}
            for n in sizes
            for p in PERCENTILE_PROBABILITIES
            for lo, hi in [order_statistic_ranks(n, p)]
        ]
        self.conn.register(
            "order_ranks",
            pl.DataFrame(
                ranks,
                schema={
                    "requests_used": pl.Int64,
                    "percentile": pl.Float64,
                    "lower_rank": pl.Int64,
                    "upper_rank": pl.Int64,
                },
            ).to_arrow(),
        )
        percentiles = self.conn.execute(read_sql("observed/request_pass/request_percentiles.sql")).pl()
        return stats, percentiles

    def _read_small_levels(self) -> None:
        """request_small: the sorted values of the load levels of at most EXACT_UP_TO ok requests, read
        again from only the sources that hold them."""
        self.conn.execute(
            "CREATE TEMP TABLE small_levels AS SELECT DISTINCT k.run_id, k.level_kind, k.level_nominal, "
            "g.source_id AS point_id, k.load_index, k.source_id AS key_source_id "
            "FROM request_keys AS k JOIN request_groups AS g ON g.grouping_set = 'level' AND g.run_id = k.run_id "
            "AND g.level_kind = k.level_kind AND g.level_nominal IS NOT DISTINCT FROM k.level_nominal "
            "AND g.source_id IS NOT DISTINCT FROM (CASE WHEN k.level_nominal IS NULL THEN k.source_id END) "
            "WHERE least(g.ttft_n, g.tpot_n, g.e2e_n) <= ?",
            [EXACT_UP_TO],
        )
        small = {i for (i,) in self.conn.execute("SELECT DISTINCT key_source_id FROM small_levels").fetchall()}
        parts = [part for key, part in self._parts.items() if self._ids[key] in small]
        if not parts:
            self.conn.execute(
                "CREATE TEMP TABLE request_small (run_id VARCHAR, load_index BIGINT, "
                "ttft_sorted DOUBLE[], tpot_sorted DOUBLE[], e2e_sorted DOUBLE[])"
            )
            return
        self.conn.execute(f"CREATE TEMP VIEW small_rows AS {_rows_sql(parts)}")
        self.conn.execute(f"CREATE TEMP TABLE request_small AS {read_sql('observed/request_pass/request_small.sql')}")

    def stored(self, keys: pl.DataFrame) -> pl.DataFrame:
        """The valid rows of the sources that cannot be read in place later, keyed and in the columns
        of observed.requests (to be stored in the warehouse)."""
        stored = [self._ids[k] for k, s in self.sources.items() if not s.in_place]
        if not stored:
            return pl.DataFrame(schema={c: d.type for c, d in Requests.to_schema().dtypes.items()})
        rows = "(SELECT * FROM request_rows WHERE source_id IN (" + ", ".join(map(str, stored)) + "))"
        return self.conn.execute(
            f"{requests_select(rows, 'request_keys')} ORDER BY run_id, load_index, repeat_index, request_index"
        ).pl()

    def view_scans(self) -> list[tuple[str, str]]:
        """(source key, checked SELECT) of every file observed.requests reads in place, as this pass read it
        (with every value as text where the typed read failed); the window that finds copies of rows only
        for the files that hold some."""
        copied = (
            set()
            if self.groups is None
            else set(self.groups.filter(pl.col("rows_copied") > 0).get_column("source_key").to_list())
        )
        out = []
        for key, scan in self._scans.items():
            if self.sources[key].in_place and key in self._parts:
                select = scan.select_for(key in self._tolerant)
                out.append(
                    (key, checked_scan_sql(scan, select, explain=False, copies="find" if key in copied else None))
                )
        return out

    def texts(self, keys: pl.DataFrame) -> pl.DataFrame:
        """observed.request_texts: the prompt and response texts of the rows kept (valid, placed by `keys`) of
        every source that has them (the JSON formats' frames; a generic file's text columns, read now)."""
        if not self.store_texts:
            return pl.DataFrame(schema={c: d.type for c, d in RequestTexts.to_schema().dtypes.items()})
        parts = [
            f"SELECT {self._ids[key]} AS source_id, * FROM ({scan.text_select})"
            for key, scan in self._scans.items()
            if scan.text_select and key in self._parts
        ]
        if self._texts:
            self.conn.register("request_frame_texts", pl.concat(self._texts).to_arrow())
            parts.append("SELECT * FROM request_frame_texts")
        ids = (
            {
                int(row[0])
                for row in self.conn.execute(f"SELECT DISTINCT source_id FROM ({' UNION ALL '.join(parts)})").fetchall()
            }
            if parts
            else set()
        )
        if not ids:
            return pl.DataFrame(schema={c: d.type for c, d in RequestTexts.to_schema().dtypes.items()})
        rows = _rows_sql([part for key, part in self._parts.items() if self._ids[key] in ids])
        return self.conn.execute(
            f"SELECT k.run_id, k.load_index, k.repeat_index, r.ordinal - k.first_ordinal AS request_index, "
            f"t.prompt_text, t.response_text, k.source "
            f"FROM ({rows}) AS r JOIN ({' UNION ALL BY NAME '.join(parts)}) AS t USING (source_id, ordinal) "
            "JOIN request_keys AS k ON k.source_id = r.source_id "
            "AND k.file_offered_rate_per_s IS NOT DISTINCT FROM r.offered_rate_per_s "
            "AND k.file_concurrency IS NOT DISTINCT FROM r.concurrency "
            "WHERE r.valid ORDER BY 1, 2, 3, 4"
        ).pl()


# The columns of a records file with few distinct values, dictionary-encoded (`write_select`); the rest are mostly
# distinct numbers, where a dictionary costs time and saves nothing.
RECORDS_DICTIONARY = ("phase", "status", "error", "problem", "offered_rate_per_s", "concurrency")


def owned_records_name(source_sha256: str | None, key: str) -> str:
    """The name of a file's records in the warehouse: its content (else its key) and the code that checks it."""
    return sha256_bytes(f"{source_sha256 or key}\n{code_fingerprint()}".encode())[:32] + ".parquet"


def _rows_sql(parts: list[str]) -> str:
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
