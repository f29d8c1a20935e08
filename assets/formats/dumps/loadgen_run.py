"""MLPerf LoadGen logs from runs on our own hardware: `mlperf_log_detail.txt` / `mlperf_log_summary.txt`.

The text is read by the benchmark side's parser (`assets.formats.mlperf.loadgen`); this module only turns one
LoadGen run into one load level. Server (and Interactive, whose log says Server) runs are open
loop with Poisson arrivals at `target_qps`; TTFT and TPOT percentiles are LoadGen's first-token
latency and time per output token, which MLPerf defines as ours ((latency - TTFT) / (output
tokens - 1)); E2E percentiles are LoadGen's per-sample latency. An Offline run has no latency to
hold to an SLO: it is kept as a load level whose latency columns are empty. The detail log and the
summary of one folder are one measurement (the detail log is read first and wins).
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from assets.formats.dumps.model import Dump, FormatProblem, Measurement, Parsed
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
        parsed.measurements.append(run_to_measurement(log, PurePath(dump.name).parent.as_posix()))
    except (loadgen.LoadgenError, FormatProblem) as problem:
        parsed.problems.append(("file", str(problem)))
    return parsed


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
    # Offline issues one query holding every sample: a query count says nothing about requests there.
    queries = conditions["query_count"] if scenario == "Server" else None
    tokens_per_s = conditions["tokens_per_s"]
    values.update(
        {
            "achieved_requests_per_s": completed,
            "requests_ok": None if queries is None else int(queries),
            "requests_failed": len(log.errors),
            "duration_s": None if not queries else queries / completed,
            "output_tokens_per_s": tokens_per_s,
            "mean_output_tokens": None if tokens_per_s is None else tokens_per_s / completed,
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
        )
        if value is not None
    ]
    return Measurement(
        location=f"LoadGen {scenario} run",
        load_kind="rate",
        offered_rate_per_s=conditions["target_qps"] if scenario == "Server" else None,
        values=values,
        tool_metrics=metrics,
        merge_key=f"loadgen:{folder}",
    )
