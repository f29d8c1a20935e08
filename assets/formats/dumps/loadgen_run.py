"""MLPerf LoadGen logs from runs on our own hardware: `mlperf_log_detail.txt` / `mlperf_log_summary.txt`.

The text is read by the benchmark side's parser (`assets.formats.mlperf.loadgen`); this module only turns one
LoadGen run into one load level. Server (and Interactive, whose log says Server) runs are open
loop with Poisson arrivals at `target_qps`; TTFT and TPOT percentiles are LoadGen's first-token
latency and time per output token, which MLPerf defines as ours ((latency - TTFT) / (output
tokens - 1)); E2E percentiles are LoadGen's per-sample latency. An Offline run has no latency to
hold to an SLO: it is kept as a load level whose latency columns are empty. The detail log and the
summary of one folder are one measurement (the detail log is read first and wins).

What the numbers are (LoadGen 4.0 and 5.1 logs read; the keys are the detail log's, the summary's labels map
onto them in `assets.formats.mlperf.loadgen`):
- requests: Server issues `result_query_count` queries of `generated_samples_per_query` samples (1); Offline
  one query holding every sample. Every issued sample completes in a performance run (LoadGen waits for each
  one and has no notion of a failed sample), so `requests_failed` is 0; LoadGen's own ERROR lines (LoadGen
  5.1 writes `error_runtime: IssueQueryThread 0 Ending early: Max query count reached` and still says VALID)
  are harness messages, kept as the tool metric `loadgen_errors`, never counted as failed requests.
- tokens: `result_completed_tokens_per_second` (Server) or `result_tokens_per_second` (Offline); never
  `result_token_throughput`, which LoadGen 5.1 writes as a reciprocal-scale figure (1.72611e-08 beside
  3358.54 completed tokens/s). Logs without token fields (LoadGen 4.0 SDXL) have no token figures.
- the version: `loadgen_version` of the detail log ("5.1.0 @ b9ed3c7fec" -> tool_version "5.1.0"); a
  summary alone does not state it.
- the workload: the scenario and the test settings LoadGen used (sample counts, minimum duration, query
  counts, latency limits): runs that differ there are different workloads, never repeats.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from assets.formats.dumps.exchange import Dump, FormatProblem, Measurement, Parsed
from assets.formats.dumps.values import empty_point
from assets.formats.mlperf import loadgen

TOOL = "mlperf-loadgen"
DETAIL = "mlperf loadgen detail log"
SUMMARY = "mlperf loadgen summary"
FORMATS = (DETAIL, SUMMARY)
SKIPPED: dict[str, str] = {}  # every format it recognises is read
READ_IN_PLACE = frozenset[str]()

DEFINITIONS = (
    "MLPerf LoadGen: TTFT = first-token latency; TPOT = time per output token, (latency - TTFT) / "
    "(output tokens - 1) per sample (ours); E2E = sample latency; percentiles computed by LoadGen over "
    "every sample of the run; ns converted to ms; Server scenario = Poisson arrivals at target_qps"
)
_PERCENTILES = {"p50": "p50", "p90": "p90", "p95": "p95", "p99": "p99"}
# The test settings that make a run's workload (detail-log key -> workload key); the summary's "Test Parameters
# Used" section maps onto the same keys.
WORKLOAD_KEYS = {
    "effective_scenario": "scenario",
    "effective_samples_per_query": "samples_per_query",
    "effective_performance_sample_count": "performance_sample_count",
    "qsl_reported_total_count": "dataset_sample_count",
    "effective_min_duration_ms": "min_duration_ms",
    "effective_max_duration_ms": "max_duration_ms",
    "effective_min_query_count": "min_query_count",
    "effective_max_query_count": "max_query_count",
    "requested_server_ttft_latency": "ttft_limit_ns",
    "requested_server_tpot_latency": "tpot_limit_ns",
    "effective_target_latency_ns": "target_latency_ns",
}


def recognise(dump: Dump) -> str | None:
    if dump.payload is not None:
        return None
    head = dump.text_head
    if loadgen.MLLOG_PREFIX in head:
        return DETAIL
    if "MLPerf Results Summary" in head:
        return SUMMARY
    return None


def parse(dump: Dump, kind: str) -> Parsed:
    parsed = Parsed(kind=kind, tool=TOOL, definitions=DEFINITIONS)
    text = dump.data.decode("utf-8-sig", errors="replace")
    try:
        log = loadgen.read_run(text if kind == DETAIL else None, text if kind == SUMMARY else None)
        parsed.tool_version = tool_version(log)
        parsed.measurements.append(run_to_measurement(log, PurePath(dump.name).parent.as_posix()))
    except (loadgen.LoadgenError, FormatProblem) as problem:
        parsed.problems.append(("file", str(problem)))
    return parsed


def tool_version(log: loadgen.LoadgenLog) -> str | None:
    """LoadGen's version as its log states it, without the build commit ("5.1.0 @ b9ed3c7fec" -> "5.1.0")."""
    raw = log.get("loadgen_version")
    if not isinstance(raw, str) or not raw.strip():
        return None
    return raw.split("@", 1)[0].strip() or None


