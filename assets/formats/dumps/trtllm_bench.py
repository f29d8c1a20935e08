"""TensorRT-LLM `trtllm-bench` reports: the `--report_json` file of `latency` and `throughput` runs, and the console
report it prints (read where it is the only output; `trtllm_console.py` turns that text into the same blocks).

The JSON (`get_statistics_dict` in `tensorrt_llm/bench/dataclasses/reporting.py`; real files of 1.1.0rc2 and 1.2.0
read, a hand-written 1.0 one, `tests/fixtures/trtllm-bench/README.md`): blocks
`engine` (model, version, backend TRT or Pytorch, dtype, kv_cache_dtype, quantization; the TRT engine's
max_input_length and max_sequence_length), `machine` (1.2: the first GPU's name and memory; absent in 1.1),
`world_info` (tp/pp/ep/world size, max_batch_size, max_num_tokens, scheduling_policy, kv_cache_percentage,
issue_rate), `request_info` (num_requests, avg_num_concurrent_requests, average lengths), `performance` (total
latency, request/token throughputs, request latency percentiles in ms), `streaming_metrics` (only with streaming:
`latency` runs always, `throughput --streaming`: TTFT and TPOT percentiles), `decoding_stats` (speculative decoding:
draft and acceptance percentiles), `dataset` (the dataset's length statistics). Percentiles are nearest-rank over
the completed requests (`sorted[int(n * q)]`), with `minimum`/`maximum`/`average` spellings.

What a report gives and how it is read (`REPORT_KEYS`, `PERCENTILE_BLOCKS`: one key table for JSON and console):
- the level: trtllm-bench writes no rate or concurrency setting. A batch-1 run (`max_batch_size` 1, as
  `trtllm-bench latency` runs it; measured mean concurrency at most `ONE_AT_A_TIME`) holds one request at a time:
  concurrency 1, one level per report, said. Otherwise an `issue_rate` of at least `ISSUED_AT_ONCE_PER_S` (real
  reports: 3e13 to 1e17 req/s) means every request was issued at once (no --concurrency): concurrency =
  num_requests, as for a vLLM result at rate inf without a cap; the issue rate is not a rate and is kept nowhere.
  A smaller issue rate is what a `--concurrency` cap leaves: the report does not state the cap, so the level is
  not stated (said).
- TTFT = first token - request start, TPOT = (end - first token) / (output tokens - 1) per request, E2E = request
  latency: ours. A report without `streaming_metrics` (a non-streaming throughput run) has no TTFT or TPOT: NULL,
  never 0, said in the file's note and its definitions.
- no failure count: trtllm-bench reports the requests that completed (requests_failed NULL).
- the workload: the dataset's input/output lengths (`dataset.avg_isl`/`avg_osl`, else the request averages) and the
  dataset's file name; the `in<ISL>_out<OSL>_bs<B>` file name of a sweep is checked against them (said when it
  disagrees). Server settings: model, backend, dtype, quantization, KV cache dtype, engine limits, parallelism,
  batch and token limits, scheduler, KV cache fraction, the GPU's name, the speculative decoding mode; the string
  "None" is no value. An engine `max_input_length` below the inputs actually run is kept as the report states it
  and said (the engine accepted them).
- the version: `engine.version` (trtllm-bench is TensorRT-LLM's own tool).
"""

from __future__ import annotations

import json
import re
from pathlib import Path, PurePath
from typing import Any

from assets.formats.dumps import trtllm_console
from assets.formats.dumps.exchange import PERCENTILE_LABELS, Dump, FormatProblem, Measurement, Parsed
from assets.formats.dumps.values import count, empty_point, number, section, stats_metrics

TOOL = "trtllm-bench"
REPORT_JSON = "trtllm-bench report JSON"
CONSOLE = "trtllm-bench console report"
CONSOLE_BESIDE_JSON = "trtllm-bench console report beside its report JSON"
FORMATS = (REPORT_JSON, CONSOLE, CONSOLE_BESIDE_JSON)
SKIPPED = {
    CONSOLE_BESIDE_JSON: "the same run as a trtllm-bench report JSON beside it (same request count and total "
    "latency), which is read"
}
READ_IN_PLACE = frozenset[str]()

DEFINITIONS = (
    "trtllm-bench: TTFT = first token - request start; TPOT = (end - first token) / (output tokens - 1) per request "
    "(ours; 0 for a single-token output); E2E = request latency; percentiles nearest-rank (sorted[int(n*q)]) over "
    "completed requests; request throughput = requests / (last end - first start); no failure count; ms"
)
NO_STREAMING = (
    "no streaming_metrics (a throughput run without --streaming): TTFT and TPOT are not in the report, NULL (never 0)"
)
AVERAGES_ONLY = (
    "no TTFT percentiles in the report (early consoles print averages only): NULL (never 0); the averages are kept "
    "as tool metrics"
)

