"""ray-project/llmperf `token_benchmark_ray.py` outputs: `<name>_summary.json` and
`<name>_individual_responses.json` (one folder; merged into one measurement by their shared name).

LLMPerf is closed loop only (`num_concurrent_requests`). Summary keys are flattened
(`results_<metric>_quantiles_p25..p99`, `_mean`, `_min`, `_max`, `_stddev`) in seconds; some
token counts are strings ("550"). The individual responses are a list of requests without
timestamps (`ttft_s`, `end_to_end_latency_s`, `number_input_tokens`, `number_output_tokens`,
`error_code`). LLMPerf's `inter_token_latency_s` is (sum of the gaps including the TTFT) / output
tokens, i.e. E2E / output tokens: not our TPOT, and not a gap between tokens either.
"""

from __future__ import annotations

import re
from pathlib import PurePath

from assets.formats.dumps.model import Dump, FormatProblem, Measurement, Parsed
from assets.formats.dumps.values import count, empty_point, number, requests_frame

TOOL = "llmperf"
SUMMARY = "llmperf summary"
INDIVIDUAL = "llmperf individual responses"
FORMATS = (SUMMARY, INDIVIDUAL)
SKIPPED: dict[str, str] = {}  # every format it recognises is read
READ_IN_PLACE = frozenset[str]()

DEFINITIONS = (
    "LLMPerf: TTFT = ttft_s (ours); E2E = end_to_end_latency_s (ours); inter_token_latency_s = E2E / output "
    "tokens per request, TTFT included (NOT our TPOT, not a gap between tokens); quantiles by numpy over "
    "requests; seconds converted to ms; closed loop (num_concurrent_requests)"
)

_METRIC = re.compile(r"^results_(.+?)_(quantiles_p\d+|mean|min|max|stddev)$")
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
    `X_individual_responses.json`; the leaderboard copies: `summary_X.json`, `individual_X.json`)."""
    stem = PurePath(file_name).stem
    for token in ("_individual_responses", "_summary", "individual_", "summary_"):
        stem = stem.replace(token, "")
    return f"llmperf {stem}"


def parse(dump: Dump, kind: str) -> Parsed:
    parsed = Parsed(kind=kind, tool=TOOL, definitions=DEFINITIONS)
    key = merge_key(dump.name)
    try:
        if kind == SUMMARY:
            parsed.measurements.append(summary_measurement(dump.payload, key))
        else:
            parsed.measurements.append(
                Measurement(
                    location="responses",
                    requests=individual_frame(dump.payload),
                    load_kind="concurrency",
                    merge_key=key,
                )
            )
    except FormatProblem as problem:
        parsed.problems.append(("file", str(problem)))
    return parsed


def summary_measurement(payload: dict, key: str) -> Measurement:
    concurrency = number(payload.get("num_concurrent_requests"), "num_concurrent_requests", allow_string=True)
    started = count(payload.get("results_num_requests_started"), "results_num_requests_started", allow_string=True)
    completed = count(
        payload.get("results_num_completed_requests"), "results_num_completed_requests", allow_string=True
    )
    errors = count(payload.get("results_number_errors"), "results_number_errors", allow_string=True)
    per_min = number(
        payload.get("results_num_completed_requests_per_min"),
        "results_num_completed_requests_per_min",
        allow_string=True,
    )
    row = empty_point()
    row.update(
        achieved_requests_per_s=None if per_min is None else per_min / 60.0,
        requests_sent=started,
        requests_ok=completed - errors if completed >= errors else completed,
        requests_failed=errors,
        output_tokens_per_s=number(
            payload.get("results_mean_output_throughput_token_per_s"),
            "results_mean_output_throughput_token_per_s",
            allow_string=True,
        ),
        mean_input_tokens=number(
            payload.get("results_number_input_tokens_mean"), "results_number_input_tokens_mean", allow_string=True
        ),
        mean_output_tokens=number(
            payload.get("results_number_output_tokens_mean"), "results_number_output_tokens_mean", allow_string=True
        ),
    )
    if row["mean_input_tokens"] is not None and row["achieved_requests_per_s"] is not None:
        row["input_tokens_per_s"] = row["mean_input_tokens"] * row["achieved_requests_per_s"]
    metrics = []
    for name, value in payload.items():
        match = _METRIC.match(name)
        if not match:
            continue
        metric, stat = match.groups()
        value = number(value, name, allow_string=True)
        if value is None:
            continue
        seconds = metric.endswith("_s")
        metrics.append(
            (
                metric.removesuffix("_s") + ("_ms" if seconds else ""),
                stat.replace("quantiles_", ""),
                value * (1000.0 if seconds else 1.0),
                "ms" if seconds else ("tokens" if "tokens" in metric else "tokens/s"),
            )
        )
    for measure, metric in _OURS.items():
        for pct in ("p50", "p90", "p95", "p99"):
            value = number(
                payload.get(f"results_{metric}_quantiles_{pct}"), f"results_{metric}_quantiles_{pct}", allow_string=True
            )
            row[f"{measure}_{pct}_ms"] = None if value is None else value * 1000.0
    return Measurement(
        location="summary",
        load_kind="concurrency",
        concurrency=concurrency,
        values=row,
        tool_metrics=metrics,
        merge_key=key,
    )


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
