"""SGLang `bench_serving` results: one JSON line appended per run to `--output-file`.

Three generations are read:

- 2024, v0.2.x (`RESULT_LINES_2024`): `total_input`, `total_output`, `mean_e2e_latency`, `median_e2e_latency`,
  `median_ttft`, `median_itl` (ms, without `_ms`), `output_token_throughput`, `benchmark_duration`, and
  usually `completed`;
- late 2024, v0.3-0.4.0 (`RESULT_LINES_2024`): the same medians with `_ms`, `total_input_tokens`,
  `output_throughput`, `duration`, `completed`, `max_concurrency`. Neither 2024 generation writes
  `request_throughput`, input or total throughput: they are computed here (completed / duration, tokens /
  duration, the tool's own definitions), and said so in the definitions;
- 2025 on (`RESULT_LINES`): the single-file `bench_serving.py` (`total_input_tokens`, `total_output_tokens`)
  and the refactored package (`total_input`, `total_output`, `*_retokenized`); latencies in ms:
  `mean/median/std/p99_ttft_ms` (p90 in later versions), `..._tpot_ms`, `mean/median/std/p95/p99/max_itl_ms`,
  `..._e2e_latency_ms`. `concurrency` is the *measured* mean number of requests in flight (sum of
  latencies / duration), not the configured load. With `--output-details` the line carries per-request
  arrays like vLLM's, without `latencies` (E2E = TTFT + the gaps).

The load level is `request_rate` (a number, "inf", the bare JSON token `Infinity`, or "trace") and
`max_concurrency`. The workload (`Measurement.workload`) is what the line states (`dataset_name`,
`random_input_len`, `random_output_len`, `random_range_ratio`, `sharegpt_output_len`, `backend`,
`max_concurrency` where the rate is the load axis), plus the prompt count of SGLang's default file NAME
`<backend>_<MMDD>_<num_prompts>_<input>_<output>.jsonl` (or `..._<num_prompts>_sharegpt.jsonl`), which no
line states: taken only when the name's lengths agree with the line's. With it, failed requests are
`num_prompts - completed` (SGLang writes no failure count), said in the file's note. No line states the
SGLang version (`tool_version` stays None) nor anything of the server (`server_settings` stays empty).
SGLang's TTFT, TPOT and pooled ITL are ours.
"""

from __future__ import annotations

import re
from pathlib import PurePath
from typing import Any

from assets.formats.dumps.bench_serving import SGLANG_KEYS, detailed_requests, flat_stats, load_level
from assets.formats.dumps.exchange import Dump, FormatProblem, Measurement, Parsed
from assets.formats.dumps.values import count, empty_point, number, repeated

TOOL = "sglang"
RESULT_LINES = "sglang bench_serving results (JSON lines)"
RESULT_LINES_2024 = "sglang bench_serving results, 2024 (median-only keys, no request_throughput)"
FORMATS = (RESULT_LINES, RESULT_LINES_2024)
SKIPPED: dict[str, str] = {}  # every format it recognises is read
READ_IN_PLACE = frozenset[str]()

DEFINITIONS = (
    "SGLang bench_serving: TTFT = send to first token; TPOT = (E2E - TTFT) / (output tokens - 1) per request "
    "(ours); ITL = every inter-token gap pooled (ours); E2E = e2e_latency; percentiles by numpy over successful "
    "requests (only p99, and p95 for ITL); concurrency = measured mean requests in flight; ms"
)
DEFINITIONS_2024 = (
    "SGLang bench_serving (2024): TTFT = send to first token; ITL = every inter-token gap pooled (ours); "
    "E2E = e2e_latency; only medians (and the mean E2E) written, by numpy over successful requests; request, "
    "input and total token rates computed here as completed / duration and tokens / duration (the tool's own "
    "definitions; it did not write them); ms"
)

_STAT = re.compile(r"^(mean|median|std|p\d+|max)_(ttft|tpot|itl|e2e_latency)_ms$")
_OURS = {"ttft": "ttft", "tpot": "tpot", "itl": "itl", "e2e_latency": "e2e"}