# The blocks a report JSON has (what recognises one): every generation writes these four.
REQUIRED_BLOCKS = ("engine", "world_info", "request_info", "performance")
ONE_AT_A_TIME = 1.05  # mean concurrent requests of a batch-1 run (0.9997 .. 1.0 in real reports)
ISSUED_AT_ONCE_PER_S = 1e6  # an issue rate this high (a request per microsecond or faster): all issued at once

# block -> {key: (metric, statistic, unit)}: the single figures a report states, kept as tool metrics.
REPORT_KEYS: dict[str, dict[str, tuple[str, str, str]]] = {
    "performance": {
        "total_latency_ms": ("total_latency_ms", "value", "ms"),
        "avg_request_latency_ms": ("request_latency_ms", "mean", "ms"),
        "request_throughput_req_s": ("request_throughput", "value", "requests/s"),
        "system_output_throughput_tok_s": ("output_throughput", "value", "tokens/s"),
        "system_total_throughput_tok_s": ("total_token_throughput", "value", "tokens/s"),
        "output_throughput_per_user_tok_s": ("output_throughput_per_user", "mean", "tokens/s"),
        "output_throughput_per_gpu_tok_s": ("output_throughput_per_gpu", "value", "tokens/s"),
    },
    "streaming_metrics": {
        "avg_ttft_ms": ("ttft_ms", "mean", "ms"),
        "avg_tpot_ms": ("tpot_ms", "mean", "ms"),
        "token_output_speed_tok_s": ("token_output_speed_per_user", "mean", "tokens/s"),
        "avg_inter_token_latency_ms": ("inter_token_latency_ms", "mean", "ms"),  # the early console only
    },
    "request_info": {"avg_num_concurrent_requests": ("avg_num_concurrent_requests", "mean", "requests")},
}
# (block, key) -> (metric, unit, our measure or None): the percentile blocks.
PERCENTILE_BLOCKS: dict[tuple[str, str], tuple[str, str, str | None]] = {
    ("performance", "request_latency_percentiles_ms"): ("request_latency_ms", "ms", "e2e"),
    ("streaming_metrics", "ttft_percentiles"): ("ttft_ms", "ms", "ttft"),
    ("streaming_metrics", "tpot_percentiles"): ("tpot_ms", "ms", "tpot"),
    ("streaming_metrics", "gen_tps_percentiles"): ("generation_tokens_per_s_per_user", "tokens/s", None),
    ("decoding_stats", "num_draft_tokens_percentiles"): ("draft_tokens", "tokens", None),
    ("decoding_stats", "num_accepted_draft_tokens_percentiles"): ("accepted_draft_tokens", "tokens", None),
    ("decoding_stats", "draft_acceptance_rate_percentiles"): ("draft_acceptance_rate", "fraction", None),
    ("decoding_stats", "acceptance_length_percentiles"): ("acceptance_length", "tokens/step", None),
}
STATISTIC_NAMES = {"minimum": "min", "maximum": "max", "average": "mean"}
# (block, key) -> server setting: what the report states about the runtime (paths are not settings).
SERVER_KEYS: dict[tuple[str, str], str] = {
    ("engine", "model"): "model",
    ("engine", "backend"): "backend",
    ("engine", "dtype"): "dtype",
    ("engine", "kv_cache_dtype"): "kv_cache_dtype",
    ("engine", "quantization"): "quantization",
    ("engine", "max_input_length"): "max_input_length",
    ("engine", "max_sequence_length"): "max_sequence_length",
    ("world_info", "tp_size"): "tp_size",
    ("world_info", "pp_size"): "pp_size",
    ("world_info", "ep_size"): "ep_size",
    ("world_info", "world_size"): "world_size",
    ("world_info", "max_batch_size"): "max_batch_size",
    ("world_info", "max_num_tokens"): "max_num_tokens",
    ("world_info", "scheduling_policy"): "scheduling_policy",
    ("world_info", "kv_cache_percentage"): "kv_cache_free_gpu_mem_fraction",
    ("machine", "name"): "gpu",
    ("decoding_stats", "mode"): "speculative_decoding",
}
_NOT_STATED = (None, "", "None", "none", "N/A")
_NAMED = re.compile(r"(?:^|[_-])in(?P<input>\d+)_out(?P<output>\d+)(?:_bs(?P<batch>\d+))?(?:[_.-]|$)")


def _is_report(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(value.get(b), dict) for b in REQUIRED_BLOCKS)