def sample_count(log: loadgen.LoadgenLog) -> int | None:
    """Samples the run issued (and completed): queries x samples per query (the generated count first: with
    sample_concatenate_permutation LoadGen may change it and says so in the summary)."""
    queries = log.number("result_query_count")
    per_query = log.number("generated_samples_per_query") or log.number("effective_samples_per_query")
    if queries is None or per_query is None:
        return None
    return int(queries * per_query)


def run_to_measurement(log: loadgen.LoadgenLog, folder: str) -> Measurement:
    """One LoadGen run as one load level."""
    conditions = loadgen.conditions(log)
    scenario = conditions["log_scenario"]
    if scenario not in ("Server", "Offline"):
        raise FormatProblem(
            f"a LoadGen {scenario or 'unknown-scenario'} run: only Server (and Interactive) "
            "and Offline runs are load levels of a serving measurement"
        )
    if conditions["test_mode"] not in (None, "PerformanceOnly"):
        raise FormatProblem(f"a LoadGen {conditions['test_mode']} run, not a performance run")
    completed = conditions["completed_samples_per_s"] or conditions["samples_per_s"]
    if completed is None:
        raise FormatProblem(
            "no completed samples per second (result_completed_samples_per_sec or result_samples_per_second)"
        )
    values: dict[str, Any] = empty_point()
    samples = sample_count(log)
    tokens_per_s = conditions["tokens_per_s"]
    values.update(
        {
            "achieved_requests_per_s": completed,
            "requests_ok": samples,
            "requests_failed": None if samples is None else 0,  # LoadGen completes every sample it issues
            "duration_s": None if not samples else samples / completed,
            "output_tokens_per_s": tokens_per_s,
            "output_tokens_mean": None if tokens_per_s is None else tokens_per_s / completed,
        }
    )
    if scenario == "Server":
        for ours, theirs in _PERCENTILES.items():
            values[f"ttft_{ours}_ms"] = conditions[f"ttft_{theirs}_ms"]
            values[f"tpot_{ours}_ms"] = conditions[f"tpot_{theirs}_ms"]
            values[f"e2e_{ours}_ms"] = conditions[f"latency_{theirs}_ms"]
    metrics = [
        (name, "value", float(value), unit)
        for name, value, unit in (
            ("result_validity_is_valid", 1.0 if conditions["result_validity"] == "VALID" else 0.0, "bool"),
            ("target_qps", conditions["target_qps"], "queries/s"),
            ("ttft_limit", conditions["ttft_limit_ms"], "ms"),
            ("tpot_limit", conditions["tpot_limit_ms"], "ms"),
            ("overlatency_query_count", conditions["overlatency_query_count"], "queries"),
            ("loadgen_errors", log.number("num_errors") if "num_errors" in log else len(log.errors), "errors"),
        )
        if value is not None
    ]
    workload = {ours: log.get(theirs) for theirs, ours in WORKLOAD_KEYS.items() if log.get(theirs) is not None}
    return Measurement(
        location=f"LoadGen {scenario} run",
        load_kind="rate",
        offered_rate_per_s=conditions["target_qps"] if scenario == "Server" else None,
        values=values,
        tool_metrics=metrics,
        merge_key=f"loadgen:{folder}",
        workload=workload,
    )
