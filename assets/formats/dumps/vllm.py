"""vLLM `vllm bench serve` results (and the older `benchmarks/benchmark_serving.py`).

Shapes read: one JSON object (`--save-result`); several objects on their own lines
(`--append-result`); with `--save-detailed`, per-request arrays `input_lens`, `output_lens`,
`ttfts` (s), `itls` (s), `latencies` (s), `start_times` (monotonic s), `errors` ("" = success);
old spellings (`"request_goodput:"` with a trailing colon, no `failed`); `request_rate` written as
the string "inf" (closed loop when `max_concurrency` is set); `--metadata` values as strings; the
InferenceX copy that writes seconds without `_ms` (`median_ttft`, `p99_tpot`, ...). A
`vllm bench sweep serve_sla` tree is a set of ordinary results (`<var>=<v>/run=<i>.json`: the
runs of one value are repeats of one load level) plus `summary.json` / `SLA--*.json` (lists of
those same results) and `summary.csv`, which are recognised and not read twice.

vLLM's TTFT, TPOT ((E2E - TTFT)/(output tokens - 1) per request), ITL (every gap pooled) and E2EL
are ours; its percentiles are numpy's linear interpolation over successful requests.
"""

from __future__ import annotations

import re
from typing import Any

import polars as pl

from assets.formats.dumps.model import Dump, FormatProblem, Measurement, Parsed
from assets.formats.dumps.values import (
    checked_column,
    count,
    empty_point,
    number,
    rate_or_inf,
    repeated,
    requests_frame,
)

TOOL = "vllm"
RESULT = "vllm bench serve result"
RESULT_LINES = "vllm bench serve results (appended JSON lines)"
RESULT_SECONDS = "vllm-derived summary in seconds (InferenceX)"
SWEEP_SUMMARY = "vllm bench sweep summary (list of the run=N results beside it)"
SWEEP_CSV = "vllm bench sweep summary.csv"
FORMATS = (RESULT, RESULT_LINES, RESULT_SECONDS, SWEEP_SUMMARY, SWEEP_CSV)
SKIPPED = {
    SWEEP_SUMMARY: "the same results as the run=N.json files beside it; read from those",
    SWEEP_CSV: "the same results as the run=N.json files of the sweep; read from those",
}
READ_IN_PLACE = frozenset[str]()

DEFINITIONS = (
    "vLLM bench serve: TTFT = send to first token; TPOT = (E2E - TTFT) / (output tokens - 1) per request (ours); "
    "ITL = every inter-token gap pooled (ours); E2EL = send to last token; request_goodput = good requests / "
    "duration at the offered load; percentiles by numpy (linear) over successful requests; ms"
)
DEFINITIONS_SECONDS = DEFINITIONS.replace("; ms", "; written in seconds without _ms (InferenceX copy), converted to ms")

_STAT = re.compile(r"^(mean|median|std|p\d+(?:\.\d+)?)_(ttft|tpot|itl|e2el)(_ms)?$")
_OURS = {"ttft": "ttft", "tpot": "tpot", "itl": "itl", "e2el": "e2e"}
_PCT = {"median": "p50", "p50": "p50", "p90": "p90", "p95": "p95", "p99": "p99"}
# Keys only SGLang's bench_serving writes: its results look like vLLM's otherwise (sglang.py recognises them by these).
SGLANG_KEYS = {
    "dataset_name",
    "sharegpt_output_len",
    "random_input_len",
    "total_output_retokenized",
    "output_throughput_retokenized",
    "mean_e2e_latency_ms",
    "median_e2e_latency_ms",
}


def _is_result(obj: Any) -> bool:
    if not isinstance(obj, dict) or "request_throughput" not in obj or "duration" not in obj:
        return False
    if SGLANG_KEYS & obj.keys():
        return False
    return any(_STAT.match(k) for k in obj) or "burstiness" in obj


def _in_seconds(obj: dict) -> bool:
    matched = [m for m in (_STAT.match(k) for k in obj) if m]
    return bool(matched) and not any(m.group(3) for m in matched)


def recognise(dump: Dump) -> str | None:
    payload = dump.payload
    if dump.json_lines:
        return RESULT_LINES if payload and all(_is_result(p) for p in payload) else None
    if isinstance(payload, list):
        return SWEEP_SUMMARY if payload and all(_is_result(p) for p in payload) else None
    if _is_result(payload):
        return RESULT_SECONDS if _in_seconds(payload) else RESULT
    if (
        dump.name.endswith("summary.csv")
        and "request_throughput" in dump.text_head.split("\n", 1)[0]
        and "duration" in dump.text_head.split("\n", 1)[0]
    ):
        return SWEEP_CSV
    return None


def parse(dump: Dump, kind: str) -> Parsed:
    parsed = Parsed(kind=kind, tool=TOOL, definitions=DEFINITIONS_SECONDS if kind == RESULT_SECONDS else DEFINITIONS)
    objects = dump.payload if kind == RESULT_LINES else [dump.payload]
    copies = repeated(objects)
    for i, obj in enumerate(objects):
        location = f"line {i + 1}" if kind == RESULT_LINES else "result"
        if i in copies:
            parsed.problems.append((location, f"the same result as line {copies[i] + 1} (every key equal): read once"))
            continue
        try:
            parsed.measurements.append(result_measurement(obj, location, seconds=_in_seconds(obj)))
        except FormatProblem as problem:
            parsed.problems.append((location, str(problem)))
    return parsed