def recognise(dump: Dump) -> str | None:
    if dump.json_lines:
        return None
    if dump.payload is not None:
        return REPORT_JSON if _is_report(dump.payload) else None
    # a log too large to hold is recognised from its first and last bytes (a report is printed at the end of a run)
    text = dump.data + dump.tail if dump.partial and dump.tail else dump.data
    if not trtllm_console.is_console_report(text):
        return None
    return CONSOLE_BESIDE_JSON if _json_twin(dump, text) else CONSOLE


def parse(dump: Dump, kind: str) -> Parsed:
    if kind == REPORT_JSON:
        reports = [("report", dump.payload)]
    else:
        text = dump.data.decode("utf-8-sig", errors="replace")
        reports = [(f"report {i + 1}", r) for i, r in enumerate(trtllm_console.console_reports(text))]
    parsed = Parsed(kind=kind, tool=TOOL, definitions=DEFINITIONS)
    notes: list[str] = []
    cut = trtllm_console.cut_short(text, reports[-1][1]) if kind != REPORT_JSON and reports else None
    if cut is not None:  # a run killed or a copy cut inside its last report: never one more load level
        notes.append(f"{reports.pop()[0]}: cut short ({cut}): left out, not a load level")
    nulls: list[str] = []  # why a latency column is NULL, on every load point of the file (tool_definitions)
    for location, report in reports:
        try:
            measurement, said = report_measurement(report, location, dump.path or dump.name)
        except FormatProblem as problem:
            parsed.problems.append((location, str(problem)))
            continue
        parsed.measurements.append(measurement)
        notes.extend(f"{location}: {s}" if len(reports) > 1 else s for s in said)
        nulls.extend(s for s in (NO_STREAMING, AVERAGES_ONLY) if s in said and s not in nulls)
        version = _stated(section(report, "engine").get("version"))
        if version is not None:
            parsed.tool_version = str(version)
    parsed.definitions = "; ".join([DEFINITIONS, *nulls])
    parsed.note = "; ".join(notes)
    return parsed


def _stated(value: Any) -> Any:
    """A report value, or None where the report writes none (null, "", the string "None")."""
    return None if isinstance(value, str) and value.strip() in _NOT_STATED or value is None else value


def level(report: dict) -> tuple[str | None, float | None, str]:
    """(load kind, concurrency, what was said about it) of one report (see the module docstring)."""
    world, requests = section(report, "world_info"), section(report, "request_info")
    batch = number(_stated(world.get("max_batch_size")), "world_info.max_batch_size", allow_string=True)
    mean = number(_stated(requests.get("avg_num_concurrent_requests")), "request_info.avg_num_concurrent_requests")
    issue = number(_stated(world.get("issue_rate")), "world_info.issue_rate", allow_string=True)
    n = _count(requests, "num_requests", "request_info")
    if batch == 1 and (mean is None or mean <= ONE_AT_A_TIME):
        measured = "" if mean is None else f"; measured mean concurrency {mean:.4g}"
        return "concurrency", 1.0, f"a batch-1 run (max_batch_size 1{measured}): one load level, concurrency 1"
    if issue is not None and issue >= ISSUED_AT_ONCE_PER_S and n is not None:
        return (
            "concurrency",
            float(n),
            f"issue_rate {issue:.3g} req/s means every request was issued at once (not a rate): the level is "
            f"concurrency = num_requests ({n})",
        )
    shown = "no issue_rate" if issue is None else f"issue_rate {issue:.4g} req/s (measured, not a setting)"
    return None, None, f"{shown}: the report does not state the concurrency it ran at; the level is not stated"


def _count(block: dict, key: str, name: str) -> int | None:
    value = _stated(block.get(key))
    return None if value is None else count(value, f"{name}.{key}", allow_string=True)


