"""llm-d-benchmark "benchmark reports" (schema `version` '0.1' and '0.2'): the normalised form into which
llm-d-benchmark converts a vLLM, GuideLLM or inference-perf run, one report per load stage
(`benchmark_report,_stage_N_lifecycle_metrics.json.yaml` and `benchmark_report_v0.2,_stage_N_...`: a comma in
the name, YAML inside; JSON is read alike).

Layout (llm-d/llm-d-benchmark `workload/report/benchmark_report_v0_1.py`, `br_v0_2_1_json_schema.json`):
v0.1 keeps `metrics.{time,requests,latency,throughput}` and `scenario.load.{name,args,metadata.stage}` (`args` is
the load generator's own configuration: for inference-perf its `load.stages`, the only place v0.1 states a stage's
rate); v0.2 keeps `results.request_performance.aggregate.{requests,latency,throughput}` and
`scenario.load.standardized.{tool,stage,rate_qps,concurrency}`, and no duration. Every statistic carries its
`units` (`s`, `ms`, `s/token`, `ms/token`, `queries/s`, `tokens/s`): read by the UNITS table, never assumed.

What the converter puts where (`workload/report/convert.py`, `import_inference_perf`): `requests.total` is every
request sent, failures included (`failures`, and `incomplete` where stated, are not ok); the latency and length
statistics cover successful requests; `requests_per_sec` (v0.2 `request_rate.mean`) is inference-perf's
`successes.throughput.requests_per_sec`, successful requests completed per second from the first send to the last
completion: the achieved rate. `time.duration` is inference-perf's `send_duration`, the window in which requests
were SENT, so total / duration is the sent rate (`sent_requests_per_s`), never the achieved rate. For a report
converted from another tool the duration is that tool's own, and no sent rate is derived. v0.1 and v0.2 of one
stage in one folder are one load point (merged by stage, as inference-perf's own stage files are).
"""

from __future__ import annotations

import re
from pathlib import PurePath
from typing import Any

from assets.core.errors import IngestError
from assets.formats.dumps.bench_serving import load_level
from assets.formats.dumps.exchange import Dump, FormatProblem, Measurement, Parsed
from assets.formats.dumps.values import count, empty_point, number, section, stats_metrics
from assets.inputs.textinput import parse_yaml

TOOL = "llm-d-benchmark"
REPORT_V01 = "llm-d benchmark report v0.1"
REPORT_V02 = "llm-d benchmark report v0.2"
FORMATS = (REPORT_V01, REPORT_V02)
SKIPPED: dict[str, str] = {}
READ_IN_PLACE = frozenset[str]()

DEFINITIONS = (
    "llm-d benchmark report: TTFT = time_to_first_token; TPOT = time_per_output_token, (E2E - TTFT) / (output "
    "tokens - 1) per request (ours); ITL = inter_token_latency (ours); E2E = request_latency; NTPOT = "
    "normalized_time_per_output_token (not ours); statistics over successful requests as the converted tool "
    "computed them, in the units each states (converted to ms); achieved rate = requests_per_sec (successful "
    "requests completed per second)"
)

# Unit as a report states it -> factor to our unit (ms for latencies, per second for rates).
UNITS: dict[str, float] = {"s": 1000.0, "ms": 1.0, "s/token": 1000.0, "ms/token": 1.0}
RATE_UNITS: dict[str, float] = {"queries/s": 1.0, "tokens/s": 1.0}
# Our measure -> the report's statistic of it (the definitions above say which are ours).
OURS = {
    "ttft": "time_to_first_token",
    "tpot": "time_per_output_token",
    "itl": "inter_token_latency",
    "e2e": "request_latency",
}
PERCENTILES = ("p50", "p90", "p95", "p99")
# A report's top-level keys, each at the start of a line of its YAML (keys are written sorted).
_TOP_KEY = re.compile(r"^(metrics|results|run|scenario|version):", re.M)
_REPORT_WORDS = ("time_to_first_token", "request_performance", "requests_per_sec")
# Output lengths past this many times the target are said (re-tokenised output inflates the count).
OUTPUT_PAST_TARGET = 1.5


