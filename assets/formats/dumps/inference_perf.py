"""kubernetes-sigs/inference-perf reports.

A report folder holds `stage_N_lifecycle_metrics.json` (one load level each),
`summary_lifecycle_metrics.json` (all stages together, not a load level), `*_prometheus_metrics.json`
(server-side, listed not used) and, with `report.request_lifecycle.per_request`,
`per_request_lifecycle_metrics.json` (a list of requests: `start_time`/`end_time` on the
monotonic perf_counter clock, `info.response_metrics.output_token_times`, `error`). Stage files
are in seconds. inference-perf's `time_per_output_token` is (E2E - TTFT) / (output tokens - 1) per
request and its `inter_token_latency` pools every gap: both are ours. The reports do not state the
inference-perf version (none of the stage, summary, Prometheus or per-request files has it): `Parsed.tool_version`
stays None and run.yaml's `tool_version` says it.
"""

from __future__ import annotations

import re
from functools import partial
from pathlib import PurePath
from typing import Any

from assets.formats.dumps.exchange import Dump, FormatProblem, Measurement, Parsed
from assets.formats.dumps.values import count, empty_point, fill_ours, number, requests_frame, section, stats_metrics

TOOL = "inference-perf"
STAGE = "inference-perf lifecycle stage"
SUMMARY = "inference-perf lifecycle summary"
PROMETHEUS = "inference-perf prometheus metrics"
PER_REQUEST = "inference-perf per-request lifecycle"
FORMATS = (STAGE, SUMMARY, PROMETHEUS, PER_REQUEST)
SKIPPED = {PROMETHEUS: "server-side Prometheus metrics are not used yet"}
READ_IN_PLACE = frozenset[str]()
SUMMARY_NOTE = "whole-run aggregate over all stages; not a load level"  # read, and listed with this note

DEFINITIONS = (
    "inference-perf: TTFT = time_to_first_token, send to first token; TPOT = time_per_output_token = "
    "(E2E - TTFT) / (output tokens - 1) per request (ours); ITL = inter_token_latency, every chunk gap pooled "
    "(ours); E2E = request_latency; NTPOT = normalized_time_per_output_token = E2E / output tokens (not ours); "
    "percentiles by the tool over successful requests; seconds converted to ms"
)

_PERCENTILE_KEYS = {"p50": ("median", "p50"), "p90": ("p90",), "p95": ("p95",), "p99": ("p99",)}
_OURS = {
    "ttft": "time_to_first_token",
    "tpot": "time_per_output_token",
    "itl": "inter_token_latency",
    "e2e": "request_latency",
}


def recognise(dump: Dump) -> str | None:
    payload = dump.payload
    if dump.json_lines:
        return None
    if isinstance(payload, list) and payload and all(isinstance(p, dict) for p in payload[:5]):
        first = payload[0]
        if {"start_time", "end_time", "info"} <= first.keys() and ("request_data" in first or "request" in first):
            return PER_REQUEST
        return None
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


def parse(dump: Dump, kind: str) -> Parsed:
    parsed = Parsed(kind=kind, tool=TOOL, definitions=DEFINITIONS)
    if kind == STAGE:
        try:
            parsed.measurements.append(stage_measurement(dump.payload, PurePath(dump.name).name))
        except FormatProblem as problem:
            parsed.problems.append(("stage file", str(problem)))
    elif kind == PER_REQUEST:
        per_request_measurements(dump.payload, parsed)
    elif kind == SUMMARY:
        parsed.note = SUMMARY_NOTE
    return parsed


