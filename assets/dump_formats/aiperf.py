"""NVIDIA AIPerf (`ai-dynamo/aiperf`) exports, and GenAI-Perf's `profile_export_genai_perf.json`.

One AIPerf run is one load level: `profile_export_aiperf.json` (per metric
{unit, avg, p1 ... p99, min, max, std}, plus `input_config`) and `profile_export.jsonl` (one line
per request: `metadata.benchmark_phase` warmup/profiling, `request_start_ns`/`request_end_ns`
epoch ns, `was_cancelled`; `metrics.<name>.value` in ms or tokens; `error` or nothing). The two
files of one folder are merged into one measurement. GenAI-Perf writes the same aggregate shape
(`profile_export_genai_perf.json`); its raw `profile_export.json` (perf_analyzer timestamps with no
token counts) is recognised and not used.

AIPerf's `inter_token_latency` is per request (E2E - TTFT) / (output tokens - 1) and its
percentiles are over requests: that is our TPOT. `inter_chunk_latency` pools chunk gaps (a chunk
is not always a token): kept as a tool metric, not as our ITL.
"""

from __future__ import annotations

import io

import polars as pl

from assets.dump_formats import (
    Dump,
    FormatProblem,
    Measurement,
    Parsed,
    count,
    empty_point,
    number,
    requests_frame,
    stats_metrics,
)
from assets.textinput import UTF8_BOM

TOOL = "aiperf"
AGGREGATE = "aiperf profile_export_aiperf.json"
RECORDS = "aiperf profile_export.jsonl"
GENAI_PERF = "genai-perf profile_export_genai_perf.json"
GENAI_PERF_RAW = "genai-perf profile_export.json (perf_analyzer raw)"
FORMATS = (AGGREGATE, RECORDS, GENAI_PERF, GENAI_PERF_RAW)
NOT_LOAD_LEVELS = {GENAI_PERF_RAW: "raw perf_analyzer timestamps without token counts; the aggregate file is read"}
MERGE_KEY = "aiperf run"

DEFINITIONS = (
    "AIPerf/GenAI-Perf: TTFT = time_to_first_token (ours); inter_token_latency = per-request (E2E - TTFT) / "
    "(output tokens - 1), percentiles over requests = our TPOT; inter_chunk_latency = every chunk gap pooled "
    "(a chunk is not always one token: not our ITL); E2E = request_latency; ms; warm-up phase excluded by the tool"
)

_OURS = {"ttft": "time_to_first_token", "tpot": "inter_token_latency", "e2e": "request_latency"}
_PCT = {"p50": ("p50",), "p90": ("p90",), "p95": ("p95",), "p99": ("p99",)}


def _has_stats(payload: dict, name: str) -> bool:
    value = payload.get(name)
    return isinstance(value, dict) and "unit" in value and "avg" in value


def recognise(dump: Dump) -> str | None:
    payload = dump.payload
    if dump.json_lines:
        if payload and all(isinstance(p, dict) and isinstance(p.get("metadata"), dict) and "metrics" in p
                           and "request_start_ns" in p["metadata"] for p in payload[:5]):
            return RECORDS
        return None
    if not isinstance(payload, dict):
        return None
    if _has_stats(payload, "request_throughput") and _has_stats(payload, "time_to_first_token"):
        return AGGREGATE if ("aiperf_version" in payload or "schema_version" in payload) else GENAI_PERF
    if isinstance(payload.get("experiments"), list) and "service_kind" in payload:
        return GENAI_PERF_RAW
    return None


def _avg(payload: dict, name: str) -> float | None:
    value = payload.get(name)
    return number(value.get("avg"), f"{name}.avg") if isinstance(value, dict) else None


def load_level(config: dict) -> tuple[str | None, float | None, float | None]:
    """From `input_config`: AIPerf >= 0.10 lists `phases` (the profiling one carries `rate` or
    `concurrency`); older AIPerf and GenAI-Perf have `loadgen`/top-level `concurrency`, `request_rate`."""
    sources = [p for p in (config.get("phases") or []) if isinstance(p, dict) and p.get("kind") == "profiling"]
    sources += [config.get("loadgen") or {}, config]
    for source in sources:
        rate = source.get("rate", source.get("request_rate"))
        if isinstance(rate, (int, float)) and rate > 0:
            return "rate", float(rate), None
        concurrency = source.get("concurrency")
        if isinstance(concurrency, (int, float)) and concurrency > 0:
            return "concurrency", None, float(concurrency)
    return None, None, None


