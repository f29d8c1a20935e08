"""The generic per-request format, for in-house tools and production request logs.

A CSV file (comma-separated, one header row) or a Parquet file, one row per request:

| column | required | meaning |
| --- | --- | --- |
| `start_time_unix_s` or `start_offset_s` | one of them | when the request was sent: Unix seconds, or seconds from any origin |
| `input_tokens`, `output_tokens` | yes | token counts |
| `ttft_ms`, `e2e_ms` | for a measurement | time to first token, send to last token, in ms |
| `status` | no (ok) | ok, error, incomplete or cancelled |
| `phase` | no (measure) | measure, warmup or cooldown |
| `offered_rate_per_s` / `concurrency` | no | the load level the row was measured at; rows are grouped by it |
| `error` | no | error text |

Other columns are ignored. A file with `ttft_ms` and `e2e_ms` is a measurement (one load level
per distinct `offered_rate_per_s`/`concurrency`, or the whole file); without them it is a request
log that only tells traffic (arrivals and token mix) and is read through a profile's
`workload.traffic_log`. DuckDB reads the file where it lies (`RequestScan`): a 10-million-row log
never becomes Python objects. Values that are not numbers read as NULL; phase and status outside
the lists above, negative counts and times are checked row by row (assets.request_stats) and the
rows that fail are quarantined with the reason. TPOT is computed by our one definition, never read
from the file.
"""

from __future__ import annotations

import io

import polars as pl

from assets.dump_formats import Dump, FormatProblem, Measurement, Parsed, RequestScan
from assets.warehouse import quote_ident, sql_string_literal

TOOL = "generic"
MEASUREMENT_CSV = "generic per-request CSV"
MEASUREMENT_PARQUET = "generic per-request Parquet"
LOG_CSV = "generic request log CSV (traffic only)"
LOG_PARQUET = "generic request log Parquet (traffic only)"
FORMATS = (MEASUREMENT_CSV, MEASUREMENT_PARQUET, LOG_CSV, LOG_PARQUET)
NOT_LOAD_LEVELS = {LOG_CSV: "a request log without ttft_ms/e2e_ms: traffic only (name it in a profile's "
                            "workload.traffic_log)",
                   LOG_PARQUET: "a request log without ttft_ms/e2e_ms: traffic only (name it in a profile's "
                                "workload.traffic_log)"}

DEFINITIONS = ("generic per-request format: TTFT = ttft_ms, E2E = e2e_ms as written; TPOT recomputed by our "
               "definition; percentiles recomputed by benchbill")

START_COLUMNS = ("start_time_unix_s", "start_offset_s")
LEVEL_COLUMNS = ("offered_rate_per_s", "concurrency")


def _columns(dump: Dump) -> list[str] | None:
    if dump.data[:4] == b"PAR1" and dump.last_bytes[-4:] == b"PAR1":
        try:
            return list(pl.read_parquet_schema(dump.path if dump.path else io.BytesIO(dump.data)))
        except (pl.exceptions.PolarsError, OSError):
            return None
    if dump.payload is not None:
        return None
    first = dump.text_head.split("\n", 1)[0].strip()
    return [c.strip().strip('"') for c in first.split(",")] if "," in first else None


def recognise(dump: Dump) -> str | None:
    columns = _columns(dump)
    if not columns or not {"input_tokens", "output_tokens"} <= set(columns) \
            or not set(START_COLUMNS) & set(columns):
        return None
    parquet = dump.data[:4] == b"PAR1"
    if {"ttft_ms", "e2e_ms"} <= set(columns):
        return MEASUREMENT_PARQUET if parquet else MEASUREMENT_CSV
    return LOG_PARQUET if parquet else LOG_CSV


def scan(dump: Dump) -> RequestScan:
    """The SQL with which DuckDB reads the file's requests in place (SCAN_COLUMNS; numbers that are
    not numbers read as NULL)."""
    columns = _columns(dump) or []
    parquet = dump.data[:4] == b"PAR1"
    path = dump.path or dump.name
    start = "start_time_unix_s" if "start_time_unix_s" in columns else "start_offset_s"

    def typed(name: str, sql_type: str) -> str:
        return f"TRY_CAST({quote_ident(name)} AS {sql_type})" if name in columns else f"NULL::{sql_type}"

    def word(name: str, default: str) -> str:
        return f"lower(CAST({quote_ident(name)} AS VARCHAR))" if name in columns else sql_string_literal(default)

    source = (f"read_parquet({sql_string_literal(path)})" if parquet
              else f"read_csv({sql_string_literal(path)}, header = true, auto_detect = true)")
    select = (f"SELECT ordinality AS ordinal, {word('phase', 'measure')} AS phase, {word('status', 'ok')} AS status, "
              f"{typed(start, 'DOUBLE')} AS start_s, {typed('start_time_unix_s', 'DOUBLE')} AS start_time_unix_s, "
              f"{typed('input_tokens', 'BIGINT')} AS input_tokens, {typed('output_tokens', 'BIGINT')} AS output_tokens, "
              f"{typed('ttft_ms', 'DOUBLE')} AS ttft_ms, {typed('e2e_ms', 'DOUBLE')} AS e2e_ms, "
              f"{typed('error', 'VARCHAR')} AS error, {typed('offered_rate_per_s', 'DOUBLE')} AS offered_rate_per_s, "
              f"{typed('concurrency', 'DOUBLE')} AS concurrency "
              f"FROM {source} WITH ORDINALITY")
    return RequestScan(path=path, select=select, level_columns=tuple(c for c in LEVEL_COLUMNS if c in columns),
                       data=None if dump.path else dump.data)


def parse(dump: Dump, kind: str) -> Parsed:
    """One measurement whose records DuckDB reads in place; a file with level columns is split into
    one measurement per level once its levels are known (assets.dumps)."""
    parsed = Parsed(kind=kind, tool=TOOL, definitions=DEFINITIONS)
    if kind in NOT_LOAD_LEVELS:
        parsed.note = NOT_LOAD_LEVELS[kind]
        return parsed
    requests = scan(dump)
    parsed.measurements.append(Measurement(location="all rows", requests=requests))
    return parsed


def level_location(offered_rate_per_s: float | None, concurrency: float | None, level_columns: tuple[str, ...]) -> str:
    """Where one level of a generic file is: `offered_rate_per_s=2.0`, or `all rows`."""
    values = {"offered_rate_per_s": offered_rate_per_s, "concurrency": concurrency}
    return ", ".join(f"{c}={values[c]}" for c in level_columns) or "all rows"


def read_requests(dump: Dump) -> pl.DataFrame:
    """The file's requests as a frame (start_offset_s from the first request): for the traffic logs
    of profiles, which only need arrivals and token counts."""
    import duckdb

    requests = scan(dump)
    conn = duckdb.connect()
    try:
        if requests.data is not None:
            raise FormatProblem("a traffic log must be a file on disk")
        return conn.execute(
            f"SELECT start_s - min(start_s) OVER () AS start_offset_s, input_tokens, output_tokens "
            f"FROM ({requests.select}) ORDER BY ordinal").pl()
    except duckdb.Error as exc:
        raise FormatProblem(f"cannot read as CSV/Parquet: {exc}") from None
    finally:
        conn.close()
