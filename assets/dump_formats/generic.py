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
`workload.traffic_log`. Files are read column-wise by polars (a 10-million-row log never becomes
Python objects); TPOT is computed by our one definition, never read from the file.
"""

from __future__ import annotations

import io
from collections.abc import Callable

import polars as pl

from assets.dump_formats import (
    PHASES,
    REQUEST_SCHEMA,
    STATUSES,
    Dump,
    FormatProblem,
    Measurement,
    Parsed,
    checked_column,
    empty_point,
)
from assets.textinput import CUT_LINE_REASON, encoding_problem

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
    if dump.data[:4] == b"PAR1" and dump.data[-4:] == b"PAR1":
        try:
            return list(pl.read_parquet_schema(io.BytesIO(dump.data)))
        except pl.exceptions.PolarsError:
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


def cut_csv_line(data: bytes) -> bool:
    """True when a CSV does not end with a newline: its last line may be cut short (not read)."""
    return data[:4] != b"PAR1" and bool(data) and data[-1:] not in (b"\n", b"\r")


def read_frame(data: bytes, name: str) -> pl.DataFrame:
    """The file as a polars frame (CSV or Parquet by content), a CSV without a last line that may be
    cut short (`cut_csv_line`); FormatProblem names what is wrong."""
    try:
        if data[:4] == b"PAR1":
            return pl.read_parquet(io.BytesIO(data))
        problem = encoding_problem(data)
        if problem:
            raise FormatProblem(problem)
        if cut_csv_line(data):
            data = data[: data.rfind(b"\n") + 1]
        return pl.read_csv(io.BytesIO(data), infer_schema_length=10000)
    except pl.exceptions.PolarsError as exc:
        raise FormatProblem(f"cannot read as CSV/Parquet: {exc}") from None


def request_frame(raw: pl.DataFrame, row: Callable[[int], str] = lambda i: f"row {i}") -> pl.DataFrame:
    """Canonical request columns from a generic frame, checked column-wise (`checked_column`: a value
    that is not a number, not finite or not plausible names its row)."""
    start = "start_time_unix_s" if "start_time_unix_s" in raw.columns else "start_offset_s"
    starts = checked_column(start, raw.get_column(start), pl.Float64, row, plausible=start == "start_time_unix_s")
    checked = [checked_column(c, raw.get_column(c), REQUEST_SCHEMA[c], row).alias(c)
               for c in ("input_tokens", "output_tokens", "ttft_ms", "e2e_ms") if c in raw.columns]
    checked += [checked_column(c, raw.get_column(c), pl.Float64, row).alias(c) for c in LEVEL_COLUMNS
                if c in raw.columns]
    frame = raw.with_columns(*checked).with_columns(
        pl.int_range(0, raw.height).alias("request_index"),
        (pl.col("phase") if "phase" in raw.columns else pl.lit("measure")).cast(pl.String).str.to_lowercase()
        .alias("phase"),
        (pl.col("status") if "status" in raw.columns else pl.lit("ok")).cast(pl.String).str.to_lowercase()
        .alias("status"),
        (starts - starts.min()).alias("start_offset_s"),
        (starts if start == "start_time_unix_s" else pl.lit(None, pl.Float64)).alias("start_time_unix_s"),
        *[(pl.col(c) if c in raw.columns else pl.lit(None)).cast(REQUEST_SCHEMA[c], strict=False).alias(c)
          for c in ("input_tokens", "output_tokens", "ttft_ms", "e2e_ms", "error")],
    )
    checked_column("start_offset_s", frame.get_column("start_offset_s"), pl.Float64, row)
    bad_phase = frame.filter(~pl.col("phase").is_in(list(PHASES))).height
    bad_status = frame.filter(~pl.col("status").is_in(list(STATUSES))).height
    if bad_phase or bad_status:
        raise FormatProblem(f"{bad_phase} rows with a phase outside {list(PHASES)} and {bad_status} with a status "
                            f"outside {list(STATUSES)}")
    return frame


def parse(dump: Dump, kind: str) -> Parsed:
    parsed = Parsed(kind=kind, tool=TOOL, definitions=DEFINITIONS)
    if kind in NOT_LOAD_LEVELS:
        parsed.note = NOT_LOAD_LEVELS[kind]
        return parsed
    csv = dump.data[:4] != b"PAR1"
    row = (lambda i: f"line {i + 2}") if csv else (lambda i: f"row {i}")
    try:
        frame = request_frame(read_frame(dump.data, dump.name), row)
    except FormatProblem as problem:
        parsed.problems.append(("file", str(problem)))
        return parsed
    if cut_csv_line(dump.data):
        parsed.problems.append((f"line {frame.height + 2}", CUT_LINE_REASON))
    # A request written twice (every column equal) is kept once; the copies are quarantined.
    copies = ~frame.drop("request_index").select(pl.struct(pl.all()).is_first_distinct()).to_series()
    for i in copies.arg_true().to_list():
        parsed.problems.append((row(i), "the same request as an earlier line (every column equal): read once"))
    frame = frame.filter(~copies)
    levels = [c for c in LEVEL_COLUMNS if c in frame.columns]
    groups = frame.partition_by(levels, maintain_order=True, as_dict=True) if levels else {(): frame}
    for key, group in groups.items():
        level = dict(zip(levels, key))
        rate, concurrency = level.get("offered_rate_per_s"), level.get("concurrency")
        load_kind = "rate" if rate is not None else ("concurrency" if concurrency is not None else None)
        where = ", ".join(f"{k}={v}" for k, v in level.items()) or "all rows"
        requests = group.with_columns(
            (pl.col("start_offset_s") - pl.col("start_offset_s").min()).alias("start_offset_s"),
            pl.int_range(0, group.height).alias("request_index"),
        ).select(list(REQUEST_SCHEMA))
        parsed.measurements.append(Measurement(location=where, load_kind=load_kind, offered_rate_per_s=rate,
                                               concurrency=concurrency, values=window_values(requests),
                                               requests=requests))
    return parsed


def window_values(requests: pl.DataFrame) -> dict:
    """Throughput over the measured window (first measured send -> last measured completion)."""
    measured = requests.filter(pl.col("phase") == "measure")
    ok = measured.filter(pl.col("status") == "ok")
    row = empty_point()
    stats = measured.select(
        pl.col("start_offset_s").min().alias("first"),
        (pl.col("start_offset_s") + pl.col("e2e_ms").fill_null(0) / 1000.0).max().alias("last"),
    ).row(0, named=True)
    window = None if stats["first"] is None else stats["last"] - stats["first"]
    failed = measured.height - ok.height
    row.update(requests_sent=measured.height, requests_ok=ok.height, requests_failed=failed,
               duration_s=window,
               mean_input_tokens=ok.get_column("input_tokens").mean(),
               mean_output_tokens=ok.get_column("output_tokens").mean())
    if window and window > 0:
        row.update(achieved_requests_per_s=ok.height / window,
                   input_tokens_per_s=(ok.get_column("input_tokens").sum() or 0) / window,
                   output_tokens_per_s=(ok.get_column("output_tokens").sum() or 0) / window)
        row["total_tokens_per_s"] = row["input_tokens_per_s"] + row["output_tokens_per_s"]
    return row