def parse(dump: Dump, kind: str) -> Parsed:
    parsed = Parsed(kind=kind, tool="genai-perf" if kind in (GENAI_PERF, GENAI_PERF_RAW) else TOOL,
                    definitions=DEFINITIONS)
    if kind in NOT_LOAD_LEVELS:
        parsed.note = NOT_LOAD_LEVELS[kind]
        return parsed
    try:
        if kind == RECORDS:
            parsed.measurements.append(Measurement(location="records", requests=records_frame(dump.data),
                                                   merge_key=MERGE_KEY))
        else:
            parsed.measurements.append(aggregate_measurement(dump.payload))
    except (FormatProblem, pl.exceptions.PolarsError) as problem:
        parsed.problems.append(("file", str(problem)))
    return parsed


def aggregate_measurement(payload: dict) -> Measurement:
    load_kind, rate, concurrency = load_level(payload.get("input_config") or {})
    ok = count(_avg(payload, "request_count"), "request_count.avg")
    failed = count(_avg(payload, "error_request_count"), "error_request_count.avg") \
        if "error_request_count" in payload else sum(count(e.get("count"), "error_summary.count")
                                                     for e in payload.get("error_summary") or [])
    duration = _avg(payload, "benchmark_duration")
    row = empty_point()
    row.update(
        achieved_requests_per_s=_avg(payload, "request_throughput"), requests_ok=ok, requests_failed=failed,
        requests_sent=ok + failed, duration_s=duration,
        output_tokens_per_s=_avg(payload, "output_token_throughput"),
        input_tokens_per_s=_avg(payload, "input_token_throughput"),
        total_tokens_per_s=_avg(payload, "total_token_throughput"),
        mean_input_tokens=_avg(payload, "input_sequence_length"),
        mean_output_tokens=_avg(payload, "output_sequence_length"),
    )
    metrics = []
    for measure, name in _OURS.items():
        stats = payload.get(name) or {}
        if stats.get("unit") not in (None, "ms"):
            raise FormatProblem(f"{name}.unit is {stats.get('unit')!r}, expected ms")
        for pct, keys in _PCT.items():
            value = number(next((stats[k] for k in keys if k in stats), None), f"{name}.{pct}")
            row[f"{measure}_{pct}_ms"] = value
    for name in ("time_to_first_token", "inter_token_latency", "inter_chunk_latency", "request_latency",
                 "time_to_second_token", "output_token_throughput_per_user", "goodput"):
        stats = payload.get(name)
        if isinstance(stats, dict):
            metrics += stats_metrics(name, {k: v for k, v in stats.items() if k not in ("unit", "count", "sum")},
                                     str(stats.get("unit") or ""))
    return Measurement(location="aggregate", load_kind=load_kind, offered_rate_per_s=rate, concurrency=concurrency,
                       values=row, tool_metrics=metrics, merge_key=MERGE_KEY)


def records_frame(data: bytes) -> pl.DataFrame:
    """The request lines as a request frame, read column-wise by polars (no per-line Python objects)."""
    raw = pl.read_ndjson(io.BytesIO(data.removeprefix(UTF8_BOM)), infer_schema_length=None)
    meta = raw.get_column("metadata").struct
    metrics = raw.get_column("metrics") if "metrics" in raw.columns else None

    def metric(name: str) -> pl.Series:
        if metrics is None or metrics.dtype == pl.Null or name not in metrics.struct.fields:
            return pl.Series([None] * raw.height, dtype=pl.Float64)
        return metrics.struct.field(name).struct.field("value").cast(pl.Float64)

    error = raw.get_column("error") if "error" in raw.columns else pl.Series([None] * raw.height)
    has_error = error.is_not_null() if error.dtype != pl.Null else pl.Series([False] * raw.height)
    error_text = (error.struct.field("message").cast(pl.String) if isinstance(error.dtype, pl.Struct)
                  else pl.Series([None] * raw.height, dtype=pl.String))
    cancelled = (meta.field("was_cancelled").fill_null(False) if "was_cancelled" in meta.fields
                 else pl.Series([False] * raw.height))
    start_s = meta.field("request_start_ns").cast(pl.Float64) / 1e9
    phase = meta.field("benchmark_phase").cast(pl.String)
    flags = pl.DataFrame({"cancelled": cancelled.cast(pl.Boolean), "failed": has_error.cast(pl.Boolean)})
    status = flags.select(pl.when(pl.col("cancelled")).then(pl.lit("cancelled"))
                          .when(pl.col("failed")).then(pl.lit("error")).otherwise(pl.lit("ok"))).to_series()
    return requests_frame({
        "request_index": list(range(raw.height)),
        "phase": phase.replace_strict({"warmup": "warmup", "profiling": "measure"}, default="measure"),
        "status": status,
        "start_time_unix_s": start_s,
        "start_offset_s": start_s - start_s.min(),
        "input_tokens": metric("input_sequence_length"),
        "output_tokens": metric("output_sequence_length"),
        "ttft_ms": metric("time_to_first_token"),
        "e2e_ms": metric("request_latency"),
        "error": error_text,
    }, row=lambda i: f"line {i + 1}")