def _document(dump: Dump) -> Any:
    """The report as a value: the decoded JSON, or the YAML (None when the file is neither)."""
    if dump.payload is not None or dump.partial:
        return dump.payload
    if not _TOP_KEY.match(dump.text_head):
        return None
    try:
        return parse_yaml(dump.data, dump.name)
    except IngestError:
        return None


def _looks_like_report(dump: Dump) -> bool:
    """The head of a YAML report (a top-level report key first, a report statistic named): a damaged file of the
    format is recognised, then quarantined with its reason."""
    head = dump.text_head
    return dump.payload is None and bool(_TOP_KEY.match(head)) and any(w in head for w in _REPORT_WORDS)


def recognise(dump: Dump) -> str | None:
    if dump.json_lines:
        return None
    document = _document(dump)
    if isinstance(document, dict):
        version = str(document.get("version", ""))
        if version == "0.1" and isinstance(document.get("metrics"), dict):
            return REPORT_V01
        if version.startswith("0.2") and isinstance(document.get("results"), dict):
            return REPORT_V02
        return None
    return REPORT_V01 if document is None and _looks_like_report(dump) else None


def parse(dump: Dump, kind: str) -> Parsed:
    parsed = Parsed(kind=kind, tool=TOOL, definitions=DEFINITIONS)
    document = _document(dump)
    try:
        if not isinstance(document, dict):
            raise FormatProblem("not a readable report: expected a YAML or JSON mapping with version, metrics/results")
        if kind == REPORT_V01:
            measurement, note = v01_measurement(document)
        else:
            measurement, note = v02_measurement(document)
    except FormatProblem as problem:
        parsed.problems.append(("report", str(problem)))
        return parsed
    if measurement.merge_key is None:
        stage = _stage_in_name(PurePath(dump.name).name)
        measurement.merge_key = None if stage is None else f"stage {stage}"
    parsed.measurements.append(measurement)
    parsed.note = note
    return parsed


def _mapping(value: Any) -> dict:
    """A section of the embedded load generator config, as a mapping ({} when it is not one: it is optional)."""
    return value if isinstance(value, dict) else {}


def _stage_in_name(file_name: str) -> int | None:
    match = re.search(r"stage_(\d+)_", file_name)
    return int(match.group(1)) if match else None


def _scale(stats: dict, where: str, units: dict[str, float]) -> float:
    unit = stats.get("units")
    if unit not in units:
        raise FormatProblem(f"{where}.units is {unit!r}, expected one of {', '.join(units)}")
    return units[unit]


def _statistics(latency: dict, requests: dict, where: str) -> tuple[dict[str, Any], list]:
    """Our percentile columns and every statistic as a tool metric, from the latency and length sections."""
    row: dict[str, Any] = {}
    metrics: list[tuple[str, str, float, str]] = []
    for name, stats in latency.items():
        if stats is None:
            continue
        if not isinstance(stats, dict):
            raise FormatProblem(f"{where}.latency.{name} is a {type(stats).__name__}, expected statistics")
        factor = _scale(stats, f"{where}.latency.{name}", UNITS)
        metrics += stats_metrics(f"{name}_ms", {k: v for k, v in stats.items() if k != "units"}, "ms", factor)
        measure = next((m for m, n in OURS.items() if n == name), None)
        for p in PERCENTILES if measure else ():
            value = number(stats.get(p), f"{where}.latency.{name}.{p}")
            row[f"{measure}_{p}_ms"] = None if value is None else value * factor
    for column, key in (("input_tokens_mean", "input_length"), ("output_tokens_mean", "output_length")):
        stats = requests.get(key) or {}
        if not isinstance(stats, dict):
            raise FormatProblem(f"{where}.requests.{key} is a {type(stats).__name__}, expected statistics")
        row[column] = number(stats.get("mean"), f"{where}.requests.{key}.mean")
        metrics += stats_metrics(key, {k: v for k, v in stats.items() if k != "units"}, "tokens")
    return row, metrics