# The 2024 lines, key by key: key -> (metric as the tool names it, statistic). Values in ms.
LATENCY_KEYS_2024 = {
    "median_ttft_ms": ("ttft", "median"),
    "median_ttft": ("ttft", "median"),
    "median_itl_ms": ("itl", "median"),
    "median_itl": ("itl", "median"),
    "median_e2e_latency_ms": ("e2e_latency", "median"),
    "median_e2e_latency": ("e2e_latency", "median"),
    "mean_e2e_latency_ms": ("e2e_latency", "mean"),
    "mean_e2e_latency": ("e2e_latency", "mean"),
}
DURATION_KEYS_2024 = ("duration", "benchmark_duration")
# Workload keys a line states (the load axis `request_rate` and `max_concurrency` aside).
WORKLOAD_KEYS = (
    "backend",
    "dataset_name",
    "num_prompts",
    "random_input_len",
    "random_output_len",
    "random_range_ratio",
    "sharegpt_output_len",
)
_DEFAULT_NAME = re.compile(r"^[A-Za-z0-9-]+_\d{4}_(?P<prompts>\d+)_(?:(?P<input>\d+)_(?P<output>\d+)|sharegpt)\.jsonl$")


def _is_result(obj: Any) -> bool:
    return isinstance(obj, dict) and "request_throughput" in obj and bool(SGLANG_KEYS & obj.keys())


def _is_result_2024(obj: Any) -> bool:
    return (
        isinstance(obj, dict)
        and "request_throughput" not in obj
        and bool(SGLANG_KEYS & obj.keys())
        and "dataset_name" in obj
        and any(k in obj for k in DURATION_KEYS_2024)
        and any(k.startswith("median_ttft") for k in obj)
    )


def recognise(dump: Dump) -> str | None:
    objects = dump.payload if dump.json_lines else [dump.payload]
    if not isinstance(objects, list) or not objects:
        return None
    if all(_is_result(o) for o in objects):
        return RESULT_LINES
    if all(_is_result_2024(o) for o in objects):
        return RESULT_LINES_2024
    return None


def parse(dump: Dump, kind: str) -> Parsed:
    parsed = Parsed(kind=kind, tool=TOOL, definitions=DEFINITIONS_2024 if kind == RESULT_LINES_2024 else DEFINITIONS)
    objects = dump.payload if dump.json_lines else [dump.payload]
    copies = repeated(objects)
    inferred: list[str] = []
    no_rate: list[str] = []
    for i, obj in enumerate(objects):
        location = f"line {i + 1}"
        if i in copies:
            parsed.problems.append((location, f"the same result as line {copies[i] + 1} (every key equal): read once"))
            continue
        prompts = named_prompts(dump.name, obj)
        try:
            measure = line_measurement_2024 if kind == RESULT_LINES_2024 else line_measurement
            measurement = measure(obj, location, prompts)
        except FormatProblem as problem:
            parsed.problems.append((location, str(problem)))
            continue
        parsed.measurements.append(measurement)
        if prompts is not None and "num_prompts" not in obj and measurement.values["requests_ok"] is not None:
            inferred.append(f"{location}: {measurement.values['requests_failed']}")
        if measurement.values["achieved_requests_per_s"] is None:
            no_rate.append(location)
    notes = []
    if inferred:
        notes.append(
            "no failure count in the lines: failed requests inferred as num_prompts (from the file name) - "
            "completed (" + "; ".join(inferred) + ")"
        )
    if no_rate:
        notes.append("no `completed` (or no duration): request rate not computed, NULL (" + ", ".join(no_rate) + ")")
    parsed.note = "; ".join(notes)
    return parsed


def named_prompts(path: str, obj: dict) -> int | None:
    """The prompt count a line states, else the one of SGLang's default file name when the name's lengths
    are the line's (`sglang_0427_20_512_32.jsonl`: 20 prompts of 512 in / 32 out)."""
    if obj.get("num_prompts") is not None:
        return count(obj["num_prompts"], "num_prompts")
    match = _DEFAULT_NAME.match(PurePath(path).name)
    if match is None:
        return None
    if match.group("input") is not None and (
        str(obj.get("random_input_len")) != match.group("input")
        or str(obj.get("random_output_len")) != match.group("output")
    ):
        return None
    return int(match.group("prompts"))


def stated_workload(obj: dict, rate: float | None, prompts: int | None) -> dict[str, Any]:
    workload = {k: obj[k] for k in WORKLOAD_KEYS if obj.get(k) is not None}
    if prompts is not None:
        workload["num_prompts"] = prompts
    if rate is not None and obj.get("max_concurrency") is not None:  # a cap on the offered rate, not the load axis
        workload["max_concurrency"] = obj["max_concurrency"]
    return workload


