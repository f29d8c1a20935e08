"""What vLLM's and SGLang's serving benchmarks write alike, read once for both readers (vllm.py, sglang.py).

SGLang's `bench_serving` began as a copy of vLLM's `benchmarks/benchmark_serving.py` (now `vllm bench serve`),
and their results still share a layout: the load level as `request_rate` (a number, or "inf" for a closed loop)
with `max_concurrency` and `num_prompts`; latency statistics as flat `<stat>_<metric>[_ms]` keys; and, when
asked for (vLLM `--save-detailed`, SGLang `--output-details`), per-request arrays (`ttfts`, `itls`,
`input_lens`, `output_lens`, `errors`, ...). `SGLANG_KEYS` are the keys only SGLang writes: what tells the two
tools' results apart. Not a reader (no registry lists it): the part of the layout both readers read.
"""

from __future__ import annotations

import re

import polars as pl

from assets.formats.dumps.exchange import FormatProblem
from assets.formats.dumps.values import checked_column, number, rate_or_inf, requests_frame

# Keys only SGLang's bench_serving writes (every generation has its E2E statistics and retokenised counts; a
# vLLM sweep result can carry `random_input_len` or `dataset_name` as a BENCH override, so those do not count).
SGLANG_KEYS = {
    "total_output_retokenized",
    "total_output_tokens_retokenized",
    "output_throughput_retokenized",
    "mean_e2e_latency_ms",
    "median_e2e_latency_ms",
    "mean_e2e_latency",
    "median_e2e_latency",
}
_PCT = {"median": "p50", "p50": "p50", "p90": "p90", "p95": "p95", "p99": "p99"}


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


def detailed_requests(obj: dict, completed: int | None = None):
    """The per-request arrays of a detailed result (vLLM `--save-detailed`, SGLang `--output-details`)
    as a request frame; SGLang writes no `latencies`, so E2E = TTFT + the sum of the gaps. Every array
    is checked (`checked_column`) before any arithmetic: a broken value names its request. A request with
    no error text but 0 output tokens and TTFT 0 is an error when the tool's `completed` counts exactly
    those as not completed (their error has no text), else a success with 0 output tokens, as written."""
    lengths = {
        k: len(obj[k])
        for k in ("ttfts", "input_lens", "output_lens", "latencies", "errors", "start_times", "itls", "generated_texts")
        if isinstance(obj.get(k), list)
    }
    if not isinstance(obj.get("ttfts"), list) or len(set(lengths.values())) > 1:
        raise FormatProblem(f"per-request arrays of different lengths {lengths}")
    n = len(obj["ttfts"])
    ttfts = checked_column("ttfts", obj["ttfts"], pl.Float64())
    errors = [str(e) if e else None for e in (obj.get("errors") or [None] * n)]
    output_lens = obj.get("output_lens")
    if isinstance(output_lens, list) and completed is not None:
        no_text = pl.Series([e is None for e in errors], dtype=pl.Boolean)
        silent = no_text & (checked_column("output_tokens", output_lens, pl.Int64()) == 0) & (ttfts == 0.0)
        with_text = n - int(no_text.sum())
        if silent.any() and n - completed == int(silent.sum()) + with_text:
            errors = [SILENT_FAILURE if s else e for s, e in zip(silent, errors, strict=True)]
    failed = pl.Series([e is not None for e in errors], dtype=pl.Boolean)
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
            "status": ["error" if e is not None else "ok" for e in errors],
            "start_offset_s": None if starts is None else starts - starts.min(),
            "input_tokens": obj.get("input_lens"),
            "output_tokens": output_lens,
            "ttft_ms": ok_only.get_column("ttft_ms"),
            "e2e_ms": ok_only.get_column("e2e_ms"),
            "error": errors,
            **({"response_text": texts} if isinstance(texts, list) else {}),
        }
    )


SILENT_FAILURE = "not completed by the tool's count (output_lens 0, ttfts 0, no error text)"
