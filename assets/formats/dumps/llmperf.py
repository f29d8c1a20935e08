"""ray-project/llmperf `token_benchmark_ray.py` outputs (summary `version` "2023-08-31"): `<name>_summary.json` and
`<name>_individual_responses.json`, merged into one measurement by the name they share.

Two layouts are published: both halves in one folder (`X_summary.json` + `X_individual_responses.json`, one
folder per concurrency in sweeps), and the leaderboard's sibling folders `summary/X.json` + `individual/X.json`
(merged one folder up: `Measurement.merge_up`).

LLMPerf is closed loop only (`num_concurrent_requests`). Summary keys are read by a key table (`SUMMARY_KEYS`,
`SUMMARY_STATISTICS`, `SUMMARY_VALUES`): name -> meaning, unit, statistic. Latencies are in seconds;
`request_output_throughput_token_per_s` is tokens/s per request (not a latency);
`results_num_completed_requests_per_min` is a rate in requests per minute (not a `min` statistic). Quantiles are
pandas' over requests without an error code; `num_completed_requests` counts only those, `num_requests_started`
all of them. Some token counts are strings ("550"). The individual responses are a list of requests without
timestamps (`ttft_s`, `end_to_end_latency_s`, `number_input_tokens`, `number_output_tokens`, `error_code`): that
half alone has no duration, so no achieved rate. LLMPerf's `inter_token_latency_s` is (sum of the gaps including
the TTFT) / output tokens, i.e. E2E / output tokens: not our TPOT, and not a gap between tokens either.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from assets.formats.dumps.exchange import Dump, FormatProblem, Measurement, Parsed
from assets.formats.dumps.values import count, empty_point, number, requests_frame

TOOL = "llmperf"
SUMMARY = "llmperf summary"
INDIVIDUAL = "llmperf individual responses"
FORMATS = (SUMMARY, INDIVIDUAL)
SKIPPED: dict[str, str] = {}  # every format it recognises is read
READ_IN_PLACE = frozenset[str]()

DEFINITIONS = (
    "LLMPerf: TTFT = ttft_s (ours); E2E = end_to_end_latency_s (ours); inter_token_latency_s = E2E / output "
    "tokens per request, TTFT included (NOT our TPOT, not a gap between tokens); request_output_throughput = "
    "output tokens / E2E per request (tokens/s); quantiles by pandas over requests without an error code; "
    "seconds converted to ms; achieved rate = num_completed_requests_per_min / 60; closed loop "
    "(num_concurrent_requests)"
)

# The per-request metrics a summary reports statistics of: key -> (our name, unit, factor to that unit).
SUMMARY_KEYS: dict[str, tuple[str, str, float]] = {
    "ttft_s": ("ttft_ms", "ms", 1000.0),
    "end_to_end_latency_s": ("end_to_end_latency_ms", "ms", 1000.0),
    "inter_token_latency_s": ("inter_token_latency_ms", "ms", 1000.0),  # E2E / output tokens
    "request_output_throughput_token_per_s": ("request_output_throughput", "tokens/s", 1.0),
    "number_input_tokens": ("number_input_tokens", "tokens", 1.0),
    "number_output_tokens": ("number_output_tokens", "tokens", 1.0),
}
# Statistic suffixes: key suffix -> statistic.
SUMMARY_STATISTICS = {
    "quantiles_p25": "p25",
    "quantiles_p50": "p50",
    "quantiles_p75": "p75",
    "quantiles_p90": "p90",
    "quantiles_p95": "p95",
    "quantiles_p99": "p99",
    "mean": "mean",
    "min": "min",
    "max": "max",
    "stddev": "stddev",
}
# Whole-run values: key -> (metric, statistic, unit, factor), or None for a value read into the load point only.
SUMMARY_VALUES: dict[str, tuple[str, str, str, float] | None] = {
    "results_mean_output_throughput_token_per_s": ("output_throughput", "value", "tokens/s", 1.0),
    "results_num_completed_requests_per_min": ("completed_requests_per_min", "value", "requests/min", 1.0),
    "results_error_rate": ("error_rate", "value", "fraction", 1.0),
    "results_num_requests_started": None,
    "results_num_completed_requests": None,
    "results_number_errors": None,
    "results_error_code_frequency": None,  # a stringified dict ("{}")
}
# The settings a summary states (`get_token_throughput_latencies` metadata): the workload.
WORKLOAD_KEYS = (
    "model",
    "mean_input_tokens",
    "stddev_input_tokens",
    "mean_output_tokens",
    "stddev_output_tokens",
    "additional_sampling_params",
)
# User metadata naming the server (the leaderboard's `framework`: the provider measured).
SERVER_KEYS = ("framework",)
# Folders of the leaderboard layout: the two halves sit in sibling folders named so.
SIBLING_FOLDERS = frozenset({"summary", "individual"})
_OURS = {"ttft": "ttft_s", "e2e": "end_to_end_latency_s"}


def recognise(dump: Dump) -> str | None:
    payload = dump.payload
    if dump.json_lines:
        return None
    if isinstance(payload, dict) and "num_concurrent_requests" in payload and "results_ttft_s_mean" in payload:
        return SUMMARY
    if (
        isinstance(payload, list)
        and payload
        and all(
            isinstance(p, dict) and {"ttft_s", "end_to_end_latency_s", "number_output_tokens"} <= p.keys()
            for p in payload[:5]
        )
    ):
        return INDIVIDUAL
    return None


def merge_key(file_name: str) -> str:
    """The name the summary and the individual file share (LLMPerf: `X_summary.json` and
    `X_individual_responses.json`; the leaderboard: `summary/X.json` and `individual/X.json`, or copies
    renamed `summary_X.json`, `individual_X.json`)."""
    stem = PurePath(file_name).stem
    for token in ("_individual_responses", "_summary", "individual_", "summary_"):
        stem = stem.replace(token, "")
    return f"llmperf {stem}"


def merge_up(file_name: str) -> int:
    """1 for a file in a folder named summary/ or individual/ (its other half is in the sibling folder), else 0."""
    return 1 if PurePath(file_name).parent.name in SIBLING_FOLDERS else 0


def parse(dump: Dump, kind: str) -> Parsed:
    parsed = Parsed(kind=kind, tool=TOOL, definitions=DEFINITIONS)
    where = dump.path or dump.name
    try:
        if kind == SUMMARY:
            measurement, unknown = summary_measurement(dump.payload, merge_key(where))
            parsed.tool_version = None if dump.payload.get("version") is None else str(dump.payload["version"])
            if unknown:
                parsed.note = f"results keys not in LLMPerf's key table, not read: {', '.join(unknown)}"
        else:
            measurement = Measurement(
                location="responses",
                requests=individual_frame(dump.payload),
                load_kind="concurrency",
                merge_key=merge_key(where),
            )
        measurement.merge_up = merge_up(where)
        parsed.measurements.append(measurement)
    except FormatProblem as problem:
        parsed.problems.append(("file", str(problem)))
    return parsed


def _value(payload: dict, key: str) -> float | None:
    return number(payload.get(key), key, allow_string=True)


def summary_measurement(payload: dict, key: str) -> tuple[Measurement, list[str]]:
    """The summary as a load point, and the `results_` keys the key table does not name (listed, not read)."""
    concurrency = _value(payload, "num_concurrent_requests")
    started = count(payload.get("results_num_requests_started"), "results_num_requests_started", allow_string=True)
    completed = count(
        payload.get("results_num_completed_requests"), "results_num_completed_requests", allow_string=True
    )
    errors = count(payload.get("results_number_errors"), "results_number_errors", allow_string=True)
    per_min = _value(payload, "results_num_completed_requests_per_min")
    achieved = None if per_min is None else per_min / 60.0
    row = empty_point()
    row.update(
        achieved_requests_per_s=achieved,
        requests_sent=started,
        requests_ok=completed,  # LLMPerf counts completed requests without an error code
        requests_failed=errors,
        # the run's wall time, as LLMPerf divides by it: completed / (completed per minute / 60)
        duration_s=completed / achieved if achieved and completed else None,
        output_tokens_per_s=_value(payload, "results_mean_output_throughput_token_per_s"),
        input_tokens_mean=_value(payload, "results_number_input_tokens_mean"),
        output_tokens_mean=_value(payload, "results_number_output_tokens_mean"),
    )
    if row["input_tokens_mean"] is not None and achieved is not None:
        row["input_tokens_per_s"] = row["input_tokens_mean"] * achieved
    metrics: list[tuple[str, str, float, str]] = []
    known = set(SUMMARY_VALUES)
    for metric, (name, unit, factor) in SUMMARY_KEYS.items():
        for suffix, statistic in SUMMARY_STATISTICS.items():
            field = f"results_{metric}_{suffix}"
            known.add(field)
            value = _value(payload, field)
            if value is not None:
                metrics.append((name, statistic, value * factor, unit))
    for field, meaning in SUMMARY_VALUES.items():
        value = None if meaning is None else _value(payload, field)
        if meaning is not None and value is not None:
            name, statistic, unit, factor = meaning
            metrics.append((name, statistic, value * factor, unit))
    for measure, metric in _OURS.items():
        for pct in ("p50", "p90", "p95", "p99"):
            value = _value(payload, f"results_{metric}_quantiles_{pct}")
            row[f"{measure}_{pct}_ms"] = None if value is None else value * 1000.0
    measurement = Measurement(
        location="summary",
        load_kind="concurrency",
        concurrency=concurrency,
        values=row,
        tool_metrics=metrics,
        merge_key=key,
        workload=_stated(payload, WORKLOAD_KEYS),
        server_settings=_stated(payload, SERVER_KEYS),
    )
    unknown = sorted(k for k in payload if k.startswith("results_") and k not in known)
    return measurement, unknown


def _stated(payload: dict, keys: tuple[str, ...]) -> dict[str, Any]:
    """The keys the summary has among `keys`, as written (an empty sampling-params dict says nothing)."""
    return {k: payload[k] for k in keys if payload.get(k) not in (None, "", {})}


def individual_frame(items: list[dict]):
    status, ttft, e2e, tokens_in, tokens_out, error = [], [], [], [], [], []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise FormatProblem(f"response {i} is a {type(item).__name__}, expected an object")
        failed = item.get("error_code") not in (None, "", 200) or bool(item.get("error_msg"))
        status.append("error" if failed else "ok")
        ttft.append(None if failed else number(item.get("ttft_s"), f"response {i}.ttft_s", allow_string=True))
        e2e.append(
            None
            if failed
            else number(item.get("end_to_end_latency_s"), f"response {i}.end_to_end_latency_s", allow_string=True)
        )
        tokens_in.append(item.get("number_input_tokens"))
        tokens_out.append(item.get("number_output_tokens"))
        error.append(f"{item.get('error_code')}: {item.get('error_msg')}" if failed else None)
    return requests_frame(
        {
            "request_index": list(range(len(items))),
            "phase": "measure",
            "status": status,
            "input_tokens": tokens_in,
            "output_tokens": tokens_out,  # strings of numbers in some versions: checked there
            "ttft_ms": [None if t is None else t * 1000.0 for t in ttft],
            "e2e_ms": [None if t is None else t * 1000.0 for t in e2e],
            "error": error,
        },
        row=lambda i: f"response {i}",
    )
