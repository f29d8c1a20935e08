"""Our traffic's shape: the arrival pattern and token mix of a production request log.

A profile names its log with `workload.traffic_log`, a file in one of the forms of TRAFFIC_FORMS,
recognised by its content (`traffic_form`): the generic per-request format (`assets.formats.dumps.generic`),
the Azure LLM inference trace CSV (`TIMESTAMP,ContextTokens,GeneratedTokens`) or JSON lines with a
millisecond `timestamp`, `input_length` and `output_length` (Mooncake-style traces); only arrival times
and token counts are needed. From it:
the rate over time (requests per window), the mean and peak rate and their ratio, the coefficient of
variation of the inter-arrival gaps (0 = evenly spaced, 1 = Poisson, above 1 = bursty), the gamma
shape fitted to the gaps by maximum likelihood (vLLM's `--burstiness`: 1 = Poisson, below 1 =
burstier), and the input/output token mix. The shortlist compares it with the pattern each
measurement was taken under. Column-wise in polars: a long log never becomes Python objects."""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any, cast

import duckdb
import polars as pl

from assets.config.profiles import DEFAULT_PEAK_WINDOW_S
from assets.core.errors import IngestError
from assets.core.records import SourceFile
from assets.core.sqltext import sql_path_literal
from assets.formats.dumps import generic
from assets.formats.dumps.decode import decode
from assets.formats.dumps.exchange import Dump, FormatProblem, RequestScan
from assets.inputs.files import read_dump_file, size_of
from assets.request_records.lengths import token_stats
from assets.warehouse.frames import query_frame
from assets.warehouse.validate import frame_from_rows
from assets.warehouse.write import WriteReport, write_table
from schemas.requirement.traffic_rate import TrafficRate
from schemas.requirement.traffic_shape import TrafficShape

SECONDS_PER_DAY = 86400
# The rate windows a log may hold: at most this many per request (and never fewer than MIN_WINDOW_LIMIT), so that
# memory follows the requests, never the span a stray timestamp stretches the log to.
WINDOWS_PER_REQUEST = 100
MIN_WINDOW_LIMIT = 100_000
# A stray timestamp (year 9999, 1e15 ms): arrivals at either end cut off from the rest by a gap longer than a day
# and than OUTLIER_GAP_FACTOR x the rest's span, and no more than OUTLIER_SHARE of the requests (at least one).
OUTLIER_GAP_FACTOR = 10
OUTLIER_SHARE = 0.01


def _number(value: Any) -> float:
    """A polars aggregate of a numeric series (typed by polars as any Python value) as the float it is."""
    return cast(float, value)


def gamma_shape(gaps: pl.Series) -> float | None:
    """Maximum-likelihood gamma shape of positive gaps (Minka's closed-form approximation)."""
    positive = gaps.filter(gaps > 0)
    if positive.len() < 2:
        return None
    s = math.log(_number(positive.mean())) - _number(positive.log().mean())
    if s <= 0:
        return None
    return (3 - s + math.sqrt((s - 3) ** 2 + 24 * s)) / (12 * s)


def outliers(starts: pl.Series) -> tuple[int, int]:
    """How many of the sorted arrivals `starts` to leave out at the start and at the end: stray timestamps far
    outside the log's bulk (see OUTLIER_GAP_FACTOR). The largest gap is looked at again after each cut."""
    first, last = 0, starts.len()
    most = max(1, int(starts.len() * OUTLIER_SHARE))
    while last - first >= 4:
        kept = starts.slice(first, last - first)
        gaps = kept.diff().drop_nulls()
        at = int(_number(gaps.arg_max()))  # the gap between kept[at] and kept[at + 1]
        before, after = at + 1, kept.len() - at - 1
        rest = kept.slice(before, after) if before < after else kept.slice(0, before)
        bulk_span = float(rest[-1] - rest[0])
        if min(before, after) > most or not _number(gaps[at]) > max(SECONDS_PER_DAY, OUTLIER_GAP_FACTOR * bulk_span):
            break
        if before < after:
            first += before
        else:
            last -= after
    return first, starts.len() - last