def load_level(obj: dict, where: str) -> tuple[str, float | None, float | None]:
    """(load_kind, offered rate, concurrency): a finite rate is open loop; rate "inf" is closed loop
    at `max_concurrency` (or every prompt at once when there is none)."""
    rate = rate_or_inf(obj.get("request_rate"), f"{where}.request_rate") if obj.get("request_rate") != "trace" else None
    concurrency = number(obj.get("max_concurrency"), f"{where}.max_concurrency", allow_string=True)
    if rate is not None:
        return "rate", rate, concurrency
    if concurrency is None:
        concurrency = number(obj.get("num_prompts"), f"{where}.num_prompts", allow_string=True)
    return "concurrency", None, concurrency


def result_measurement(obj: dict, location: str, *, seconds: bool) -> Measurement:
    scale = 1000.0 if seconds else 1.0
    kind, rate, concurrency = load_level(obj, location)
    completed = count(obj.get("completed"), "completed")
    failed = count(obj["failed"], "failed") if obj.get("failed") is not None else None
    duration = number(obj.get("duration"), "duration")
    row = empty_point()
    total_in = number(obj.get("total_input_tokens"), "total_input_tokens")
    total_out = number(obj.get("total_output_tokens"), "total_output_tokens")
    input_rate = number(obj.get("input_throughput"), "input_throughput")
    row.update(
        achieved_requests_per_s=number(obj.get("request_throughput"), "request_throughput"),
        requests_ok=completed,
        requests_failed=failed,
        requests_sent=None if failed is None else completed + failed,
        duration_s=duration,
        output_tokens_per_s=number(obj.get("output_throughput"), "output_throughput"),
        total_tokens_per_s=number(obj.get("total_token_throughput"), "total_token_throughput"),
        input_tokens_per_s=input_rate
        if input_rate is not None
        else (total_in / duration if total_in is not None and duration else None),
        mean_input_tokens=total_in / completed if total_in is not None and completed else None,
        mean_output_tokens=total_out / completed if total_out is not None and completed else None,
    )
    metrics = flat_stats(obj, row, _STAT, _OURS, scale)
    for key in ("request_goodput", "request_goodput:"):  # the trailing colon is an old spelling
        goodput = number(obj.get(key), key, allow_string=True)
        if goodput is not None:
            metrics.append(("request_goodput", "value", goodput, "requests/s"))
    requests = detailed_requests(obj) if "ttfts" in obj else None
    if requests is not None and failed is None:
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


def flat_stats(
    obj: dict, row: dict, pattern: re.Pattern, ours: dict[str, str], scale: float
) -> list[tuple[str, str, float, str]]:
    """Flat `<stat>_<metric>[_ms]` keys (vLLM, SGLang) as labelled tool metrics; medians and p90/p95/p99
    also fill our columns (`ours` maps the tool's metric name to ours; both tools' definitions are ours)."""
    metrics = []
    for key, value in obj.items():
        match = pattern.match(key)
        if not match:
            continue
        stat, metric = match.group(1), match.group(2)
        value = number(value, key, allow_string=True)
        if value is None:
            continue
        metrics.append((f"{metric}_ms", stat, value * scale, "ms"))
        if stat in _PCT:
            row[f"{ours[metric]}_{_PCT[stat]}_ms"] = value * scale
    return metrics


def detailed_requests(obj: dict):
    """The per-request arrays of a detailed result (vLLM `--save-detailed`, SGLang `--output-details`)
    as a request frame; SGLang writes no `latencies`, so E2E = TTFT + the sum of the gaps. Every array
    is checked (`checked_column`) before any arithmetic: a broken value names its request."""
    lengths = {
        k: len(obj[k])
        for k in ("ttfts", "input_lens", "output_lens", "latencies", "errors", "start_times", "itls", "generated_texts")
        if isinstance(obj.get(k), list)
    }
    if not isinstance(obj.get("ttfts"), list) or len(set(lengths.values())) > 1:
        raise FormatProblem(f"per-request arrays of different lengths {lengths}")
    n = len(obj["ttfts"])
    ttfts = checked_column("ttfts", obj["ttfts"], pl.Float64())
    errors = obj.get("errors") or [""] * n
    failed = pl.Series([bool(e) for e in errors], dtype=pl.Boolean)
    if obj.get("latencies") is not None:
        latencies = checked_column("latencies", obj["latencies"], pl.Float64())
    else:
        try:
            gaps = pl.Series("itls", obj.get("itls") or [[]] * n, dtype=pl.List(pl.Float64), strict=True)
        except (TypeError, ValueError, pl.exceptions.PolarsError):
            raise FormatProblem("itls must hold one list of numbers per request") from None
        latencies = ttfts + gaps.list.sum()
    starts = obj.get("start_times")
    starts = checked_column("start_times", starts, pl.Float64()) if starts else None
    ok_only = pl.DataFrame({"failed": failed, "ttft": ttfts * 1000.0, "e2e": latencies * 1000.0}).select(
        pl.when(~pl.col("failed")).then(pl.col("ttft")).alias("ttft_ms"),
        pl.when(~pl.col("failed")).then(pl.col("e2e")).alias("e2e_ms"),
    )
    texts = obj.get("generated_texts")
    return requests_frame(
        {
            "request_index": list(range(n)),
            "phase": "measure",  # vLLM and SGLang leave their warm-up requests out of the arrays
            "status": ["error" if f else "ok" for f in failed],
            "start_offset_s": None if starts is None else starts - starts.min(),
            "input_tokens": obj.get("input_lens"),
            "output_tokens": obj.get("output_lens"),
            "ttft_ms": ok_only.get_column("ttft_ms"),
            "e2e_ms": ok_only.get_column("e2e_ms"),
            "error": [str(e) if e else None for e in errors],
            **({"response_text": texts} if isinstance(texts, list) else {}),
        }
    )