def report_measurement(report: dict, location: str, path: str) -> tuple[Measurement, list[str]]:
    """One report as a load point, and what was said about it."""
    perf, requests = section(report, "performance"), section(report, "request_info")
    if perf.get("request_throughput_req_s") is None:
        raise FormatProblem("the report states no performance.request_throughput_req_s (Request Throughput (req/sec))")
    kind, concurrency, said_level = level(report)
    said = [said_level]
    n = _count(requests, "num_requests", "request_info")
    latency_ms = number(perf.get("total_latency_ms"), "performance.total_latency_ms")
    out_rate = number(perf.get("system_output_throughput_tok_s"), "performance.system_output_throughput_tok_s")
    total_rate = number(perf.get("system_total_throughput_tok_s"), "performance.system_total_throughput_tok_s")
    row = empty_point()
    row.update(
        achieved_requests_per_s=number(perf.get("request_throughput_req_s"), "performance.request_throughput_req_s"),
        requests_ok=n,
        duration_s=None if latency_ms is None else latency_ms / 1000.0,
        output_tokens_per_s=out_rate,
        total_tokens_per_s=total_rate,
        input_tokens_per_s=None if out_rate is None or total_rate is None else total_rate - out_rate,
        input_tokens_mean=number(requests.get("avg_input_length"), "request_info.avg_input_length"),
        output_tokens_mean=number(requests.get("avg_output_length"), "request_info.avg_output_length"),
    )
    metrics: list[tuple[str, str, float, str]] = []
    for block, keys in REPORT_KEYS.items():
        stats = section(report, block)
        for key, (metric, statistic, unit) in keys.items():
            value = number(_stated(stats.get(key)), f"{block}.{key}", allow_string=True)
            if value is not None:
                metrics.append((metric, statistic, value, unit))
    for (block, key), (metric, unit, ours) in PERCENTILE_BLOCKS.items():
        percentiles = section(report, block).get(key)
        if not isinstance(percentiles, dict):
            continue
        metrics.extend(stats_metrics(metric, percentiles, unit, names=STATISTIC_NAMES))
        for pct in PERCENTILE_LABELS if ours is not None else ():
            value = number(_stated(percentiles.get(pct)), f"{block}.{key}.{pct}", allow_string=True)
            row[f"{ours}_{pct}_ms"] = value
    if "streaming_metrics" not in report:
        said.append(NO_STREAMING)
    elif not isinstance(section(report, "streaming_metrics").get("ttft_percentiles"), dict):
        said.append(AVERAGES_ONLY)
    workload = _workload(report, path, said)
    server = {
        setting: value
        for (block, key), setting in SERVER_KEYS.items()
        if (value := _stated(section(report, block).get(key))) is not None
    }
    limit = number(_stated(server.get("max_input_length")), "engine.max_input_length", allow_string=True)
    longest = number(_stated(section(report, "dataset").get("max_isl")), "dataset.max_isl", allow_string=True)
    longest = longest if longest is not None else row["input_tokens_mean"]
    if limit is not None and longest is not None and longest > limit:
        said.append(
            f"engine max_input_length {limit:g} is smaller than the inputs run ({longest:g} tokens): kept as the "
            "report states it (the engine accepted them)"
        )
    measurement = Measurement(
        location=location,
        load_kind=kind,
        concurrency=concurrency,
        values=row,
        tool_metrics=metrics,
        workload=workload,
        server_settings=server,
    )
    return measurement, said


def _workload(report: dict, path: str, said: list[str]) -> dict[str, Any]:
    """The dataset's lengths (and its file name); a sweep's `in<ISL>_out<OSL>` file name checked against them."""
    dataset, requests = section(report, "dataset"), section(report, "request_info")
    input_len = _stated(dataset.get("avg_isl"))
    output_len = _stated(dataset.get("avg_osl"))
    if input_len is None:
        input_len = _stated(requests.get("avg_input_length"))
    if output_len is None:
        output_len = _stated(requests.get("avg_output_length"))
    workload: dict[str, Any] = {}
    for key, value in (("input_len", input_len), ("output_len", output_len)):
        if value is not None:
            got = number(value, f"dataset.{key}", allow_string=True)
            workload[key] = int(got) if got is not None and got == int(got) else got
    dataset_path = _stated(dataset.get("dataset_path"))
    if dataset_path is not None:
        workload["dataset"] = PurePath(str(dataset_path)).name
    named = _NAMED.search(PurePath(path).name)
    if named is not None:
        for key, group in (("input_len", "input"), ("output_len", "output")):
            if key not in workload:
                workload[key] = int(named.group(group))
            elif workload[key] != int(named.group(group)):
                said.append(f"the file name says {key} {named.group(group)}, the report {workload[key]}: the report's")
    return workload


_TWIN_LIMIT = 200  # report JSON files looked at beside a console report (a sweep folder holds tens)


def _json_twin(dump: Dump, text: bytes) -> bool:
    """Whether a report JSON beside this console report (`text`: what is known of it) holds the same run (same
    request count and total latency as printed, to its 4 decimals)."""
    if dump.path is None:
        return False
    printed = {(n, round(t, 4)) for n, t in trtllm_console.printed_totals(text)}
    if not printed:
        return False
    for candidate in sorted(Path(dump.path).parent.glob("*.json"))[:_TWIN_LIMIT]:
        try:
            if candidate.stat().st_size > 1 << 20:
                continue
            report = json.loads(candidate.read_bytes())
        except (OSError, ValueError):
            continue
        if _is_report(report):
            n = report["request_info"].get("num_requests")
            t = report["performance"].get("total_latency_ms")
            if isinstance(n, int) and isinstance(t, (int, float)) and (n, round(t, 4)) in printed:
                return True
    return False
