"""GuideLLM's `benchmarks.csv` (read where no `benchmarks.json` of the same name is beside it; the JSON reader is
`guidellm.py`): a three-row header (group / status+unit / statistic), one row per benchmark, and each metric's
percentiles as one cell holding a list [min, p001, p01, p05, p10, p25, p75, p90, p95, p99, max] (the median has its
own column)."""

from __future__ import annotations

import csv
import io
import json

from assets.formats.dumps.exchange import Dump, FormatProblem, Measurement, Parsed
from assets.formats.dumps.tabular import csv_text
from assets.formats.dumps.values import count, empty_point, number
from assets.inputs.textinput import CUT_LINE_REASON, cut_last_line

_CSV_GROUPS = {
    "ttft": ("Time to First Token", 1.0),
    "tpot": ("Inter Token Latency", 1.0),
    "e2e": ("Request Latency", 1000.0),
}
_CSV_LIST = {"p90": 7, "p95": 8, "p99": 9}  # positions in [min, p001, p01, p05, p10, p25, p75, p90, p95, p99, max]


def _strategy_from_text(text: str, where: str) -> tuple[str, float | None, float | None]:
    """`constant@4.00`, `poisson@2.50`, `concurrent@8`, `synchronous`, `throughput`, `trace@1.00` (CSV Strategy
    column)."""
    name, _, value = text.strip().partition("@")
    if name == "synchronous":
        return "concurrency", None, 1.0
    if name in ("concurrent", "throughput"):
        return "concurrency", None, number(value or None, f"{where} Strategy", allow_string=True)
    if name in ("constant", "async", "poisson"):
        return "rate", number(value, f"{where} Strategy", allow_string=True), None
    if name == "trace":  # `trace@<time scale>`: a replayed trace, no rate stated
        return "rate", None, None
    raise FormatProblem(f"{where}: strategy {text!r} is not a load level benchbill knows")


def csv_measurements(dump: Dump, parsed: Parsed) -> None:
    """Each benchmark row of the CSV as a load point into `parsed`; a row that cannot be read is a problem naming it."""
    try:
        text, cut = cut_last_line(csv_text(dump))
    except FormatProblem as problem:
        parsed.problems.append(("file", str(problem)))
        return
    rows = list(csv.reader(io.StringIO(text)))
    if cut is not None:
        parsed.problems.append((f"row {len(rows) + 1}", CUT_LINE_REASON))
    if len(rows) < 4:
        parsed.problems.append(("header", "expected three header rows and at least one benchmark row"))
        return
    header = list(zip(rows[0], rows[1], rows[2]))
    index = {cols: i for i, cols in enumerate(header)}

    def cell(row: list[str], group: str, sub: str, stat: str = "") -> str | None:
        i = index.get((group, sub, stat))
        return None if i is None or i >= len(row) or row[i] == "" else row[i]

    try:
        parsed.tool_version = csv_tool_version(rows[3], index.get(("Runtime Info", "Metadata", "")))
    except FormatProblem as problem:
        parsed.problems.append(("row 4", str(problem)))
    for n, row in enumerate(rows[3:]):
        where = f"row {n + 4}"
        try:
            load_kind, rate, concurrency = _strategy_from_text(cell(row, "Benchmark", "Strategy") or "", where)
            ok = count(cell(row, "Request Counts", "Successful"), f"{where} Successful", allow_string=True)
            failed = count(cell(row, "Request Counts", "Errored"), f"{where} Errored", allow_string=True)
            incomplete = count(cell(row, "Request Counts", "Incomplete"), f"{where} Incomplete", allow_string=True)
            values = empty_point()

            def mean(group: str, sub: str, row: list[str] = row, where: str = where) -> float | None:
                return number(cell(row, group, sub, "Mean"), f"{where} {group} {sub} Mean", allow_string=True)

            duration = number(cell(row, "Timings", "Duration", "Sec"), f"{where} Duration", allow_string=True)
            mean_in = mean("Token Metrics", "Successful Input Tokens")
            mean_out = mean("Token Metrics", "Successful Output Tokens")

            def per_s(mean_tokens: float | None, ok: int = ok, duration: float | None = duration) -> float | None:
                """Tokens over the measured duration, as for the JSON (the CSV's Token Throughput is the tool's mean
                of per-request or per-iteration rates)."""
                return None if mean_tokens is None or not duration else mean_tokens * ok / duration

            values.update(
                achieved_requests_per_s=mean("Server Throughput", "Successful Requests/Sec"),
                requests_ok=ok,
                requests_failed=failed + incomplete,
                requests_sent=ok + failed + incomplete,
                duration_s=duration,
                input_tokens_per_s=per_s(mean_in),
                output_tokens_per_s=per_s(mean_out),
                total_tokens_per_s=None if mean_in is None or mean_out is None else per_s(mean_in + mean_out),
                input_tokens_mean=mean_in,
                output_tokens_mean=mean_out,
            )
            tool_metrics = []
            for measure, (group, scale) in _CSV_GROUPS.items():
                unit = "Successful Sec" if group == "Request Latency" else "Successful ms"
                median = number(cell(row, group, unit, "Median"), f"{where} {group} Median", allow_string=True)
                values[f"{measure}_p50_ms"] = None if median is None else median * scale
                listed = cell(row, group, unit, "Percentiles")
                percentiles = json.loads(listed) if listed else []
                if listed and not isinstance(percentiles, list):
                    raise FormatProblem(f"{where} {group} Percentiles holds {listed[:40]!r}, expected a list")
                if listed and len(percentiles) != 11:
                    raise FormatProblem(
                        f"{where} {group} Percentiles holds {len(percentiles)} values, expected 11 "
                        "[min, p001, p01, p05, p10, p25, p75, p90, p95, p99, max]"
                    )
                for pct, position in _CSV_LIST.items():
                    value = number(percentiles[position], f"{where} {group} {pct}") if percentiles else None
                    values[f"{measure}_{pct}_ms"] = None if value is None else value * scale
                    if value is not None:
                        tool_metrics.append((group, pct, value * scale, "ms"))
            parsed.measurements.append(
                Measurement(
                    location=where,
                    load_kind=load_kind,
                    offered_rate_per_s=rate,
                    concurrency=concurrency,
                    values=values,
                    tool_metrics=tool_metrics,
                )
            )
        except (FormatProblem, ValueError, RecursionError) as problem:
            parsed.problems.append((where, str(problem) or type(problem).__name__))


def csv_tool_version(row: list[str], column: int | None) -> str | None:
    """`guidellm_version` from the `Runtime Info / Metadata` cell (JSON; 0.5+), None when the CSV has no such cell."""
    if column is None or column >= len(row) or not row[column]:
        return None
    try:
        metadata = json.loads(row[column])
    except ValueError:
        raise FormatProblem(f"Runtime Info Metadata is not JSON: {row[column][:40]!r}") from None
    version = metadata.get("guidellm_version") if isinstance(metadata, dict) else None
    return None if version is None else str(version)
