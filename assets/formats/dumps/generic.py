"""The generic per-request format, for in-house tools and production request logs.

A CSV file (comma-separated, one header row) or a Parquet file, one row per request:

| column | required | meaning |
| --- | --- | --- |
| `start_time_unix_s` or `start_offset_s` | one of them | when the request was sent: Unix s, or s from any origin |
| `input_tokens`, `output_tokens` | yes | token counts |
| `ttft_ms`, `e2e_ms` | for a measurement | time to first token, send to last token, in ms |
| `status` | no (ok) | ok, error, incomplete or cancelled |
| `phase` | no (measure) | measure, warmup or cooldown |
| `offered_rate_per_s` / `concurrency` | no | the load level the row was measured at; rows are grouped by it |
| `error` | no | error text |
| `prompt_text`, `response_text` | no | the request's texts: read only by a run with `--store-texts` |

Other columns are ignored. A file with `ttft_ms` and `e2e_ms` is a measurement (one load level
per distinct `offered_rate_per_s`/`concurrency`, or the whole file); without them it is a request
log that only tells traffic (arrivals and token mix) and is read through a profile's
`workload.traffic_log`. DuckDB reads the file where it lies (`RequestScan`): a 10-million-row log
never becomes Python objects. Every value is checked row by row (`checked_scan_sql`: a number that is
not a number, not finite, a fractional token count, a value outside its plausible range such as a
Unix time in ms; assets.request_records.request_pass: phase and status outside the lists above, negative counts and
times), and so is every row (a copy of an earlier row; the last row of a CSV that does not end with a
newline, which may be cut short): a row that fails is quarantined with the reason, never read as
NULL or as another number. TPOT is computed by our one definition, never read from the file.
"""

from __future__ import annotations

import duckdb
import polars as pl

from assets.core.sqltext import quote_ident, sql_path_literal, sql_string_literal
from assets.formats.dumps.exchange import TEXT_COLUMNS, Dump, FormatProblem, Measurement, Parsed, RequestScan
from assets.formats.dumps.scan_sql import checked_scan_sql
from assets.formats.dumps.tabular import header_columns
from assets.inputs.textinput import CUT_LINE_REASON

TOOL = "generic"
MEASUREMENT_CSV = "generic per-request CSV"
MEASUREMENT_PARQUET = "generic per-request Parquet"
LOG_CSV = "generic request log CSV (traffic only)"
LOG_PARQUET = "generic request log Parquet (traffic only)"
FORMATS = (MEASUREMENT_CSV, MEASUREMENT_PARQUET, LOG_CSV, LOG_PARQUET)
SKIPPED = {
    LOG_CSV: "a request log without ttft_ms/e2e_ms: traffic only (name it in a profile's workload.traffic_log)",
    LOG_PARQUET: "a request log without ttft_ms/e2e_ms: traffic only (name it in a profile's workload.traffic_log)",
}
READ_IN_PLACE = frozenset({MEASUREMENT_CSV, MEASUREMENT_PARQUET, LOG_CSV, LOG_PARQUET})

DEFINITIONS = (
    "generic per-request format: TTFT = ttft_ms, E2E = e2e_ms as written; TPOT recomputed by our "
    "definition; percentiles recomputed by benchbill"
)

START_COLUMNS = ("start_time_unix_s", "start_offset_s")
LEVEL_COLUMNS = ("offered_rate_per_s", "concurrency")


def recognise(dump: Dump) -> str | None:
    columns = header_columns(dump)
    if not columns or not {"input_tokens", "output_tokens"} <= set(columns) or not set(START_COLUMNS) & set(columns):
        return None
    parquet = dump.data[:4] == b"PAR1"
    if {"ttft_ms", "e2e_ms"} <= set(columns):
        return MEASUREMENT_PARQUET if parquet else MEASUREMENT_CSV
    return LOG_PARQUET if parquet else LOG_CSV


def cut_csv_line(dump: Dump) -> bool:
    """True when a CSV does not end with a newline: its last line may be cut short (not read)."""
    return dump.data[:4] != b"PAR1" and bool(dump.data) and dump.last_bytes[-1:] not in (b"\n", b"\r")


