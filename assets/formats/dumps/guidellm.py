"""GuideLLM (vllm-project/guidellm) reports: `benchmarks.json` and its CSV (recognised here, read in guidellm_csv.py).

JSON generations (`GENERATIONS`): 0.2/0.3 write no `metadata` block (`benchmarks[]` only, each with `args.strategy`,
a top-level `request_totals`, per-request `start_time`, `prompt`, `error`); 0.4 to 0.6 write `metadata.version` 1
with `args` and per-benchmark `config.strategy`, `metrics.request_totals`, per-request `request_start_time`,
`request_args`, `info.error`; 0.7+ write `metadata.version` 2 (`config` scenario instead of `args`), the benchmarks
shaped as in version 1. Each place is looked up in that order (`_first_section`), the newest first.

One entry of `benchmarks[]` per load level; `strategy.type_` says the arrival pattern
(synchronous = one request at a time, concurrent = `streams`, throughput = as many as
`max_concurrency`, constant/async/poisson = `rate`, trace = a replayed trace: no rate stated);
`metrics.<name>.successful` are distributions with `percentiles` {p001 ... p999};
`requests.successful/errored/incomplete` hold per-request stats (`request_start_time` Unix s,
`request_latency` s, `time_to_first_token_ms`, `prompt_tokens`, `output_tokens`). GuideLLM keeps
only the measured window in those lists (warm-up and cool-down are cut by the tool) and may keep
only a sample (`sample_size`): a sample is not used for percentiles. The CSV is read by `guidellm_csv.py`.

GuideLLM's `time_per_output_token_ms` is (last token - start) / output tokens: it INCLUDES the
TTFT and is not our TPOT; its `inter_token_latency_ms` = (E2E - TTFT) / (output tokens - 1) is our
TPOT. It has no pooled-gap ITL.
"""

from __future__ import annotations

from typing import Any

from assets.formats.dumps.exchange import Dump, FormatProblem, Measurement, Parsed
from assets.formats.dumps.guidellm_csv import csv_measurements
from assets.formats.dumps.tabular import csv_beside_its_json
from assets.formats.dumps.values import count, empty_point, number, requests_frame, section, stats_metrics

TOOL = "guidellm"
REPORT_JSON = "guidellm benchmarks.json"
REPORT_CSV = "guidellm benchmarks.csv"
REPORT_CSV_BESIDE_JSON = "guidellm benchmarks.csv beside its benchmarks.json"
FORMATS = (REPORT_JSON, REPORT_CSV, REPORT_CSV_BESIDE_JSON)
SKIPPED = {
    REPORT_CSV_BESIDE_JSON: "the same benchmarks as the JSON report of the same name beside it (which is read; it "
    "also has the per-request records)"
}
READ_IN_PLACE = frozenset[str]()
# Report generations: `metadata.version` -> the GuideLLM versions that write it (None: no metadata block).
GENERATIONS = {None: "0.2-0.3", 1: "0.4-0.6", 2: "0.7+"}
NO_METADATA_NOTE = "GuideLLM report without a metadata block (the 0.2/0.3 shape): the file does not state its version"

DEFINITIONS = (
    "GuideLLM: TTFT = time_to_first_token_ms (ours); inter_token_latency_ms = (E2E - TTFT) / (output tokens - 1) "
    "= our TPOT; time_per_output_token_ms = (last token - start) / output tokens, includes TTFT (NOT our TPOT); "
    "no pooled-gap ITL; E2E = request_latency (s -> ms); percentiles by the tool over successful requests in the "
    "measured window; token throughputs = successful requests' tokens / measured duration (the tool's "
    "*_tokens_per_second means are of per-request or per-iteration rates: tool metrics only)"
)

_OURS_JSON = {
    "ttft": ("time_to_first_token_ms", 1.0),
    "tpot": ("inter_token_latency_ms", 1.0),
    "e2e": ("request_latency", 1000.0),
}