def stage_measurement(payload: dict, file_name: str) -> Measurement:
    """One stage report as a measurement (seconds -> ms)."""
    load = section(payload, "load_summary")
    successes = section(payload, "successes")
    failures = section(payload, "failures")
    latency = successes.get("latency") or {}
    throughput = successes.get("throughput") or {}
    if not isinstance(latency, dict) or not isinstance(throughput, dict):
        raise FormatProblem("successes.latency / successes.throughput must be objects")
    ok = count(successes.get("count"), "successes.count")
    failed = count(failures.get("count"), "failures.count")
    sent = count(load.get("count", ok + failed), "load_summary.count")
    duration = number(load.get("send_duration"), "load_summary.send_duration")
    achieved = number(throughput.get("requests_per_sec"), "successes.throughput.requests_per_sec")
    if achieved is None:
        if ok and duration:
            achieved = ok / duration
        elif ok == 0:
            achieved = 0.0
        else:
            raise FormatProblem("no successes.throughput.requests_per_sec and no send_duration to derive it")
    row = empty_point()
    row.update(
        sent_requests_per_s=number(load.get("achieved_rate"), "load_summary.achieved_rate"),
        achieved_requests_per_s=achieved,
        requests_sent=sent,
        requests_ok=ok,
        requests_failed=failed,
        duration_s=duration,
    )
    metrics: list[tuple[str, str, float, str]] = []
    for measure, name in _OURS.items():
        stats = latency.get(name) or {}
        if not isinstance(stats, dict):
            raise FormatProblem(f"successes.latency.{name} is not an object")
        fill_ours(row, measure, stats, _PERCENTILE_KEYS, 1000.0, f"successes.latency.{name}")
    for name, stats in latency.items():
        if isinstance(stats, dict):
            metrics += stats_metrics(name, stats, "ms", 1000.0)
    for column, key in (
        ("input_tokens_per_s", "input_tokens_per_sec"),
        ("output_tokens_per_s", "output_tokens_per_sec"),
        ("total_tokens_per_s", "total_tokens_per_sec"),
    ):
        row[column] = number(throughput.get(key), f"successes.throughput.{key}")
    for column, key in (("input_tokens_mean", "prompt_len"), ("output_tokens_mean", "output_len")):
        stats = successes.get(key) or {}
        row[column] = number(stats.get("mean") if isinstance(stats, dict) else stats, f"successes.{key}.mean")
    stage = stage_number(file_name)
    return Measurement(
        location="stage file",
        offered_rate_per_s=number(load.get("requested_rate"), "load_summary.requested_rate"),
        values=row,
        tool_metrics=metrics,
        merge_key=None if stage is None else f"stage {stage}",
    )


def _first(*values: Any) -> Any:
    return next((v for v in values if v is not None), None)


def _request_named(ids: list[int], position: int) -> str:
    return f"request {ids[position]}"


def per_request_measurements(entries: list[dict], parsed: Parsed) -> None:
    """Requests grouped by `stage_id`; each group merges with its stage_N file (same folder)."""
    by_stage: dict[int, dict[str, list]] = {}
    for i, entry in enumerate(entries):
        where = f"request {i}"
        try:
            if not isinstance(entry, dict):
                raise FormatProblem(f"is a {type(entry).__name__}, expected an object")
            stage = entry.get("stage_id")
            if stage is None:
                raise FormatProblem("no stage_id (written by inference-perf >= 0.3); cannot tell its load level")
            stage = count(stage, f"{where}.stage_id")
            start = number(entry.get("start_time"), f"{where}.start_time", allow_none=False)
            end = number(entry.get("end_time"), f"{where}.end_time", allow_none=False)
            info = entry.get("info") or {}
            response = info.get("response_metrics") or {}
            request_metrics = info.get("request_metrics") or {}
            token_times = response.get("output_token_times") or response.get("chunk_times") or []
            output_tokens = _first(response.get("output_tokens"), info.get("output_tokens"))
            input_tokens = _first((request_metrics.get("text") or {}).get("input_tokens"), info.get("input_tokens"))
            error = entry.get("error")
            first_token = number(token_times[0], f"{where} first output_token_times") if token_times else None
        except (FormatProblem, AttributeError, TypeError) as problem:
            parsed.problems.append((where, str(problem)))
            continue
        cols = by_stage.setdefault(
            stage,
            {
                k: []
                for k in (
                    "request_index",
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
            },
        )
        cols["request_index"].append(i)
        cols["status"].append("error" if error else "ok")
        cols["start"].append(start)
        cols["input_tokens"].append(input_tokens)
        cols["output_tokens"].append(output_tokens)
        cols["ttft_ms"].append((first_token - start) * 1000.0 if first_token is not None and not error else None)
        cols["e2e_ms"].append((end - start) * 1000.0)
        cols["error"].append(
            None
            if not error
            else (f"{error.get('error_type')}: {error.get('error_msg')}" if isinstance(error, dict) else str(error))
        )
        cols["prompt_text"].append(entry.get("request_data"))
        cols["response_text"].append(entry.get("response_data"))
    for stage, cols in sorted(by_stage.items()):
        first = min(cols["start"])
        try:
            frame = requests_frame(
                {
                    "request_index": cols["request_index"],
                    "phase": "measure",
                    "status": cols["status"],
                    "start_offset_s": [s - first for s in cols["start"]],
                    "input_tokens": cols["input_tokens"],
                    "output_tokens": cols["output_tokens"],
                    "ttft_ms": cols["ttft_ms"],
                    "e2e_ms": cols["e2e_ms"],
                    "error": cols["error"],
                    "prompt_text": cols["prompt_text"],
                    "response_text": cols["response_text"],
                },
                row=partial(_request_named, cols["request_index"]),
            )
        except FormatProblem as problem:
            parsed.problems.append((f"stage_id {stage}", str(problem)))
            continue
        parsed.measurements.append(
            Measurement(location=f"stage_id {stage}", requests=frame, merge_key=f"stage {stage}")
        )