def scan(dump: Dump) -> RequestScan:
    """The SQL with which DuckDB reads the file's requests in place (SCAN_COLUMNS, numbers as written:
    `checked_scan_sql` checks them), and the same reading every value as text."""
    columns = header_columns(dump) or []
    parquet = dump.data[:4] == b"PAR1"
    path = dump.path or dump.name
    start = "start_time_unix_s" if "start_time_unix_s" in columns else "start_offset_s"

    def raw(name: str) -> str:
        return quote_ident(name) if name in columns else "NULL"

    def word(name: str, default: str) -> str:
        return f"lower(CAST({quote_ident(name)} AS VARCHAR))" if name in columns else sql_string_literal(default)

    def select(source: str) -> str:
        return (
            f"SELECT ordinality AS ordinal, {word('phase', 'measure')} AS phase, {word('status', 'ok')} AS status, "
            f"{raw(start)} AS start_s, {raw('input_tokens')} AS input_tokens, "
            f"{raw('output_tokens')} AS output_tokens, {raw('ttft_ms')} AS ttft_ms, {raw('e2e_ms')} AS e2e_ms, "
            f"CAST({raw('error')} AS VARCHAR) AS error, {raw('offered_rate_per_s')} AS offered_rate_per_s, "
            f"{raw('concurrency')} AS concurrency FROM {source} WITH ORDINALITY"
        )

    texts = [c for c in TEXT_COLUMNS if c in columns]
    text_select = None
    if parquet:
        source, tolerant = f"read_parquet({sql_path_literal(path)})", None
    else:
        source = f"read_csv({sql_path_literal(path)}, header = true, auto_detect = true)"
        tolerant = select(f"read_csv({sql_path_literal(path)}, header = true, auto_detect = true, all_varchar = true)")
    if texts:
        text_select = (
            "SELECT ordinality AS ordinal, "
            + ", ".join(f"CAST({raw(c)} AS VARCHAR) AS {c}" for c in TEXT_COLUMNS)
            + f" FROM {source} WITH ORDINALITY"
        )
    return RequestScan(
        path=path,
        select=select(source),
        level_columns=tuple(c for c in LEVEL_COLUMNS if c in columns),
        data=None if dump.path else dump.data,
        tolerant_select=tolerant,
        start_column=start,
        row_word="row" if parquet else "line",
        row_offset=-1 if parquet else 1,
        read_once=True,
        cut_last_row=cut_csv_line(dump),
        text_select=text_select,
    )


def parse(dump: Dump, kind: str) -> Parsed:
    """One measurement whose records DuckDB reads in place; a file with level columns is split into
    one measurement per level once its levels are known (assets.runs.assemble)."""
    parsed = Parsed(kind=kind, tool=TOOL, definitions=DEFINITIONS)
    requests = scan(dump)
    parsed.measurements.append(Measurement(location="all rows", requests=requests))
    return parsed


def level_location(offered_rate_per_s: float | None, concurrency: float | None, level_columns: tuple[str, ...]) -> str:
    """Where one level of a generic file is: `offered_rate_per_s=2.0`, or `all rows`."""
    values = {"offered_rate_per_s": offered_rate_per_s, "concurrency": concurrency}
    return ", ".join(f"{c}={values[c]}" for c in level_columns) or "all rows"


def read_requests(dump: Dump, requests: RequestScan | None = None) -> pl.DataFrame:
    """The file's requests as a frame (start_offset_s from the first request): for the traffic logs
    of profiles, which only need arrivals and token counts. FormatProblem names the first row whose
    values cannot be used (`checked_scan_sql`): a traffic log is used whole or not at all (a last line
    that may be cut short is left out, as line readers do; copies of a row are arrivals too).
    `requests`: the scan of another traffic log form (assets.request_records.traffic_shape), checked alike."""
    requests = requests or scan(dump)
    if requests.data is not None:
        raise FormatProblem("a traffic log must be a file on disk")
    conn = duckdb.connect()
    try:
        for select in [requests.select] + ([requests.tolerant_select] if requests.tolerant_select else []):
            try:
                frame = conn.execute(
                    f"SELECT start_s - min(start_s) OVER () AS start_offset_s, input_tokens, output_tokens, problem "
                    f"FROM ({checked_scan_sql(requests, select)}) "
                    f"WHERE problem IS DISTINCT FROM {sql_string_literal(CUT_LINE_REASON)} ORDER BY ordinal"
                ).pl()
                break
            except duckdb.Error as exc:
                failure = exc
        else:
            raise FormatProblem(f"cannot read as CSV/Parquet: {str(failure).splitlines()[0]}") from None
    finally:
        conn.close()
    problems = frame.get_column("problem").drop_nulls()
    if problems.len():
        raise FormatProblem(problems[0])
    return frame.drop("problem")
