"""GuideLLM (vllm-project/guidellm) reports: `benchmarks.json` (report `metadata.version` 2) and its CSV.

JSON: one entry of `benchmarks[]` per load level; `config.strategy.type_` says the arrival pattern
(synchronous = one request at a time, concurrent = `streams`, throughput = as many as
`max_concurrency`, constant/async/poisson = `rate`); `metrics.<name>.successful` are distributions
with `percentiles` {p001 ... p999}; `requests.successful/errored/incomplete` hold per-request
stats (`request_start_time` Unix s, `request_latency` s, `time_to_first_token_ms`,
`prompt_tokens`, `output_tokens`). GuideLLM keeps only the measured window in those lists
(warm-up and cool-down are cut by the tool) and may keep only a sample (`sample_size`): a sample
is not used for percentiles. CSV: a three-row header (group / status+unit / statistic), one row per
benchmark, and each metric's percentiles as one cell holding a list
[min, p001, p01, p05, p10, p25, p75, p90, p95, p99, max] (the median has its own column).

GuideLLM's `time_per_output_token_ms` is (last token - start) / output tokens: it INCLUDES the
TTFT and is not our TPOT; its `inter_token_latency_ms` = (E2E - TTFT) / (output tokens - 1) is our
TPOT. It has no pooled-gap ITL.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from assets.formats.dumps.model import Dump, FormatProblem, Measurement, Parsed
from assets.formats.dumps.values import count, empty_point, number, requests_frame, stats_metrics
from assets.inputs.textinput import CUT_LINE_REASON, cut_last_line, encoding_problem

TOOL = "guidellm"
REPORT_JSON = "guidellm benchmarks.json (report v2)"
REPORT_CSV = "guidellm benchmarks.csv"
FORMATS = (REPORT_JSON, REPORT_CSV)
SKIPPED: dict[str, str] = {}  # every format it recognises is read
READ_IN_PLACE = frozenset[str]()

DEFINITIONS = (
    "GuideLLM: TTFT = time_to_first_token_ms (ours); inter_token_latency_ms = (E2E - TTFT) / (output tokens - 1) "
    "= our TPOT; time_per_output_token_ms = (last token - start) / output tokens, includes TTFT (NOT our TPOT); "
    "no pooled-gap ITL; E2E = request_latency (s -> ms); percentiles by the tool over successful requests in the "
    "measured window"
)

_OURS_JSON = {
    "ttft": ("time_to_first_token_ms", 1.0),
    "tpot": ("inter_token_latency_ms", 1.0),
    "e2e": ("request_latency", 1000.0),
}
_CSV_GROUPS = {
    "ttft": ("Time to First Token", 1.0),
    "tpot": ("Inter Token Latency", 1.0),
    "e2e": ("Request Latency", 1000.0),
}
_CSV_LIST = {"p90": 7, "p95": 8, "p99": 9}  # positions in [min, p001, p01, p05, p10, p25, p75, p90, p95, p99, max]


def recognise(dump: Dump) -> str | None:
    payload = dump.payload
    if (
        isinstance(payload, dict)
        and isinstance(payload.get("benchmarks"), list)
        and isinstance(payload.get("metadata"), dict)
        and "guidellm_version" in payload["metadata"]
    ):
        return REPORT_JSON
    first = dump.text_head.split("\n", 1)[0]
    if (
        not dump.payload
        and first.startswith("Run Info,")
        and "Time to First Token" in dump.text_head[:20000]
        or (first.startswith("Run Info,") and "Benchmark" in first)
    ):
        return REPORT_CSV
    return None


def strategy_level(strategy: dict, where: str) -> tuple[str, float | None, float | None]:
    kind = str(strategy.get("type_") or strategy.get("type") or "")
    if kind == "synchronous":
        return "concurrency", None, 1.0
    if kind == "concurrent":
        return "concurrency", None, number(strategy.get("streams"), f"{where}.streams")
    if kind == "throughput":
        return "concurrency", None, number(strategy.get("max_concurrency"), f"{where}.max_concurrency")
    if kind in ("constant", "async", "poisson"):
        return "rate", number(strategy.get("rate"), f"{where}.rate"), None
    raise FormatProblem(
        f"{where}.type_ {kind!r} is not a load level benchbill knows "
        "(synchronous, concurrent, throughput, constant, async, poisson)"
    )


def parse(dump: Dump, kind: str) -> Parsed:
    parsed = Parsed(kind=kind, tool=TOOL, definitions=DEFINITIONS)
    if kind == REPORT_JSON:
        version = dump.payload["metadata"].get("version")
        if version != 2:
            parsed.problems.append(("metadata.version", f"report version {version!r}; this parser reads version 2"))
            return parsed
        for i, bench in enumerate(dump.payload["benchmarks"]):
            try:
                parsed.measurements.append(json_benchmark(bench, f"benchmarks[{i}]"))
            except (FormatProblem, AttributeError, TypeError) as problem:
                parsed.problems.append((f"benchmarks[{i}]", str(problem)))
    else:
        csv_measurements(dump, parsed)
    return parsed


def _dist(metrics: dict, name: str) -> dict:
    value = (metrics.get(name) or {}).get("successful") or {}
    if not isinstance(value, dict):
        raise FormatProblem(f"metrics.{name}.successful is not an object")
    return value


def json_benchmark(bench: dict, where: str) -> Measurement:
    config = bench.get("config") or {}
    load_kind, rate, concurrency = strategy_level(config.get("strategy") or {}, f"{where}.config.strategy")
    metrics = bench.get("metrics") or {}
    totals = metrics.get("request_totals") or {}
    ok = count(totals.get("successful"), f"{where}.metrics.request_totals.successful")
    failed = count(totals.get("errored"), f"{where}.metrics.request_totals.errored")
    incomplete = count(totals.get("incomplete"), f"{where}.metrics.request_totals.incomplete")
    row = empty_point()
    row.update(
        achieved_requests_per_s=number(_dist(metrics, "requests_per_second").get("mean"), "requests_per_second.mean"),
        requests_ok=ok,
        requests_failed=failed + incomplete,
        requests_sent=ok + failed + incomplete,
        duration_s=number(bench.get("duration"), f"{where}.duration"),
        input_tokens_per_s=number(_dist(metrics, "prompt_tokens_per_second").get("mean"), "prompt_tokens_per_second"),
        output_tokens_per_s=number(_dist(metrics, "output_tokens_per_second").get("mean"), "output_tokens_per_second"),
        total_tokens_per_s=number(_dist(metrics, "tokens_per_second").get("mean"), "tokens_per_second"),
        mean_input_tokens=number(_dist(metrics, "prompt_token_count").get("mean"), "prompt_token_count"),
        mean_output_tokens=number(_dist(metrics, "output_token_count").get("mean"), "output_token_count"),
    )
    for measure, (name, scale) in _OURS_JSON.items():
        percentiles = _dist(metrics, name).get("percentiles") or {}
        for pct in ("p50", "p90", "p95", "p99"):
            value = number(percentiles.get(pct), f"{where}.metrics.{name}.percentiles.{pct}")
            row[f"{measure}_{pct}_ms"] = None if value is None else value * scale
    tool_metrics = []
    for name in ("time_to_first_token_ms", "time_per_output_token_ms", "inter_token_latency_ms", "request_latency"):
        dist = _dist(metrics, name)
        scale, unit = (1000.0, "ms") if name == "request_latency" else (1.0, "ms")
        tool_metrics += stats_metrics(name, {k: v for k, v in dist.items() if k != "percentiles"}, unit, scale)
        tool_metrics += stats_metrics(name, dist.get("percentiles") or {}, unit, scale)
    return Measurement(
        location=where,
        load_kind=load_kind,
        offered_rate_per_s=rate,
        concurrency=concurrency,
        values=row,
        tool_metrics=tool_metrics,
        requests=json_requests(bench, ok, failed, incomplete),
    )


def json_requests(bench: dict, ok: int, failed: int, incomplete: int):
    """Per-request records, only when the lists hold every request (not a sample)."""
    lists = bench.get("requests") or {}
    groups = [
        ("ok", lists.get("successful") or []),
        ("error", lists.get("errored") or []),
        ("incomplete", lists.get("incomplete") or []),
    ]
    if not groups[0][1] or (len(groups[0][1]), len(groups[1][1]), len(groups[2][1])) != (ok, failed, incomplete):
        return None
    cols: dict[str, list[Any]] = {
        k: []
        for k in (
            "status",
            "start",
            "input_tokens",
            "output_tokens",
            "ttft_ms",
            "e2e_ms",
            "error",
            "prompt_text",
            "response_text",
        )
    }
    for status, items in groups:
        for item in items:
            where = f"requests.{'successful' if status == 'ok' else status}[{len(cols['status'])}]"
            if not isinstance(item, dict):
                raise FormatProblem(f"{where} is a {type(item).__name__}, expected an object")
            cols["status"].append(status)
            cols["start"].append(
                number(item.get("request_start_time"), f"{where}.request_start_time", allow_string=True)
            )
            cols["input_tokens"].append(item.get("prompt_tokens"))
            cols["output_tokens"].append(item.get("output_tokens"))
            latency = number(item.get("request_latency"), f"{where}.request_latency", allow_string=True)
            ttft = number(item.get("time_to_first_token_ms"), f"{where}.time_to_first_token_ms", allow_string=True)
            cols["ttft_ms"].append(ttft if status == "ok" else None)
            cols["e2e_ms"].append(latency * 1000.0 if status == "ok" and latency is not None else None)
            info = item.get("info")
            info = info if isinstance(info, dict) else {}
            cols["error"].append(None if status == "ok" else str(info.get("error") or status))
            cols["prompt_text"].append(item.get("request_args"))
            cols["response_text"].append(item.get("output"))
    starts = [s for s in cols["start"] if s is not None]
    first = min(starts) if starts else None
    return requests_frame(
        {
            "request_index": list(range(len(cols["status"]))),
            "phase": "measure",
            "status": cols["status"],
            "start_time_unix_s": cols["start"],
            "start_offset_s": [None if s is None else s - first for s in cols["start"]],
            "input_tokens": cols["input_tokens"],
            "output_tokens": cols["output_tokens"],
            "ttft_ms": cols["ttft_ms"],
            "e2e_ms": cols["e2e_ms"],
            "error": cols["error"],
            "prompt_text": cols["prompt_text"],
            "response_text": cols["response_text"],
        }
    )


def _strategy_from_text(text: str, where: str) -> tuple[str, float | None, float | None]:
    """`constant@4.00`, `poisson@2.50`, `concurrent@8`, `synchronous`, `throughput` (CSV Strategy column)."""
    name, _, value = text.strip().partition("@")
    if name == "synchronous":
        return "concurrency", None, 1.0
    if name in ("concurrent", "throughput"):
        return "concurrency", None, number(value or None, f"{where} Strategy", allow_string=True)
    if name in ("constant", "async", "poisson"):
        return "rate", number(value, f"{where} Strategy", allow_string=True), None
    raise FormatProblem(f"{where}: strategy {text!r} is not a load level benchbill knows")


def csv_measurements(dump: Dump, parsed: Parsed) -> None:
    problem = encoding_problem(dump.data)
    if problem:
        parsed.problems.append(("file", problem))
        return
    text, cut = cut_last_line(dump.data.decode("utf-8-sig"))
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

            values.update(
                achieved_requests_per_s=mean("Server Throughput", "Successful Requests/Sec"),
                requests_ok=ok,
                requests_failed=failed + incomplete,
                requests_sent=ok + failed + incomplete,
                duration_s=number(cell(row, "Timings", "Duration", "Sec"), f"{where} Duration", allow_string=True),
                input_tokens_per_s=mean("Token Throughput", "Successful Input Tokens/Sec"),
                output_tokens_per_s=mean("Token Throughput", "Successful Output Tokens/Sec"),
                total_tokens_per_s=mean("Token Throughput", "Successful Total Tokens/Sec"),
                mean_input_tokens=mean("Token Metrics", "Successful Input Tokens"),
                mean_output_tokens=mean("Token Metrics", "Successful Output Tokens"),
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