def _failures(row: dict[str, Any], completed: int, prompts: int | None) -> None:
    if prompts is None:
        return
    if prompts < completed:
        raise FormatProblem(f"completed ({completed}) exceeds num_prompts ({prompts})")
    row["requests_failed"] = prompts - completed
    row["requests_sent"] = prompts


def line_measurement(obj: dict, location: str, prompts: int | None = None) -> Measurement:
    kind, rate, concurrency = load_level(obj, location)
    completed = count(obj.get("completed"), "completed")
    duration = number(obj.get("duration"), "duration")
    total_in = number(obj.get("total_input", obj.get("total_input_tokens")), "total_input")
    total_out = number(obj.get("total_output", obj.get("total_output_tokens")), "total_output")
    row = empty_point()
    row.update(
        achieved_requests_per_s=number(obj.get("request_throughput"), "request_throughput"),
        requests_ok=completed,
        duration_s=duration,
        input_tokens_per_s=number(obj.get("input_throughput"), "input_throughput"),
        output_tokens_per_s=number(obj.get("output_throughput"), "output_throughput"),
        total_tokens_per_s=number(obj.get("total_throughput"), "total_throughput"),
        input_tokens_mean=total_in / completed if total_in is not None and completed else None,
        output_tokens_mean=total_out / completed if total_out is not None and completed else None,
    )
    _failures(row, completed, prompts)
    metrics = flat_stats(obj, row, _STAT, _OURS, 1.0)
    measured = number(obj.get("concurrency"), "concurrency")
    if measured is not None:
        metrics.append(("concurrency", "mean in flight (measured)", measured, "requests"))
    requests = detailed_requests(obj, completed) if "ttfts" in obj else None
    if requests is not None and prompts is None:
        row["requests_failed"] = int((requests["status"] == "error").sum())
        row["requests_sent"] = completed + row["requests_failed"]
    return Measurement(
        location=location,
        load_kind=kind,
        offered_rate_per_s=rate,
        concurrency=concurrency,
        values=row,
        tool_metrics=metrics,
        requests=requests,
        workload=stated_workload(obj, rate, prompts),
    )


def line_measurement_2024(obj: dict, location: str, prompts: int | None = None) -> Measurement:
    """A 2024 line, read by its key table (LATENCY_KEYS_2024); the rates it lacks computed from its totals."""
    kind, rate, concurrency = load_level(obj, location)
    completed = count(obj["completed"], "completed") if obj.get("completed") is not None else None
    duration_key = next(k for k in DURATION_KEYS_2024 if k in obj)
    duration = number(obj[duration_key], duration_key)
    total_in = number(obj.get("total_input_tokens", obj.get("total_input")), "total_input_tokens")
    total_out = number(obj.get("total_output_tokens", obj.get("total_output")), "total_output_tokens")
    output_rate = number(obj.get("output_throughput", obj.get("output_token_throughput")), "output_throughput")

    def per_second(amount: float | None) -> float | None:
        return amount / duration if amount is not None and duration else None

    row = empty_point()
    row.update(
        achieved_requests_per_s=per_second(completed),
        requests_ok=completed,
        duration_s=duration,
        input_tokens_per_s=per_second(total_in),
        output_tokens_per_s=output_rate,
        total_tokens_per_s=per_second(total_in + total_out) if total_in is not None and total_out is not None else None,
        input_tokens_mean=total_in / completed if total_in is not None and completed else None,
        output_tokens_mean=total_out / completed if total_out is not None and completed else None,
    )
    if completed is not None:
        _failures(row, completed, prompts)
    metrics = []
    for key, (metric, stat) in LATENCY_KEYS_2024.items():
        value = number(obj.get(key), key)
        if value is None:
            continue
        metrics.append((f"{metric}_ms", stat, value, "ms"))
        if stat == "median":
            row[f"{_OURS[metric]}_p50_ms"] = value
    return Measurement(
        location=location,
        load_kind=kind,
        offered_rate_per_s=rate,
        concurrency=concurrency,
        values=row,
        tool_metrics=metrics,
        workload=stated_workload(obj, rate, prompts),
    )