def recognise(dump: Dump) -> str | None:
    payload = dump.payload
    if isinstance(payload, dict) and isinstance(payload.get("benchmarks"), list):
        metadata = payload.get("metadata")
        if isinstance(metadata, dict) and "guidellm_version" in metadata:
            return REPORT_JSON
        benchmarks = payload["benchmarks"]
        if (
            metadata is None
            and benchmarks
            and all(isinstance(b, dict) and b.get("type_") == "generative_benchmark" for b in benchmarks)
        ):
            return REPORT_JSON
    first = dump.text_head.split("\n", 1)[0]
    if (
        not dump.payload
        and first.startswith("Run Info,")
        and "Time to First Token" in dump.text_head[:20000]
        or (first.startswith("Run Info,") and "Benchmark" in first)
    ):
        return REPORT_CSV_BESIDE_JSON if csv_beside_its_json(dump) else REPORT_CSV
    return None


def _first_section(bench: dict, paths: tuple[tuple[str, ...], ...]) -> dict:
    """The first of `paths` (keys from the benchmark down) that leads to an object, or {}."""
    for path in paths:
        value: Any = bench
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, dict):
            return value
    return {}


# Where each generation keeps a benchmark's strategy and request counts (newest first).
_STRATEGY_PATHS = (("config", "strategy"), ("scheduler", "strategy"), ("args", "strategy"))
_TOTALS_PATHS = (("metrics", "request_totals"), ("request_totals",), ("run_stats", "requests_made"))


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
    if kind == "trace":  # a replayed trace: arrivals at its timestamps, no single rate stated
        return "rate", None, None
    raise FormatProblem(
        f"{where}.type_ {kind!r} is not a load level benchbill knows "
        "(synchronous, concurrent, throughput, constant, async, poisson, trace)"
    )


def parse(dump: Dump, kind: str) -> Parsed:
    parsed = Parsed(kind=kind, tool=TOOL, definitions=DEFINITIONS)
    if kind == REPORT_JSON:
        metadata = dump.payload.get("metadata") or {}
        version = metadata.get("version")
        if version not in GENERATIONS:
            parsed.problems.append(
                (
                    "metadata.version",
                    f"report version {version!r}; this parser reads versions 1 and 2 and reports "
                    "without a metadata block (GuideLLM 0.2-0.8)",
                )
            )
            return parsed
        if not metadata:
            parsed.note = NO_METADATA_NOTE
        parsed.tool_version = None if metadata.get("guidellm_version") is None else str(metadata["guidellm_version"])
        report_args = section(dump.payload, "args")
        scenario = _first_section(dump.payload, (("config", "spec"),))
        for i, bench in enumerate(dump.payload["benchmarks"]):
            try:
                measurement = json_benchmark(bench, f"benchmarks[{i}]")
                measurement.workload = json_workload(bench, report_args, scenario)
                measurement.server_settings = json_server(bench, report_args, scenario)
                parsed.measurements.append(measurement)
            except (FormatProblem, AttributeError, TypeError) as problem:
                parsed.problems.append((f"benchmarks[{i}]", str(problem)))
    else:
        csv_measurements(dump, parsed)
    return parsed


def _stated(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v not in (None, "", [], {})}


def json_workload(bench: dict, report_args: dict, scenario: dict) -> dict[str, Any]:
    """What was sent, as the report states it: the data spec, the model asked for, the request and time limits."""
    config = section(bench, "config")
    old_args = section(bench, "args")  # 0.2/0.3
    loader = section(bench, "request_loader")  # 0.2/0.3
    backend = _first_section(bench, (("config", "backend"), ("worker",)))
    return _stated(
        {
            "data": scenario.get("data") or report_args.get("data") or loader.get("data"),
            "model": backend.get("model") or backend.get("backend_model") or report_args.get("model"),
            "max_requests": report_args.get("max_requests") or old_args.get("max_number"),
            "max_seconds": report_args.get("max_seconds") or old_args.get("max_duration"),
            "constraints": scenario.get("constraints") or config.get("constraints"),
        }
    )


def json_server(bench: dict, report_args: dict, scenario: dict) -> dict[str, Any]:
    """The server the report names: its target URL (a different server is a different config)."""
    backend = _first_section(bench, (("config", "backend"), ("worker",)))
    spec_backend = section(scenario, "backend")
    kwargs = section(report_args, "backend_kwargs")
    return _stated(
        {
            "target": backend.get("target")
            or backend.get("backend_target")
            or spec_backend.get("target")
            or kwargs.get("target")
            or report_args.get("target")
        }
    )


