"""kubernetes-sigs/inference-perf reports: recognition and conversion to load points.

A report folder holds `stage_N_lifecycle_metrics.json` (one load level each),
`summary_lifecycle_metrics.json` (all stages together) and `*_prometheus_metrics.json`
(server-side). Latencies are in seconds in the files and in ms in our tables. inference-perf's
`time_per_output_token` is (E2E - TTFT) / (output tokens - 1) per request, which is our TPOT.
"""

from __future__ import annotations

import math
import re
from typing import Any

TOOL = "inference-perf"
STAGE = "inference-perf lifecycle stage"
SUMMARY = "inference-perf lifecycle summary"
PROMETHEUS = "inference-perf prometheus metrics"

TOOL_DEFINITIONS = (
    "inference-perf: TTFT = send to first token; TPOT = time_per_output_token = (E2E - TTFT) / "
    "(output tokens - 1) per request (our definition); ITL = inter_token_latency, every chunk gap "
    "pooled; E2E = request_latency; percentiles computed by the tool over successful requests; "
    "seconds converted to ms"
)

_PERCENTILE_KEYS = {"p50": ("median", "p50"), "p90": ("p90",), "p95": ("p95",), "p99": ("p99",)}
_METRICS = {
    "ttft": "time_to_first_token",
    "tpot": "time_per_output_token",
    "itl": "inter_token_latency",
    "e2e": "request_latency",
}


class LoadPointProblem(ValueError):
    """A stage file that cannot become a load point; the message is the quarantine reason."""


def recognise(payload: Any) -> str | None:
    """STAGE, SUMMARY or PROMETHEUS when `payload` is an inference-perf report, else None."""
    if not isinstance(payload, dict) or not {"load_summary", "successes", "failures"} <= payload.keys():
        return None
    successes = payload.get("successes")
    if isinstance(successes, dict) and ("queue_len" in successes or "kv_cache_usage_percentage" in successes):
        return PROMETHEUS
    load = payload.get("load_summary")
    if isinstance(load, dict) and "requested_rate" in load:
        return STAGE
    return SUMMARY


def stage_number(file_name: str) -> int | None:
    match = re.search(r"stage_(\d+)_", file_name)
    return int(match.group(1)) if match else None


def _number(value: Any, where: str, *, allow_none: bool = True) -> float | None:
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise LoadPointProblem(f"{where} is not a number (got {value!r})")
    if math.isnan(value) or math.isinf(value):
        raise LoadPointProblem(f"{where} is not finite (got {value!r})")
    return float(value)


def _count(value: Any, where: str) -> int:
    number = _number(value if value is not None else 0, where)
    if number is None or number < 0 or number != int(number):
        raise LoadPointProblem(f"{where} is not a whole non-negative count (got {value!r})")
    return int(number)


def _section(payload: dict, key: str) -> dict:
    section = payload.get(key)
    if section is None:
        return {}
    if not isinstance(section, dict):
        raise LoadPointProblem(f"{key} is a {type(section).__name__}, expected an object")
    return section


def stage_to_load_point(payload: dict, *, load_kind: str) -> dict[str, Any]:
    """One stage report as a load-point row (without run_id, index and provenance)."""
    load = _section(payload, "load_summary")
    successes = _section(payload, "successes")
    failures = _section(payload, "failures")
    latency = successes.get("latency") or {}
    throughput = successes.get("throughput") or {}
    if not isinstance(latency, dict) or not isinstance(throughput, dict):
        raise LoadPointProblem("successes.latency / successes.throughput must be objects")

    ok = _count(successes.get("count"), "successes.count")
    failed = _count(failures.get("count"), "failures.count")
    sent = _count(load.get("count", ok + failed), "load_summary.count")
    duration = _number(load.get("send_duration"), "load_summary.send_duration")
    achieved = _number(throughput.get("requests_per_sec"), "successes.throughput.requests_per_sec")
    if achieved is None:
        if ok and duration:
            achieved = ok / duration
        elif ok == 0:
            achieved = 0.0
        else:
            raise LoadPointProblem("no successes.throughput.requests_per_sec and no send_duration to derive it")

    row: dict[str, Any] = {
        "load_kind": load_kind,
        "offered_rate_per_s": _number(load.get("requested_rate"), "load_summary.requested_rate")
        if load_kind == "rate" else None,
        "concurrency": _number(load.get("concurrency"), "load_summary.concurrency")
        if load_kind == "concurrency" else None,
        "sent_rate_per_s": _number(load.get("achieved_rate"), "load_summary.achieved_rate"),
        "achieved_requests_per_s": achieved,
        "requests_sent": sent,
        "requests_ok": ok,
        "requests_failed": failed,
        "error_rate": failed / (ok + failed) if ok + failed else 0.0,
        "duration_s": duration,
    }
    for short, long_name in _METRICS.items():
        stats = latency.get(long_name) or {}
        if not isinstance(stats, dict):
            raise LoadPointProblem(f"successes.latency.{long_name} is not an object")
        for pct, keys in _PERCENTILE_KEYS.items():
            seconds = next((stats[k] for k in keys if k in stats), None)
            value = _number(seconds, f"successes.latency.{long_name}.{keys[0]}")
            row[f"{short}_{pct}_ms"] = None if value is None else value * 1000.0
    for column, key in (("input_tokens_per_s", "input_tokens_per_sec"),
                        ("output_tokens_per_s", "output_tokens_per_sec"),
                        ("total_tokens_per_s", "total_tokens_per_sec")):
        row[column] = _number(throughput.get(key), f"successes.throughput.{key}")
    for column, key in (("mean_input_tokens", "prompt_len"), ("mean_output_tokens", "output_len")):
        stats = successes.get(key) or {}
        row[column] = _number(stats.get("mean") if isinstance(stats, dict) else stats, f"successes.{key}.mean")
    row["percentile_source"] = "tool_aggregate"
    row["tool_definitions"] = TOOL_DEFINITIONS
    return row
