"""MLPerf LoadGen logs: `mlperf_log_detail.txt` and `mlperf_log_summary.txt`, and power samples.

Independent of where the files sit (an MLPerf submission tree or a LoadGen run on our own
hardware): callers hand in the text. The detail log is `:::MLLOG {json}` lines from v1.0 on, and
`"pid": 1, "tid": 2, "ts": 123ns : key : value` lines in v0.5; lines that are neither (git log
blocks, tool chatter) are skipped. The summary is `key : value` text; its labels are mapped onto
the detail log's keys so a run without a usable detail log still reads the same way.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from assets.inputs.textinput import CUT_LINE_REASON, cut_last_line

MLLOG_PREFIX = ":::MLLOG"
_V05_LINE = re.compile(r'^"pid":\s*\d+,\s*"tid":\s*\d+,\s*"ts":\s*\d+\s*ns\s*:\s*([\w.]+)\s*:\s*(.*)$')
LOADGEN_PERCENTILES = ("50.00", "90.00", "95.00", "97.00", "99.00", "99.90")
POWER_TIME_FORMAT = "%m-%d-%Y %H:%M:%S.%f"


class LoadgenError(ValueError):
    """A log that cannot be read as LoadGen output; the message says what was expected."""


@dataclass
class LoadgenLog:
    """The keys of one LoadGen run (first occurrence wins), with errors and warnings."""

    values: dict[str, Any] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    form: str = ""

    def get(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)

    def number(self, key: str) -> float | None:
        value = self.values.get(key)
        if isinstance(value, bool) or value is None:
            return None
        try:
            return float(value)
        except (TypeError, ValueError):
            return None

    def __contains__(self, key: str) -> bool:
        return key in self.values


def _value(raw: str) -> Any:
    raw = raw.strip()
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, ValueError):
        return raw


def parse_detail(text: str) -> LoadgenLog:
    """Keys of a `mlperf_log_detail.txt` (MLLOG JSON lines, or the v0.5 text form)."""
    log = LoadgenLog()
    for line in text.splitlines():
        line = line.strip()
        if line.startswith(MLLOG_PREFIX):
            try:
                event = json.loads(line[len(MLLOG_PREFIX) :])
            except (json.JSONDecodeError, RecursionError):
                continue
            if not isinstance(event, dict) or "key" not in event:
                continue
            key, value = str(event["key"]), event.get("value")
            meta = event.get("metadata") or {}
            if meta.get("is_error"):
                log.errors.append(f"{key}: {value}")
            elif meta.get("is_warning"):
                log.warnings.append(f"{key}: {value}")
            log.values.setdefault(key, value)
            log.form = log.form or "mllog"
            continue
        match = _V05_LINE.match(line)
        if match:
            key, value = match.group(1), _value(match.group(2))
            if key.startswith("error"):
                log.errors.append(f"{key}: {value}")
            log.values.setdefault(key, value)
            log.form = log.form or "v0.5 text"
    if not log.values:
        raise LoadgenError(
            "no LoadGen events found (expected ':::MLLOG {json}' lines, or the v0.5 "
            '\'"pid": N, "tid": N, "ts": Nns : key : value\' lines)'
        )
    return log


# Summary labels -> detail-log keys. Percentile labels are handled by patterns below.
_SUMMARY_KEYS = {
    "sut name": "sut_name",
    "scenario": "effective_scenario",
    "mode": "effective_test_mode",
    "result is": "result_validity",
    "samples per second": "result_samples_per_second",
    "tokens per second": "result_tokens_per_second",
    "tokens per second (inferred)": "result_inferred_tokens_per_second",
    "scheduled samples per second": "result_scheduled_samples_per_sec",
    "completed samples per second": "result_completed_samples_per_sec",
    "completed tokens per second": "result_completed_tokens_per_second",
    "completed tokens per second (inferred)": "result_inferred_completed_tokens_per_second",
    "samples per query": "effective_samples_per_query",
    "performance constraints satisfied": "result_perf_constraints_met",
    "min duration satisfied": "result_min_duration_met",
    "min queries satisfied": "result_min_queries_met",
    "early stopping satisfied": "early_stopping_met",
    "min latency (ns)": "result_min_latency_ns",
    "max latency (ns)": "result_max_latency_ns",
    "mean latency (ns)": "result_mean_latency_ns",
    "min first token latency (ns)": "result_first_token_min_latency_ns",
    "max first token latency (ns)": "result_first_token_max_latency_ns",
    "mean first token latency (ns)": "result_first_token_mean_latency_ns",
    "min time to output token (ns)": "result_time_to_output_token_min",
    "max time to output token (ns)": "result_time_to_output_token_max",
    "mean time to output token (ns)": "result_time_to_output_token_mean",
    "qps w/ loadgen overhead": "result_qps_with_loadgen_overhead",
    "qps w/o loadgen overhead": "result_qps_without_loadgen_overhead",
    "samples_per_query": "effective_samples_per_query",
    "target_qps": "effective_target_qps",
    "target_latency (ns)": "effective_target_latency_ns",
    "ttft_latency (ns)": "requested_server_ttft_latency",
    "tpot_latency (ns)": "requested_server_tpot_latency",
    "max_async_queries": "effective_max_async_queries",
    "min_duration (ms)": "effective_min_duration_ms",
    "max_duration (ms)": "effective_max_duration_ms",
    "min_query_count": "effective_min_query_count",
    "max_query_count": "effective_max_query_count",
    "performance_sample_count": "effective_performance_sample_count",
}
_SUMMARY_PATTERNS = [
    (re.compile(r"^(\d+(?:\.\d+)?)(?:th)? percentile latency \(ns\)$"), "result_{p}_percentile_latency_ns"),
    (
        re.compile(r"^(\d+(?:\.\d+)?)(?:th)? percentile first token latency \(ns\)$"),
        "result_first_token_{p}_percentile_latency_ns",
    ),
    (
        re.compile(r"^(\d+(?:\.\d+)?)(?:th)? percentile time to output token \(ns\)$"),
        "result_time_per_output_token_{p}_percentile_ns",
    ),
]
_EARLY_STOPPING = re.compile(r"early stopping (\d+(?:\.\d+)?)th percentile estimate$")


def _summary_key(label: str, per_query: bool) -> str | None:
    label = re.sub(r"\s+", " ", label.strip().lstrip("*").strip()).lower()
    if label in _SUMMARY_KEYS:
        return _SUMMARY_KEYS[label]
    for pattern, template in _SUMMARY_PATTERNS:
        match = pattern.match(label)
        if match:
            key = template.format(p=f"{float(match.group(1)):.2f}")
            if per_query and "first token" not in label and "output token" not in label:
                key = key.replace("_percentile_latency_ns", "_percentile_per_query_latency_ns")
            return key
    match = _EARLY_STOPPING.match(label)
    if match:
        return "early_stopping_latency_ss" if float(match.group(1)) < 99 else "early_stopping_latency_ms"
    return None


def parse_summary(text: str) -> LoadgenLog:
    """Keys of a `mlperf_log_summary.txt`, named as in the detail log (first occurrence wins)."""
    log = LoadgenLog(form="summary")
    if "MLPerf Results Summary" not in text:
        raise LoadgenError("not a LoadGen summary (expected a 'MLPerf Results Summary' header)")
    text, cut = cut_last_line(text)
    if cut is not None:  # `Samples per second: 12` may have been `12345.6`
        log.warnings.append(f"summary: {CUT_LINE_REASON}")
    per_query = False
    headline_done = False
    for line in text.splitlines():
        if line.strip().lower().startswith("per-query latency"):
            per_query = True
            continue
        if ":" not in line or line.strip().startswith("="):
            continue
        label, _sep, raw = line.partition(":")
        key = _summary_key(label, per_query)
        if key is None:
            continue
        value: Any = _value(raw)
        if isinstance(value, str) and value.lower() in ("yes", "no"):
            value = value.lower() == "yes"
        if key == "effective_scenario" and isinstance(value, str):
            value = value.replace(" ", "")
        # The headline percentile line (SingleStream/MultiStream) precedes the Additional Stats.
        if (
            not headline_done
            and key.endswith("percentile_latency_ns")
            and log.get("effective_scenario") == "MultiStream"
        ):
            key = key.replace("_percentile_latency_ns", "_percentile_per_query_latency_ns")
        if key == "result_validity":
            headline_done = True
        log.values.setdefault(key, value)
    if not log.values:
        raise LoadgenError("a LoadGen summary header but no 'key : value' lines")
    return log


def read_run(detail_text: str | None, summary_text: str | None) -> LoadgenLog:
    """One run from its detail log (preferred) and summary (fills keys the detail log lacks)."""
    if detail_text is None and summary_text is None:
        raise LoadgenError("neither mlperf_log_detail.txt nor mlperf_log_summary.txt was given")
    detail = parse_detail(detail_text) if detail_text is not None else None
    summary = parse_summary(summary_text) if summary_text is not None else None
    if detail is None:
        assert summary is not None  # one of the two was given
        return summary
    if summary is not None:
        for key, value in summary.values.items():
            detail.values.setdefault(key, value)
    return detail


def _ms(log: LoadgenLog, key: str) -> float | None:
    value = log.number(key)
    return None if value is None else value / 1e6


def conditions(log: LoadgenLog) -> dict[str, Any]:
    """The conditions a run was held to and the latency it showed, in ms (named for our tables).

    TTFT percentiles are LoadGen's first-token latencies; TPOT percentiles its time per output
    token. Limits of 0 (LoadGen's "none") are returned as None.
    """

    def limit_ms(*keys: str) -> float | None:
        for key in keys:
            value = _ms(log, key)
            if value:
                return value
        return None

    per_query = "result_99.00_percentile_per_query_latency_ns" in log
    out: dict[str, Any] = {
        "log_scenario": log.get("effective_scenario"),
        "test_mode": log.get("effective_test_mode"),
        "result_validity": log.get("result_validity"),
        "loadgen_version": log.get("loadgen_version"),
        "test_datetime": log.get("test_datetime"),
        "target_qps": log.number("effective_target_qps") or log.number("requested_server_target_qps"),
        "target_latency_ms": limit_ms("effective_target_latency_ns", "requested_server_target_latency_ns"),
        "target_latency_percentile": log.number("effective_target_latency_percentile"),
        "ttft_limit_ms": limit_ms("requested_server_ttft_latency"),
        "tpot_limit_ms": limit_ms("requested_server_tpot_latency"),
        "min_duration_ms": log.number("effective_min_duration_ms"),
        "min_query_count": log.number("effective_min_query_count"),
        "samples_per_query": log.number("effective_samples_per_query"),
        "query_count": log.number("result_query_count"),
        "overlatency_query_count": log.number("result_overlatency_query_count"),
        "samples_per_s": log.number("result_samples_per_second"),
        "scheduled_samples_per_s": log.number("result_scheduled_samples_per_sec"),
        "completed_samples_per_s": log.number("result_completed_samples_per_sec"),
        "tokens_per_s": log.number("result_tokens_per_second") or log.number("result_completed_tokens_per_second"),
        "latency_min_ms": _ms(log, "result_min_latency_ns"),
        "latency_mean_ms": _ms(log, "result_mean_latency_ns"),
        "latency_max_ms": _ms(log, "result_max_latency_ns"),
        "per_query_latency_p99_ms": _ms(log, "result_99.00_percentile_per_query_latency_ns") if per_query else None,
        "ttft_mean_ms": _ms(log, "result_first_token_mean_latency_ns"),
        "tpot_mean_ms": _ms(log, "result_time_to_output_token_mean"),
        "power_begin": log.get("power_begin"),
        "power_end": log.get("power_end"),
    }
    for p in LOADGEN_PERCENTILES:
        name = "p999" if p == "99.90" else f"p{int(float(p))}"
        out[f"latency_{name}_ms"] = _ms(log, f"result_{p}_percentile_latency_ns")
        out[f"ttft_{name}_ms"] = _ms(log, f"result_first_token_{p}_percentile_latency_ns")
        out[f"tpot_{name}_ms"] = _ms(log, f"result_time_per_output_token_{p}_percentile_ns")
    return out


# --- power samples (PTDaemon spl.txt), cut by LoadGen's power_begin / power_end ------------


@dataclass(frozen=True)
class PowerSample:
    at: dt.datetime
    watts: float


def parse_power_samples(text: str) -> Iterator[PowerSample]:
    """`Time,<MM-DD-YYYY HH:MM:SS.fff>,Watts,<W>,...` lines; other lines, and a last line without its
    newline (perhaps cut mid-number), are skipped."""
    for line in cut_last_line(text)[0].splitlines():
        parts = line.split(",")
        if len(parts) < 4 or parts[0] != "Time" or parts[2] != "Watts":
            continue
        try:
            yield PowerSample(dt.datetime.strptime(parts[1], POWER_TIME_FORMAT), float(parts[3]))
        except ValueError:
            continue


def average_power_w(samples: Iterable[PowerSample], begin: str, end: str) -> tuple[float, int]:
    """Mean of the positive samples strictly inside the run's power window, as the checker does;
    (watts, samples). LoadgenError when the window holds no sample."""
    try:
        start = dt.datetime.strptime(begin, POWER_TIME_FORMAT)
        stop = dt.datetime.strptime(end, POWER_TIME_FORMAT)
    except (TypeError, ValueError) as exc:
        raise LoadgenError(f"power window {begin!r} - {end!r} is not in {POWER_TIME_FORMAT!r}") from exc
    values = [s.watts for s in samples if start < s.at < stop and s.watts > 0]
    if not values:
        raise LoadgenError(f"no power sample falls inside the power window {begin} - {end}")
    return sum(values) / len(values), len(values)
