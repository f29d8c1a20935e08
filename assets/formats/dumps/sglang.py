"""SGLang `bench_serving` results: one JSON line appended per run to `--output-file`.

Key names changed between the single-file `bench_serving.py` (`total_input_tokens`,
`total_output_tokens`) and the refactored package (`total_input`, `total_output`, `*_retokenized`);
both are read. Latencies are in ms: `mean/median/std/p99_ttft_ms`, `..._tpot_ms`,
`mean/median/std/p95/p99/max_itl_ms`, `..._e2e_latency_ms`. `concurrency` is the *measured* mean
number of requests in flight (sum of latencies / duration), not the configured load: the load level
is `request_rate` (a number, "inf" or "trace") and `max_concurrency`. With `--output-details` the
line carries per-request arrays like vLLM's, without `latencies` (E2E = TTFT + the gaps).
SGLang's TTFT, TPOT and pooled ITL are ours.
"""

from __future__ import annotations

import re
from typing import Any

from assets.formats.dumps.model import Dump, FormatProblem, Measurement, Parsed
from assets.formats.dumps.values import count, empty_point, number, repeated
from assets.formats.dumps.vllm import SGLANG_KEYS, detailed_requests, flat_stats, load_level

TOOL = "sglang"
RESULT_LINES = "sglang bench_serving results (JSON lines)"
FORMATS = (RESULT_LINES,)
SKIPPED: dict[str, str] = {}  # every format it recognises is read
READ_IN_PLACE = frozenset[str]()

DEFINITIONS = (
    "SGLang bench_serving: TTFT = send to first token; TPOT = (E2E - TTFT) / (output tokens - 1) per request "
    "(ours); ITL = every inter-token gap pooled (ours); E2E = e2e_latency; percentiles by numpy over successful "
    "requests (only p99, and p95 for ITL); concurrency = measured mean requests in flight; ms"
)

_STAT = re.compile(r"^(mean|median|std|p\d+|max)_(ttft|tpot|itl|e2e_latency)_ms$")
_OURS = {"ttft": "ttft", "tpot": "tpot", "itl": "itl", "e2e_latency": "e2e"}


def _is_result(obj: Any) -> bool:
    return isinstance(obj, dict) and "request_throughput" in obj and bool(SGLANG_KEYS & obj.keys())


def recognise(dump: Dump) -> str | None:
    objects = dump.payload if dump.json_lines else [dump.payload]
    if isinstance(objects, list) and objects and all(_is_result(o) for o in objects):
        return RESULT_LINES
    return None


def parse(dump: Dump, kind: str) -> Parsed:
    parsed = Parsed(kind=kind, tool=TOOL, definitions=DEFINITIONS)
    objects = dump.payload if dump.json_lines else [dump.payload]
    copies = repeated(objects)
    for i, obj in enumerate(objects):
        location = f"line {i + 1}"
        if i in copies:
            parsed.problems.append((location, f"the same result as line {copies[i] + 1} (every key equal): read once"))
            continue
        try:
            parsed.measurements.append(line_measurement(obj, location))
        except FormatProblem as problem:
            parsed.problems.append((location, str(problem)))
    return parsed


def line_measurement(obj: dict, location: str) -> Measurement:
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
        mean_input_tokens=total_in / completed if total_in is not None and completed else None,
        mean_output_tokens=total_out / completed if total_out is not None and completed else None,
    )
    metrics = flat_stats(obj, row, _STAT, _OURS, 1.0)
    measured = number(obj.get("concurrency"), "concurrency")
    if measured is not None:
        metrics.append(("concurrency", "mean in flight (measured)", measured, "requests"))
    requests = detailed_requests(obj) if "ttfts" in obj else None
    if requests is not None:
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
    )