def _counts(requests: dict, where: str) -> dict[str, Any]:
    """Requests sent, ok and failed: `total` counts failures (and incomplete requests) too."""
    total = requests.get("total")
    if total is None:
        raise FormatProblem(f"{where}.requests.total is missing (the number of requests sent)")
    sent = count(total, f"{where}.requests.total")
    failures, incomplete = requests.get("failures"), requests.get("incomplete")
    not_ok = None
    if failures is not None or incomplete is not None:
        not_ok = count(failures, f"{where}.requests.failures") + count(incomplete, f"{where}.requests.incomplete")
    if not_ok is not None and not_ok > sent:
        raise FormatProblem(f"{where}.requests: {not_ok} failed or incomplete of {sent} sent")
    return {"requests_sent": sent, "requests_ok": sent - (not_ok or 0), "requests_failed": not_ok}


def _output_note(mean: float | None, stats: dict, target: Any) -> str:
    """Said when output lengths run far past the workload's target (re-tokenised output): the mean is kept."""
    top = stats.get("max") if isinstance(stats, dict) else None
    if not isinstance(target, (int, float)) or not isinstance(top, (int, float)) or target <= 0:
        return ""
    if top <= OUTPUT_PAST_TARGET * target:
        return ""
    median = stats.get("p50")
    return (
        f"output lengths reach {top:g} tokens against a target of {target:g} (median {median}, mean "
        f"{mean if mean is None else round(mean, 1)}): the converted tool's re-tokenised counts, kept as written"
    )


def v01_measurement(doc: dict) -> tuple[Measurement, str]:
    """One v0.1 report: `metrics` for the figures, `scenario.load` for the stage and its configured rate."""
    metrics = section(doc, "metrics")
    requests, latency = section(metrics, "requests"), section(metrics, "latency")
    throughput, time = section(metrics, "throughput"), section(metrics, "time")
    load = section(section(doc, "scenario"), "load")
    args = _mapping(load.get("args"))
    generator = str(load.get("name") or "")
    stage_number = section(load, "metadata").get("stage")
    stage = count(stage_number, "scenario.load.metadata.stage") if stage_number is not None else None
    row = empty_point()
    values, tool_metrics = _statistics(latency, requests, "metrics")
    row.update(values)
    row.update(_counts(requests, "metrics"))
    row["duration_s"] = number(time.get("duration"), "metrics.time.duration")
    row["achieved_requests_per_s"] = number(throughput.get("requests_per_sec"), "metrics.throughput.requests_per_sec")
    for column, key in (
        ("input_tokens_per_s", "input_tokens_per_sec"),
        ("output_tokens_per_s", "output_tokens_per_sec"),
        ("total_tokens_per_s", "total_tokens_per_sec"),
    ):
        row[column] = number(throughput.get(key), f"metrics.throughput.{key}")
    if generator == "inference-perf" and row["duration_s"]:
        row["sent_requests_per_s"] = row["requests_sent"] / row["duration_s"]
    kind, rate, concurrency, workload, target = _v01_load(generator, args, stage)
    note = _output_note(row["output_tokens_mean"], requests.get("output_length") or {}, target)
    return (
        Measurement(
            location="metrics" if stage is None else f"stage {stage}",
            load_kind=kind,
            offered_rate_per_s=rate,
            concurrency=concurrency,
            values=row,
            tool_metrics=tool_metrics,
            merge_key=None if stage is None else f"stage {stage}",
            workload=workload,
        ),
        note,
    )