def _dist(metrics: dict, name: str) -> dict:
    value = (metrics.get(name) or {}).get("successful") or {}
    if not isinstance(value, dict):
        raise FormatProblem(f"metrics.{name}.successful is not an object")
    return value


def json_benchmark(bench: dict, where: str) -> Measurement:
    strategy = _first_section(bench, _STRATEGY_PATHS)
    if not strategy:
        raise FormatProblem(f"{where} has no strategy (looked in config.strategy, scheduler.strategy, args.strategy)")
    load_kind, rate, concurrency = strategy_level(strategy, f"{where} strategy")
    metrics = bench.get("metrics") or {}
    totals = _first_section(bench, _TOTALS_PATHS)
    if not totals:
        raise FormatProblem(f"{where} has no request counts (looked in metrics.request_totals, request_totals)")
    ok = count(totals.get("successful"), f"{where} request_totals.successful")
    failed = count(totals.get("errored"), f"{where} request_totals.errored")
    incomplete = count(totals.get("incomplete"), f"{where} request_totals.incomplete")
    duration = number(bench.get("duration"), f"{where}.duration")
    # Token throughputs are the successful requests' tokens over the measured duration: GuideLLM's own
    # `*_tokens_per_second` means are of per-request or per-iteration rates (what they average changed across
    # versions; 0.6 on one request gives its decode speed), kept as tool metrics only.
    tokens_in = number(_dist(metrics, "prompt_token_count").get("total_sum"), "prompt_token_count.total_sum")
    tokens_out = number(_dist(metrics, "output_token_count").get("total_sum"), "output_token_count.total_sum")
    input_rate = None if tokens_in is None or not duration else tokens_in / duration
    output_rate = None if tokens_out is None or not duration else tokens_out / duration
    row = empty_point()
    row.update(
        achieved_requests_per_s=number(_dist(metrics, "requests_per_second").get("mean"), "requests_per_second.mean"),
        requests_ok=ok,
        requests_failed=failed + incomplete,
        requests_sent=ok + failed + incomplete,
        duration_s=duration,
        input_tokens_per_s=input_rate,
        output_tokens_per_s=output_rate,
        total_tokens_per_s=None if input_rate is None or output_rate is None else input_rate + output_rate,
        input_tokens_mean=number(_dist(metrics, "prompt_token_count").get("mean"), "prompt_token_count"),
        output_tokens_mean=number(_dist(metrics, "output_token_count").get("mean"), "output_token_count"),
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
    for name in ("requests_per_second", "prompt_tokens_per_second", "output_tokens_per_second", "tokens_per_second"):
        mean = number(_dist(metrics, name).get("mean"), f"{where}.metrics.{name}.successful.mean")
        if mean is not None:
            tool_metrics.append((name, "mean", mean, "requests/s" if name == "requests_per_second" else "tokens/s"))
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
            start_key = "request_start_time" if "request_start_time" in item else "start_time"  # 0.2/0.3: start_time
            cols["start"].append(number(item.get(start_key), f"{where}.{start_key}", allow_string=True))
            cols["input_tokens"].append(item.get("prompt_tokens"))
            cols["output_tokens"].append(item.get("output_tokens"))
            latency = number(item.get("request_latency"), f"{where}.request_latency", allow_string=True)
            ttft = number(item.get("time_to_first_token_ms"), f"{where}.time_to_first_token_ms", allow_string=True)
            cols["ttft_ms"].append(ttft if status == "ok" else None)
            cols["e2e_ms"].append(latency * 1000.0 if status == "ok" and latency is not None else None)
            info = item.get("info")
            info = info if isinstance(info, dict) else {}
            error = info.get("error") or item.get("error")  # 0.2/0.3: error on the request
            cols["error"].append(None if status == "ok" else str(error or status))
            cols["prompt_text"].append(item.get("request_args", item.get("prompt")))
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