def shape_of(
    frame: pl.DataFrame, peak_window_s: float = DEFAULT_PEAK_WINDOW_S, requests_per_day: float | None = None
) -> tuple[dict[str, Any], pl.DataFrame]:
    """The arrival pattern and token mix of a request frame (generic columns), and its rate windows.

    Windows are tumbling, `peak_window_s` long, aligned to the first request; a last window shorter than
    `peak_window_s` is left out. A window's rate is its request count / `peak_window_s`; the scaled rate is
    that rate x `requests_per_day / 86400 / (mean window rate)` (x 1 without a volume), so that the scaled
    windows' mean is our daily volume per second. `mean_requests_per_s` and `peak_requests_per_s` are the
    mean and the highest scaled window rate. Stray timestamps far outside the log's bulk (`outliers`) are left
    out, with their requests, and counted in `outliers_left_out`; a log whose windows would outnumber its requests
    WINDOWS_PER_REQUEST times (and MIN_WINDOW_LIMIT) is refused: memory follows the requests, never the span."""
    starts = frame.get_column("start_offset_s").drop_nulls().sort()
    left_out = outliers(starts) if starts.len() >= 4 else (0, 0)
    if sum(left_out):
        starts = starts.slice(left_out[0], starts.len() - sum(left_out))
        start = pl.col("start_offset_s")
        frame = frame.filter(start.is_null() | start.is_between(starts[0], starts[-1]))
    if starts.len() < 3:
        raise FormatProblem(f"{starts.len()} requests with a start time: too few for an arrival pattern")
    span = float(starts[-1] - starts[0])
    if not math.isfinite(span) or not math.isfinite(peak_window_s) or peak_window_s <= 0:
        raise FormatProblem(f"the log spans {span:g} s in windows of {peak_window_s:g} s: not a time span")
    windows_in_log = int(span // peak_window_s)
    if windows_in_log < 1:
        raise FormatProblem(
            f"the log spans {span:g} s, shorter than one peak window of {peak_window_s:g} s "
            "(set a shorter workload.peak_window_s)"
        )
    window_limit = max(MIN_WINDOW_LIMIT, WINDOWS_PER_REQUEST * starts.len())
    if windows_in_log > window_limit:
        raise FormatProblem(
            f"the log spans {span:g} s: {windows_in_log:,} windows of {peak_window_s:g} s for {starts.len():,} "
            f"requests, more than {window_limit:,} (at most {WINDOWS_PER_REQUEST} per request, or "
            f"{MIN_WINDOW_LIMIT:,}); a timestamp far from the rest, or set a longer workload.peak_window_s"
        )
    gaps = starts.diff().drop_nulls()
    counts = (
        pl.DataFrame({"t": starts - starts[0]})
        .with_columns((pl.col("t") // peak_window_s).cast(pl.Int64).alias("w"))
        .group_by("w")
        .len()
        .sort("w")
    )
    full = pl.DataFrame({"w": pl.int_range(0, windows_in_log, eager=True)})
    windows = full.join(counts, on="w", how="left").with_columns(pl.col("len").fill_null(0))
    window_mean = _number(windows.get_column("len").sum()) / (windows_in_log * peak_window_s)
    scale = requests_per_day / SECONDS_PER_DAY / window_mean if requests_per_day else 1.0
    mean_rate = (starts.len() - 1) / span if span > 0 else None
    peak = _number(windows.get_column("len").max()) / peak_window_s
    shape = {
        "requests": starts.len(),
        "outliers_left_out": sum(left_out),
        "span_s": span,
        "mean_rate_per_s": mean_rate,
        "window_s": float(peak_window_s),
        "windows": windows_in_log,
        "window_mean_rate_per_s": window_mean,
        "peak_rate_per_s": peak,
        "peak_to_mean": peak / window_mean,
        "requests_per_day": requests_per_day,
        "volume_scale": scale,
        "mean_requests_per_s": window_mean * scale,
        "peak_requests_per_s": peak * scale,
        "interarrival_cv": float(_number(gaps.std()) / _number(gaps.mean())) if gaps.mean() else None,
        "gamma_shape": gamma_shape(gaps),
        **token_stats("input", frame.get_column("input_tokens")),
        **token_stats("output", frame.get_column("output_tokens")),
    }
    rates = windows.select(
        (pl.col("w") * peak_window_s).cast(pl.Float64).alias("window_start_s"),
        pl.col("len").cast(pl.Int64).alias("requests"),
        (pl.col("len") / peak_window_s).alias("rate_per_s"),
        (pl.col("len") / peak_window_s * scale).alias("scaled_rate_per_s"),
    )
    return shape, rates


# --- the forms of a traffic log ------------------------------------------------------------------

GENERIC_LOG = "generic per-request format"
AZURE_TRACE = "Azure LLM inference trace CSV"
TRACE_JSON_LINES = "request trace JSON lines"
# Each form: how it is recognised and what its columns mean (named in every error about it).
TRAFFIC_FORMS = {
    GENERIC_LOG: "a CSV/Parquet with start_time_unix_s or start_offset_s, input_tokens, output_tokens",
    AZURE_TRACE: (
        "a CSV with the header TIMESTAMP,ContextTokens,GeneratedTokens: TIMESTAMP the arrival as "
        "YYYY-MM-DD HH:MM:SS.fffffff (no time zone; up to 7 fractional digits, 100 ns), ContextTokens the "
        "input tokens, GeneratedTokens the output tokens"
    ),
    TRACE_JSON_LINES: (
        "JSON lines whose objects have timestamp (arrival, ms from any origin), input_length and "
        "output_length (input and output tokens); other keys ignored"
    ),
}
AZURE_COLUMNS = ("TIMESTAMP", "ContextTokens", "GeneratedTokens")
TRACE_KEYS = ("timestamp", "input_length", "output_length")
AZURE_TIME = r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,7})?"


def _header(dump: Dump) -> list[str]:
    first = dump.text_head.split("\n", 1)[0].strip()
    return [c.strip().strip('"') for c in first.split(",")]


def traffic_form(dump: Dump) -> str | None:
    """The form of a traffic log, from its first line (its header, or its first JSON object); None when none."""
    if dump.json_lines and isinstance(dump.payload, list) and dump.payload:
        return TRACE_JSON_LINES if set(TRACE_KEYS) <= set(dump.payload[0]) else None
    if dump.payload is None and set(AZURE_COLUMNS) <= set(_header(dump)):
        return AZURE_TRACE
    return GENERIC_LOG if generic.recognise(dump) is not None else None


def _request_columns(ordinal: str, start_s: str, input_tokens: str, output_tokens: str) -> str:
    """The SCAN_COLUMNS of a traffic-only form: arrivals and tokens; no latencies, no load levels."""
    return (
        f"SELECT {ordinal} AS ordinal, 'measure' AS phase, 'ok' AS status, {start_s} AS start_s, "
        f"{input_tokens} AS input_tokens, {output_tokens} AS output_tokens, NULL AS ttft_ms, NULL AS e2e_ms, "
        "NULL::VARCHAR AS error, NULL AS offered_rate_per_s, NULL AS concurrency"
    )


def _azure_scan(path: str) -> tuple[RequestScan, str]:
    """The Azure trace read in place, every value as text: its arrivals in s from the first (from 100 ns
    ticks, exact), and the query for the first TIMESTAMP that is not a time. The files are published
    without a final newline; their last line is read (a finished publication, not a log being written)."""
    rows = (
        'SELECT ordinality AS ordinal, "TIMESTAMP" AS arrival, "ContextTokens" AS context, '
        f'"GeneratedTokens" AS generated FROM read_csv({sql_path_literal(path)}, header = true, '
        "all_varchar = true) WITH ORDINALITY"
    )
    ticks = (
        f"CASE WHEN regexp_full_match(arrival, '{AZURE_TIME}') THEN "
        "CAST(epoch(try_strptime(substr(arrival, 1, 19), '%Y-%m-%d %H:%M:%S')) AS BIGINT) * 10000000 "
        "+ CAST(rpad(coalesce(regexp_extract(arrival, '\\.(\\d+)$', 1), ''), 7, '0') AS BIGINT) END"
    )
    ticked = f"SELECT *, {ticks} AS ticks FROM ({rows})"
    # A TIMESTAMP that is not a time stays text, so that the checks name it if the pre-check did not.
    start = "coalesce(CAST((ticks - min(ticks) OVER ()) / 1e7 AS VARCHAR), coalesce(arrival, ''))"
    select = _request_columns("ordinal", start, "context", "generated") + f" FROM ({ticked})"
    bad_time = f"SELECT ordinal + 1, arrival FROM ({ticked}) WHERE ticks IS NULL ORDER BY ordinal LIMIT 1"
    scan = RequestScan(path=path, select=select, start_column="TIMESTAMP", row_word="line", row_offset=1)
    return scan, bad_time


def _trace_lines_scan(path: str) -> tuple[RequestScan, str]:
    """JSON lines read in place line by line (so that rows are named by their line; blank lines skipped),
    and the query for the first line that is not a JSON object with the three keys."""
    lines = (
        f"SELECT ordinality AS ordinal, line FROM read_csv({sql_path_literal(path)}, columns = {{'line': 'VARCHAR'}}, "
        "delim = chr(1), quote = '', escape = '', header = false, auto_detect = false, "
        "max_line_size = 16777216) WITH ORDINALITY"
    )
    doc = "CASE WHEN json_valid(line) THEN line ELSE 'null' END"
    keyed = " AND ".join(f"json_exists(doc, '$.{key}')" for key in TRACE_KEYS)
    objects = (
        f"SELECT ordinal, line, CASE WHEN json_type(doc) = 'OBJECT' AND {keyed} THEN doc END AS doc "
        f"FROM (SELECT ordinal, line, {doc} AS doc FROM ({lines}) WHERE trim(coalesce(line, '')) <> '')"
    )
    values = (
        "SELECT ordinal, json_extract_string(doc, '$.timestamp') AS arrival, "
        "json_extract_string(doc, '$.input_length') AS input_length, "
        f"json_extract_string(doc, '$.output_length') AS output_length FROM ({objects}) WHERE doc IS NOT NULL"
    )
    ms = "TRY_CAST(arrival AS DOUBLE)"
    start = f"coalesce(CAST(({ms} - min({ms}) OVER ()) / 1000.0 AS VARCHAR), coalesce(arrival, ''))"
    select = _request_columns("ordinal", start, "input_length", "output_length") + f" FROM ({values})"
    bad_line = f"SELECT ordinal, left(line, 80) FROM ({objects}) WHERE doc IS NULL ORDER BY ordinal LIMIT 1"
    scan = RequestScan(path=path, select=select, start_column="timestamp", row_word="line", row_offset=0)
    return scan, bad_line


def _first_bad(path: str, query: str, what: str) -> None:
    """FormatProblem naming the first line `query` finds, and `what` that line should be."""
    conn = duckdb.connect()
    try:
        found = conn.execute(query).fetchone()
    except duckdb.Error as exc:
        raise FormatProblem(f"cannot read: {str(exc).splitlines()[0]}") from None
    finally:
        conn.close()
    if found is not None:
        raise FormatProblem(f"line {found[0]} is {found[1]!r}: expected {what}")


def read_traffic_requests(dump: Dump, form: str) -> pl.DataFrame:
    """The arrivals (start_offset_s from the first) and token counts of a traffic log of `form`, every value
    checked as the dumps' per-request values are (`generic.read_requests`); FormatProblem names the row."""
    if form == GENERIC_LOG:
        return generic.read_requests(dump)
    path = dump.path or dump.name
    if form == AZURE_TRACE:
        scan, bad = _azure_scan(path)
        _first_bad(path, bad, "a TIMESTAMP as YYYY-MM-DD HH:MM:SS.fffffff")
    else:
        scan, bad = _trace_lines_scan(path)
        _first_bad(path, bad, f"a JSON object with {', '.join(TRACE_KEYS)}")
    return generic.read_requests(dump, scan)


def _form_of(dump: Dump, path: str) -> str:
    """The traffic log form of `dump`; IngestError naming the file and every form read when it is none."""
    form = traffic_form(dump)
    if form is None:
        raise IngestError(
            f"{path}: not a traffic log in a form benchbill reads; expected one of: "
            + "; ".join(f"{name}: {what}" for name, what in TRAFFIC_FORMS.items())
        )
    return form


def read_traffic_arrivals(path: str) -> pl.DataFrame:
    """A traffic log's requests in arrival order (start_offset_s from the first, input_tokens, output_tokens; token
    counts may be empty), stray timestamps left out as `shape_of` leaves them out; IngestError naming the file and
    its form when it cannot be used. What the engine model replays (assets/calibrate/project.py)."""
    dump = decode(read_dump_file(Path(path)), str(path))
    form = _form_of(dump, path)
    try:
        frame = read_traffic_requests(dump, form).drop_nulls("start_offset_s").sort("start_offset_s")
    except (FormatProblem, pl.exceptions.PolarsError) as problem:
        raise IngestError(
            f"{path}: not a usable traffic log ({problem}); read as the {form}: {TRAFFIC_FORMS[form]}"
        ) from None
    first, last = outliers(frame.get_column("start_offset_s")) if frame.height >= 4 else (0, 0)
    return frame.slice(first, frame.height - first - last)


def read_traffic_log(
    path: str, peak_window_s: float = DEFAULT_PEAK_WINDOW_S, requests_per_day: float | None = None
) -> tuple[dict[str, Any], pl.DataFrame, SourceFile]:
    """The shape of one traffic log over `peak_window_s` windows, scaled to `requests_per_day` (see `shape_of`),
    read by DuckDB where it lies (a large log is hashed as it streams past, never held in memory, as the dumps'
    per-request files are)."""
    fetched = read_dump_file(Path(path))
    dump = decode(fetched, str(path))
    form = _form_of(dump, path)
    try:
        shape, rates = shape_of(read_traffic_requests(dump, form), peak_window_s, requests_per_day)
    except (FormatProblem, pl.exceptions.PolarsError) as problem:
        raise IngestError(
            f"{path}: not a usable traffic log ({problem}); read as the {form}: {TRAFFIC_FORMS[form]}"
        ) from None
    shape["source_sha256"] = fetched.sha256
    return (
        shape,
        rates,
        SourceFile(
            fetched.name,
            fetched.sha256,
            size_of(fetched),
            f"traffic log ({form})",
            "read",
            rows=shape["requests"],
            note=f"{shape['outliers_left_out']} request(s) left out: timestamps far outside the rest of the log"
            if shape["outliers_left_out"]
            else "",
        ),
    )


TRAFFIC_TABLES = ("requirement.traffic_shape", "requirement.traffic_rate")


def write_traffic(
    conn: duckdb.DuckDBPyConnection, log: Callable[[str], None], tables: Collection[str] = TRAFFIC_TABLES
) -> dict[str, WriteReport]:
    """requirement.traffic_shape and requirement.traffic_rate (or only those of `tables`) from the traffic log of
    every profile that names one (requirement.profiles), each table's report by its name; IngestError naming the
    profile when its log does not exist."""
    logs = query_frame(
        conn,
        "SELECT profile, traffic_log, peak_window_s, requests_per_day, source FROM requirement.profiles "
        "WHERE traffic_log IS NOT NULL ORDER BY profile",
    )
    shapes, rate_frames, files = [], [], []
    for profile, path, peak_window_s, requests_per_day, source in logs.iter_rows():
        if not Path(path).exists():
            raise IngestError(f"{source}: profile {profile!r}: workload.traffic_log {path} does not exist")
        try:
            shape, rates, file = read_traffic_log(path, peak_window_s, requests_per_day)
        except IngestError as problem:
            raise IngestError(f"{source}: profile {profile!r}: {problem}") from None
        left_out = shape.pop("outliers_left_out")
        if left_out:
            log(
                f"traffic of {profile}: {left_out} request(s) left out of {path}: timestamps far outside the rest of "
                f"the log (cut off from it by more than a day and {OUTLIER_GAP_FACTOR}x its span)"
            )
        shapes.append({"profile": profile, "traffic_log": path, **shape, "evidence": "requirement"})
        rate_frames.append(rates.with_columns(pl.lit(profile).alias("profile")))
        files.append(file)
        log(f"traffic of {profile}: {shape['requests']} requests, CV {shape['interarrival_cv']:.2f}")
    reports = {}
    if "requirement.traffic_shape" in tables:
        reports["requirement.traffic_shape"] = write_table(
            conn, "requirement.traffic_shape", frame_from_rows(shapes, TrafficShape), TrafficShape, [], files
        )
    if "requirement.traffic_rate" in tables:
        rates = (
            pl.concat(rate_frames).select("profile", "window_start_s", "requests", "rate_per_s", "scaled_rate_per_s")
            if rate_frames
            else frame_from_rows([], TrafficRate)
        )
        reports["requirement.traffic_rate"] = write_table(conn, "requirement.traffic_rate", rates, TrafficRate)
    return reports
