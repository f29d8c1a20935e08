"""NVIDIA AIPerf (`ai-dynamo/aiperf`) exports, and GenAI-Perf's `profile_export_genai_perf.json`.

One AIPerf run is one load level: `profile_export_aiperf.json` (per metric
{unit, avg, p1 ... p99, min, max, std}; metrics added in 0.12 carry only p50/p90/p95/p99; plus `aiperf_version`,
`schema_version` and `input_config`) and `profile_export.jsonl` (one line
per request: `metadata.benchmark_phase` warmup/profiling, `request_start_ns`/`request_end_ns`
epoch ns, `was_cancelled`; `metrics.<name>.value` in ms or tokens; `error` or nothing). The files of one
folder are merged into one measurement. `profile_export_aiperf.csv` (CRLF; a `Metric,avg,min,max,sum,p1..p99,std`
table, a blank line, a `Metric,Value` table; values rounded to 2 decimals; no version, no load level) is skipped
beside the JSON (the same numbers) and read where it is the only aggregate (by aiperf_csv.py). The load level is in
`input_config`: before 0.10 `loadgen.concurrency`/`request_rate`; from 0.10 a list (or a mapping by name) of
`phases`, the measured one `kind: profiling` (0.12) or, where phases have no `kind` (0.10, 0.11), the one named
`profiling` / not `exclude_from_results`; its `type` says concurrency or rate. A `fixed_schedule` phase (before 0.10
`input.fixed_schedule: true`) replays the input file's timestamps: an open-loop rate level whose rate the export does
not state (it echoes the input file's path, not its timestamps), so it is taken from the send times of the records
beside the aggregate (`replay_send_rate`). GenAI-Perf writes the same aggregate
shape (`profile_export_genai_perf.json`); its raw `profile_export.json` (perf_analyzer timestamps with no
token counts) is recognised and not used.

AIPerf's `inter_token_latency` is per request (E2E - TTFT) / (output tokens - 1) and its
percentiles are over requests: that is our TPOT. `inter_chunk_latency` pools chunk gaps (a chunk
is not always a token): kept as a tool metric, not as our ITL.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePath
from typing import Any

import duckdb
import polars as pl

from assets.core.sqltext import sql_path_literal
from assets.formats.dumps.aiperf_csv import FOLDER_LEVEL_NOTE, csv_measurement, is_aggregate_csv
from assets.formats.dumps.exchange import REQUEST_RANGES, Dump, FormatProblem, Measurement, Parsed, RequestScan
from assets.formats.dumps.tabular import csv_beside_its_json
from assets.formats.dumps.values import count, empty_point, number, stats_metrics
from assets.inputs.files import read_whole
from assets.inputs.textinput import UTF8_BOM

TOOL = "aiperf"
AGGREGATE = "aiperf profile_export_aiperf.json"
AGGREGATE_CSV = "aiperf profile_export_aiperf.csv"
AGGREGATE_CSV_BESIDE_JSON = "aiperf profile_export_aiperf.csv beside its JSON"
RECORDS = "aiperf profile_export.jsonl"
GENAI_PERF = "genai-perf profile_export_genai_perf.json"
GENAI_PERF_RAW = "genai-perf profile_export.json (perf_analyzer raw)"
FORMATS = (AGGREGATE, AGGREGATE_CSV, AGGREGATE_CSV_BESIDE_JSON, RECORDS, GENAI_PERF, GENAI_PERF_RAW)
SKIPPED = {
    GENAI_PERF_RAW: "raw perf_analyzer timestamps without token counts; the aggregate file is read",
    AGGREGATE_CSV_BESIDE_JSON: "the same numbers as the profile_export_aiperf.json beside it (which is read), "
    "rounded to 2 decimals",
}
READ_IN_PLACE = frozenset({RECORDS})
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
    if payload is None and is_aggregate_csv(dump):
        # the JSON of the same export (default `profile_export_aiperf`, or the name given by --profile-export-prefix)
        return AGGREGATE_CSV_BESIDE_JSON if csv_beside_its_json(dump) else AGGREGATE_CSV
    if dump.json_lines:
        if payload and all(
            isinstance(p, dict)
            and isinstance(p.get("metadata"), dict)
            and "metrics" in p
            and "request_start_ns" in p["metadata"]
            for p in payload[:5]
        ):
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


def measured_phase(config: dict) -> dict | None:
    """The profiling phase of `input_config.phases` (AIPerf >= 0.10), or None when there are no phases.

    0.12 marks it `kind: profiling`; 0.10 and 0.11 write phases without `kind`: there it is the phase named
    `profiling`, else the one phase not `exclude_from_results`. `phases` is a list of phases with a `name`, or a
    mapping from name to phase. FormatProblem when several phases could be the measured one."""
    raw = config.get("phases")
    if not raw:
        return None
    if isinstance(raw, dict):
        phases = [{"name": name, **p} for name, p in raw.items() if isinstance(p, dict)]
    elif isinstance(raw, list):
        phases = [p for p in raw if isinstance(p, dict)]
    else:
        raise FormatProblem(f"input_config.phases is a {type(raw).__name__}, expected a list or a mapping")
    for rule in (
        lambda p: p.get("kind") == "profiling",
        lambda p: "kind" not in p and p.get("name") == "profiling",
        lambda p: "kind" not in p and not p.get("exclude_from_results"),
    ):
        chosen = [p for p in phases if rule(p)]
        if len(chosen) == 1:
            return chosen[0]
        if len(chosen) > 1:
            names = [p.get("name") for p in chosen]
            raise FormatProblem(f"input_config.phases has several measured phases {names}; cannot tell the load level")
    raise FormatProblem("input_config.phases has no profiling phase (kind or name profiling, or not excluded)")


_RATE_TYPES = frozenset({"request_rate", "rate", "constant", "poisson", "gamma"})


def trace_replay(config: dict) -> bool:
    """Whether the measured phase replays the input file's timestamps: a `fixed_schedule` phase (AIPerf >= 0.10),
    or `input.fixed_schedule: true` before (where `loadgen.concurrency` is then no load level)."""
    phase = measured_phase(config)
    if phase is not None:
        return phase.get("type") == "fixed_schedule"
    return _object(config.get("input")).get("fixed_schedule") is True


def load_level(config: dict) -> tuple[str | None, float | None, float | None]:
    """From `input_config`: AIPerf >= 0.10's measured phase (`measured_phase`: its `type` says concurrency or rate);
    older AIPerf and GenAI-Perf have `loadgen`/top-level `concurrency`, `request_rate`. A trace replay is a rate
    level whose rate `input_config` does not state (None: `replay_send_rate` gives it)."""
    if trace_replay(config):
        return "rate", None, None
    phase = measured_phase(config)
    if phase is not None:
        kind = str(phase.get("type") or "")
        if kind == "concurrency":
            return "concurrency", None, number(phase.get("concurrency"), "profiling phase concurrency")
        if kind in _RATE_TYPES:
            return "rate", number(phase.get("rate", phase.get("request_rate")), "profiling phase rate"), None
    sources = ([phase] if phase is not None else []) + [config.get("loadgen") or {}, config]
    for source in sources:
        rate = source.get("rate", source.get("request_rate"))
        if isinstance(rate, (int, float)) and rate > 0:
            return "rate", float(rate), None
        concurrency = source.get("concurrency")
        if isinstance(concurrency, (int, float)) and concurrency > 0:
            return "concurrency", None, float(concurrency)
    return None, None, None


def _object(value: Any) -> dict:
    """`value` when it is an object, else {} (a setting written another way says nothing about the workload)."""
    return value if isinstance(value, dict) else {}


# GenAI-Perf's flat input_config keys that describe what was sent.
_GENAI_PERF_WORKLOAD = re.compile(
    r"^(synthetic_input_tokens|output_tokens)_(mean|stddev)$|^(num_prompts|request_count)$"
)


def workload(config: dict) -> dict[str, Any]:
    """What was sent, as `input_config` states it: model names, endpoint type and extra inputs, the datasets (or
    the synthetic prompt spec before 0.10; GenAI-Perf's flat token settings) and the measured phase's request
    count or duration."""
    models = config.get("models", config.get("model"))  # AIPerf {items: [{name}]}, GenAI-Perf [name]
    items = models.get("items") if isinstance(models, dict) else models
    names = [m.get("name") if isinstance(m, dict) else m for m in items] if isinstance(items, list) else None
    endpoint = _object(config.get("endpoint"))
    phase = measured_phase(config) or _object(config.get("loadgen"))
    stated = {
        "model": names,
        "endpoint_type": endpoint.get("type", config.get("endpoint_type")),
        "streaming": endpoint.get("streaming", config.get("streaming")),
        "extra_inputs": endpoint.get("extra"),
        "datasets": config.get("datasets") or _object(config.get("input")),
        "requests": phase.get("requests", phase.get("request_count")),
        "duration_s": phase.get("duration", phase.get("benchmark_duration")),
        **{k: v for k, v in config.items() if _GENAI_PERF_WORKLOAD.match(k)},
    }
    return {k: v for k, v in stated.items() if v not in (None, "", [], {})}


def parse(dump: Dump, kind: str) -> Parsed:
    parsed = Parsed(
        kind=kind, tool="genai-perf" if kind in (GENAI_PERF, GENAI_PERF_RAW) else TOOL, definitions=DEFINITIONS
    )
    try:
        if kind == RECORDS:
            parsed.measurements.append(
                Measurement(location="records", requests=records_scan(dump), merge_key=MERGE_KEY)
            )
        elif kind == AGGREGATE_CSV:
            measurement = csv_measurement(dump)
            measurement.merge_key = MERGE_KEY
            if measurement.concurrency is not None:
                parsed.note = FOLDER_LEVEL_NOTE
            parsed.measurements.append(measurement)
        else:
            version = dump.payload.get("aiperf_version")
            parsed.tool_version = None if version is None else str(version)
            measurement = aggregate_measurement(dump.payload)
            if trace_replay(_object(dump.payload.get("input_config"))):
                measurement.offered_rate_per_s, parsed.note = replay_send_rate(dump)
            parsed.measurements.append(measurement)
    except (FormatProblem, pl.exceptions.PolarsError) as problem:
        parsed.problems.append(("file", str(problem)))
    return parsed


def aggregate_measurement(payload: dict) -> Measurement:
    config = payload.get("input_config") or {}
    if not isinstance(config, dict):
        raise FormatProblem(f"input_config is a {type(config).__name__}, expected an object")
    load_kind, rate, concurrency = load_level(config)
    ok = count(_avg(payload, "request_count"), "request_count.avg")
    failed = (
        count(_avg(payload, "error_request_count"), "error_request_count.avg")
        if "error_request_count" in payload
        else sum(count(e.get("count"), "error_summary.count") for e in payload.get("error_summary") or [])
    )
    duration = _avg(payload, "benchmark_duration")
    input_rate = _avg(payload, "input_token_throughput")
    total_isl = _avg(payload, "total_isl")
    if input_rate is None and duration and total_isl is not None:
        input_rate = total_isl / duration  # 0.10 states the total, not the rate
    row = empty_point()
    row.update(
        achieved_requests_per_s=_avg(payload, "request_throughput"),
        requests_ok=ok,
        requests_failed=failed,
        requests_sent=ok + failed,
        duration_s=duration,
        output_tokens_per_s=_avg(payload, "output_token_throughput"),
        input_tokens_per_s=input_rate,
        total_tokens_per_s=_avg(payload, "total_token_throughput"),
        input_tokens_mean=_avg(payload, "input_sequence_length"),
        output_tokens_mean=_avg(payload, "output_sequence_length"),
    )
    metrics = []
    for measure, name in _OURS.items():
        stats = payload.get(name) or {}
        if stats.get("unit") not in (None, "ms"):
            raise FormatProblem(f"{name}.unit is {stats.get('unit')!r}, expected ms")
        for pct, keys in _PCT.items():
            value = number(next((stats[k] for k in keys if k in stats), None), f"{name}.{pct}")
            row[f"{measure}_{pct}_ms"] = value
    for name, stats in payload.items():
        # every metric as the file has it (0.12's new ones carry only p50..p99: those are the rows there are)
        if isinstance(stats, dict) and "unit" in stats and isinstance(stats["unit"], str):
            metrics += stats_metrics(name, {k: v for k, v in stats.items() if k != "unit"}, stats["unit"])
    return Measurement(
        location="aggregate",
        load_kind=load_kind,
        offered_rate_per_s=rate,
        concurrency=concurrency,
        values=row,
        tool_metrics=metrics,
        merge_key=MERGE_KEY,
        workload=workload(config),
    )


def records_beside(aggregate_name: str) -> str:
    """The per-request records' file name beside an aggregate: `profile_export.jsonl`, or `<base>.jsonl` beside
    `<base>.json` (AIPerf's `--profile-export-prefix`)."""
    stem = PurePath(aggregate_name).stem
    return "profile_export.jsonl" if stem == "profile_export_aiperf" else f"{stem}.jsonl"


_SEND_TIMES = (
    "SELECT count(*), count(metadata.credit_issued_ns), min(metadata.credit_issued_ns), "
    "max(metadata.credit_issued_ns), min(metadata.request_start_ns), max(metadata.request_start_ns) "
    "FROM read_ndjson({path}, columns = {{metadata: 'STRUCT(credit_issued_ns BIGINT, request_start_ns BIGINT, "
    "benchmark_phase VARCHAR)'}}) WHERE metadata.benchmark_phase IS DISTINCT FROM 'warmup'"
)


def replay_send_rate(dump: Dump) -> tuple[float | None, str]:
    """A trace replay's offered rate and where it came from (the file's note). The export does not echo the
    schedule's timestamps, so: measured requests sent in the records beside the aggregate, (n - 1) / span of their
    send times, `credit_issued_ns` (when the scheduler released each request) where every record has it, else
    `request_start_ns`. None, and the note says why, when the records are not beside it or give no span."""
    replay = "fixed-schedule trace replay (the export states no rate, nor the schedule's timestamps)"
    name = records_beside(dump.name)
    if not dump.beside(name):
        return None, f"{replay}: offered rate unknown, no {name} beside it on disk to take the send times from"
    path = Path(str(dump.path)).parent / name
    try:
        with duckdb.connect() as conn:
            row = conn.execute(_SEND_TIMES.format(path=sql_path_literal(str(path)))).fetchone()
    except duckdb.Error as exc:
        return None, f"{replay}: offered rate unknown, {path} cannot be read: {str(exc).splitlines()[0]}"
    assert row is not None
    sent, issued, first_issued, last_issued, first_start, last_start = row
    column, first, last = (
        ("credit_issued_ns", first_issued, last_issued)
        if issued == sent
        else ("request_start_ns", first_start, last_start)
    )
    span_s = (last - first) / 1e9 if sent >= 2 and first is not None and last is not None else 0.0
    rate = (sent - 1) / span_s if span_s > 0 else None
    if rate is None or not REQUEST_RANGES["offered_rate_per_s"][0] < rate < REQUEST_RANGES["offered_rate_per_s"][1]:
        return None, f"{replay}: offered rate unknown, {sent} measured requests in {name} give no span of send times"
    return rate, (
        f"{replay}: offered rate {rate:.6g} requests/s = (requests sent - 1) / span of their {column} in {name} "
        f"({sent} measured requests over {span_s:.6g} s)"
    )


def _record_columns(number: str) -> str:
    """The fields we use, declared (DuckDB skips the rest of each line without building it); numbers as
    `number` (DOUBLE, or VARCHAR to read a line whose number is a word: it is then checked and quarantined)."""
    return (
        f"{{metadata: 'STRUCT(request_start_ns {'BIGINT' if number == 'DOUBLE' else number}, "
        f"benchmark_phase VARCHAR, was_cancelled BOOLEAN)', "
        f"metrics: 'STRUCT(time_to_first_token STRUCT(value {number}), request_latency STRUCT(value {number}), "
        f"input_sequence_length STRUCT(value {number}), output_sequence_length STRUCT(value {number}))', "
        f"error: 'JSON'}}"
    )


def records_scan(dump: Dump) -> RequestScan:
    """The request lines as DuckDB reads them in place: warm-up marked by `benchmark_phase`, failed by
    `error`, cancelled by `was_cancelled`; epoch-ns start times; numbers as written (checked row by row:
    `checked_scan_sql`). DuckDB does not read a byte-order mark: such a file is read from a copy without it
    (and its records stored)."""
    path = dump.path or dump.name
    data = None if dump.path else dump.data
    if dump.data.startswith(UTF8_BOM):
        whole = read_whole(Path(dump.path)) if dump.path and dump.tail is not None else dump.data
        data = whole.removeprefix(UTF8_BOM)

    def select(number: str) -> str:
        return (
            "SELECT ordinality AS ordinal, "
            "CASE WHEN metadata.benchmark_phase = 'warmup' THEN 'warmup' ELSE 'measure' END AS phase, "
            "CASE WHEN coalesce(metadata.was_cancelled, false) THEN 'cancelled' "
            "     WHEN error IS NOT NULL THEN 'error' ELSE 'ok' END AS status, "
            "metadata.request_start_ns AS start_s, "
            "metrics.input_sequence_length.value AS input_tokens, "
            "metrics.output_sequence_length.value AS output_tokens, "
            "metrics.time_to_first_token.value AS ttft_ms, metrics.request_latency.value AS e2e_ms, "
            "json_extract_string(error, '$.message') AS error, "
            "NULL::DOUBLE AS offered_rate_per_s, NULL::DOUBLE AS concurrency "
            f"FROM read_ndjson({sql_path_literal(path)}, columns = {_record_columns(number)}) WITH ORDINALITY"
        )

    return RequestScan(
        path=path,
        select=select("DOUBLE"),
        data=data,
        tolerant_select=select("VARCHAR"),
        start_column="start_time_unix_s",
        start_units_per_s=1e9,
        row_word="line",
        row_offset=0,
    )