def _v01_load(
    generator: str, args: dict, stage: int | None
) -> tuple[str | None, float | None, float | None, dict[str, Any], Any]:
    """(load kind, rate, concurrency, workload, output length target) from the embedded load generator config:
    inference-perf's `load.stages[stage]`, or vLLM's `request_rate` / `max_concurrency`."""
    workload: dict[str, Any] = {"load_generator": generator} if generator else {}
    if generator == "inference-perf":
        load_cfg, data = _mapping(args.get("load")), _mapping(args.get("data"))
        data_type = data.get("type")
        params = _mapping(data.get(data_type)) if isinstance(data_type, str) else {}
        workload.update({"data": data_type, **{f"{data_type}.{k}": v for k, v in sorted(params.items())}})
        workload["arrival"] = load_cfg.get("type")
        stages = load_cfg.get("stages")
        if stage is None or not isinstance(stages, list) or stage >= len(stages) or not isinstance(stages[stage], dict):
            return None, None, None, workload, params.get("output_len")
        spec = stages[stage]
        workload["duration"] = spec.get("duration")
        where = f"scenario.load.args.load.stages[{stage}]"
        concurrency = number(spec.get("concurrency_level"), f"{where}.concurrency_level")
        if concurrency is not None:
            return "concurrency", None, concurrency, workload, params.get("output_len")
        return "rate", number(spec.get("rate"), f"{where}.rate"), None, workload, params.get("output_len")
    if generator == "vllm-benchmark":  # vLLM's own level rule: rate "inf" is every prompt at once, or the cap
        kind, rate, concurrency = load_level(args, "scenario.load.args")
        workload.update(num_prompts=args.get("num_prompts"), burstiness=args.get("burstiness"))
        if kind == "rate":
            workload["max_concurrency"] = concurrency
            return kind, rate, None, workload, None
        return kind, None, concurrency, workload, None
    return None, None, None, workload, None


def v02_measurement(doc: dict) -> tuple[Measurement, str]:
    """One v0.2 report: `results.request_performance.aggregate` for the figures, `scenario.load.standardized` for
    the stage and its rate (no duration in v0.2)."""
    aggregate = section(section(section(doc, "results"), "request_performance"), "aggregate")
    requests, latency = section(aggregate, "requests"), section(aggregate, "latency")
    throughput = section(aggregate, "throughput")
    standardized = section(section(section(doc, "scenario"), "load"), "standardized")
    where = "results.request_performance.aggregate"
    row = empty_point()
    values, tool_metrics = _statistics(latency, requests, where)
    row.update(values)
    row.update(_counts(requests, where))
    for column, key in (
        ("achieved_requests_per_s", "request_rate"),
        ("input_tokens_per_s", "input_token_rate"),
        ("output_tokens_per_s", "output_token_rate"),
        ("total_tokens_per_s", "total_token_rate"),
    ):
        stats = throughput.get(key)
        if stats is None:
            continue
        if not isinstance(stats, dict):
            raise FormatProblem(f"{where}.throughput.{key} is a {type(stats).__name__}, expected statistics")
        factor = _scale(stats, f"{where}.throughput.{key}", RATE_UNITS)
        value = number(stats.get("mean"), f"{where}.throughput.{key}.mean")
        row[column] = None if value is None else value * factor
    stage_number = standardized.get("stage")
    stage = None if stage_number is None else count(stage_number, "scenario.load.standardized.stage")
    rate = number(standardized.get("rate_qps"), "scenario.load.standardized.rate_qps")
    concurrency = number(standardized.get("concurrency"), "scenario.load.standardized.concurrency")
    kind = "rate" if rate is not None else ("concurrency" if concurrency is not None else None)
    generator = str(standardized.get("tool") or "")
    workload: dict[str, Any] = {"load_generator": generator} if generator else {}
    return (
        Measurement(
            location="aggregate" if stage is None else f"stage {stage}",
            load_kind=kind,
            offered_rate_per_s=rate,
            concurrency=concurrency if rate is None else None,
            values=row,
            tool_metrics=tool_metrics,
            merge_key=None if stage is None else f"stage {stage}",
            workload=workload,
        ),
        "",
    )
