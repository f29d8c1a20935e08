"""The report `trtllm-bench` prints (its logger's `report_statistics` block), as the blocks of its `--report_json`, so
that one key table (`trtllm_bench.REPORT_KEYS`) reads both. Not a reader (no registry lists it).

Layouts (from TensorRT-LLM's own source, `tensorrt_llm/bench/dataclasses/reporting.py` and, before it,
`tensorrt_llm/bench/run/utils.py` and `tensorrt_llm/bench/benchmark/utils/reporting.py`):
- early (0.1x, `report_statistics` before the reporting module took it over): `= ENGINE DETAILS` (`TensorRT-LLM
  Version`), `= WORLD + RUNTIME INFORMATION` (tab-aligned), `= PERFORMANCE OVERVIEW` holding the request count,
  average lengths, `Token Throughput (tokens/sec)` (output tokens / total latency), `Request Throughput` and `Total
  Latency`; with streaming a `= STREAMING STATISTICS` block of averages only (request latency, TTFT, inter-token
  latency).
- later (1.x, and the 0.2x documentation examples): `= ENGINE DETAILS` (TRT engine) or `= PYTORCH BACKEND`,
  `= MACHINE DETAILS` (1.2), `= REQUEST DETAILS`, `= WORLD + RUNTIME INFORMATION`, `= PERFORMANCE OVERVIEW`
  (throughputs, total and average latency; with streaming the TTFT/TPOT averages), breakdowns
  `[TPOT] P50    : 1.7150`, `[TTFT] ...`, `[GTPS] ...`, `[Latency] ...`, and with speculative decoding
  `= DECODING STATISTICS (<mode>)` with `[DT]`, `[ADT]`, `[DAR]`, `[AL]` breakdowns. Labels changed spelling across
  versions (`TensorRT-LLM Version` / `TensorRT LLM Version`, `(tokens/sec/user)` / `(tps/user)`): `LABELS` lists
  each spelling.

A file may hold several reports (a log of a sweep): each `= PERFORMANCE OVERVIEW` closes one; logger prefixes
(`[TRT-LLM] [I]`) before a block's first line are ignored.
"""

from __future__ import annotations

import re
from typing import Any

OVERVIEW = b"= PERFORMANCE OVERVIEW"
_SECTION = re.compile(r"^=\s+(?P<title>[A-Z][A-Z +/]*[A-Z])(?:\s*\((?P<mode>[^)]*)\))?\s*$")
_LINE = re.compile(r"^(?P<label>[A-Za-z][^:]*?)\s*:\s*(?P<value>.*?)\s*$")
_BREAKDOWN = re.compile(r"^\[(?P<tag>[A-Za-z]+)\]\s+(?P<stat>[A-Z0-9]+)\s*:\s*(?P<value>\S+)\s*$")
# Sections that begin a report: a second one after an overview starts the next report.
_FIRST_SECTIONS = ("ENGINE DETAILS", "PYTORCH BACKEND")

# label (any version's spelling) -> (block, key) of the report JSON.
LABELS: dict[str, tuple[str, str]] = {
    "Model": ("engine", "model"),
    "Model Path": ("engine", "model_path"),
    "Engine Directory": ("engine", "engine_dir"),
    "TensorRT-LLM Version": ("engine", "version"),
    "TensorRT LLM Version": ("engine", "version"),
    "Dtype": ("engine", "dtype"),
    "KV Cache Dtype": ("engine", "kv_cache_dtype"),
    "Quantization": ("engine", "quantization"),
    "Max Input Length": ("engine", "max_input_length"),
    "Max Sequence Length": ("engine", "max_sequence_length"),
    "TP Size": ("world_info", "tp_size"),
    "PP Size": ("world_info", "pp_size"),
    "EP Size": ("world_info", "ep_size"),
    "Max Runtime Batch Size": ("world_info", "max_batch_size"),
    "Max Runtime Tokens": ("world_info", "max_num_tokens"),
    "Scheduling Policy": ("world_info", "scheduling_policy"),
    "KV Memory Percentage": ("world_info", "kv_cache_percentage"),
    "Issue Rate (req/sec)": ("world_info", "issue_rate"),
    "Number of requests": ("request_info", "num_requests"),
    "Number of concurrent requests": ("request_info", "avg_num_concurrent_requests"),
    "Average Input Length (tokens)": ("request_info", "avg_input_length"),
    "Average Output Length (tokens)": ("request_info", "avg_output_length"),
    "Request Throughput (req/sec)": ("performance", "request_throughput_req_s"),
    "Total Output Throughput (tokens/sec)": ("performance", "system_output_throughput_tok_s"),
    "Token Throughput (tokens/sec)": ("performance", "system_output_throughput_tok_s"),  # early: output tokens
    "Total Token Throughput (tokens/sec)": ("performance", "system_total_throughput_tok_s"),
    "Total Latency (ms)": ("performance", "total_latency_ms"),
    "Average request latency (ms)": ("performance", "avg_request_latency_ms"),
    "Per User Output Throughput [w/ ctx] (tps/user)": ("performance", "output_throughput_per_user_tok_s"),
    "Per User Output Throughput (tokens/sec/user)": ("performance", "output_throughput_per_user_tok_s"),
    "Per GPU Output Throughput (tps/gpu)": ("performance", "output_throughput_per_gpu_tok_s"),
    "Per GPU Output Throughput (tokens/sec/gpu)": ("performance", "output_throughput_per_gpu_tok_s"),
    "Average time-to-first-token [TTFT] (ms)": ("streaming_metrics", "avg_ttft_ms"),
    "Average time-to-first-token (ms)": ("streaming_metrics", "avg_ttft_ms"),
    "Average time-per-output-token [TPOT] (ms)": ("streaming_metrics", "avg_tpot_ms"),
    "Average inter-token latency (ms)": ("streaming_metrics", "avg_inter_token_latency_ms"),
    "Per User Output Speed (tps/user)": ("streaming_metrics", "token_output_speed_tok_s"),
    "Per User Output Speed [1/TPOT] (tokens/sec/user)": ("streaming_metrics", "token_output_speed_tok_s"),
}
# breakdown tag -> (block, key) of its percentile object.
BREAKDOWNS: dict[str, tuple[str, str]] = {
    "Latency": ("performance", "request_latency_percentiles_ms"),
    "TTFT": ("streaming_metrics", "ttft_percentiles"),
    "TPOT": ("streaming_metrics", "tpot_percentiles"),
    "GTPS": ("streaming_metrics", "gen_tps_percentiles"),
    "DT": ("decoding_stats", "num_draft_tokens_percentiles"),
    "ADT": ("decoding_stats", "num_accepted_draft_tokens_percentiles"),
    "DAR": ("decoding_stats", "draft_acceptance_rate_percentiles"),
    "AL": ("decoding_stats", "acceptance_length_percentiles"),
}
_BACKENDS = {"ENGINE DETAILS": "TRT", "PYTORCH BACKEND": "Pytorch"}
_COUNTS = {
    "num_requests", "tp_size", "pp_size", "ep_size", "max_batch_size", "max_num_tokens", "max_input_length",
    "max_sequence_length",
}  # fmt: skip
_TEXT = {"model", "model_path", "engine_dir", "version", "dtype", "kv_cache_dtype", "quantization", "scheduling_policy"}


def is_console_report(data: bytes) -> bool:
    """Whether the text holds a trtllm-bench report: its overview header with the request throughput line."""
    return OVERVIEW in data and b"Request Throughput (req/sec)" in data


def printed_totals(data: bytes) -> list[tuple[int, float]]:
    """(request count, total latency ms) of each report the text prints, where both are printed."""
    out = []
    for report in console_reports(data.decode("utf-8-sig", errors="replace")):
        n = report.get("request_info", {}).get("num_requests")
        t = report.get("performance", {}).get("total_latency_ms")
        if isinstance(n, int) and isinstance(t, float):
            out.append((n, t))
    return out


def _value(key: str, text: str) -> Any:
    """A printed value as the JSON would hold it: counts as int, numbers as float ("90.00%" as 0.9), text as text
    ("None" stays the string, as the JSON writes it); a number that does not parse stays text (checked later)."""
    if key in _TEXT:
        return text
    try:
        if text.endswith("%"):
            return float(text[:-1]) / 100.0
        return int(text) if key in _COUNTS and re.fullmatch(r"-?\d+", text) else float(text)
    except ValueError:
        return text


def console_reports(text: str) -> list[dict[str, Any]]:
    """Every report the text prints, each as the blocks of a report JSON (only what was printed)."""
    reports: list[dict[str, Any]] = []
    current: dict[str, Any] = {}
    title = ""
    overview_seen = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or set(line) <= {"=", "-"}:
            continue
        section = _SECTION.match(line)
        if section:
            title = section.group("title").strip()
            if title in _FIRST_SECTIONS and overview_seen:
                reports.append(current)
                current, overview_seen = {}, False
            if title in _BACKENDS:
                current.setdefault("engine", {})["backend"] = _BACKENDS[title]
            elif title == "PERFORMANCE OVERVIEW":
                overview_seen = True
            elif title == "STREAMING STATISTICS":
                current.setdefault("streaming_metrics", {})
            elif title == "DECODING STATISTICS":
                current.setdefault("decoding_stats", {})["mode"] = section.group("mode")
            continue
        if title == "MACHINE DETAILS":
            if not line.startswith("No GPU info"):
                current.setdefault("machine", {})["name"] = line.split(",", 1)[0].strip()
            continue
        breakdown = _BREAKDOWN.match(line)
        if breakdown and breakdown.group("tag") in BREAKDOWNS:
            block, key = BREAKDOWNS[breakdown.group("tag")]
            stats = current.setdefault(block, {}).setdefault(key, {})
            stats[breakdown.group("stat").lower()] = _value("", breakdown.group("value"))
            continue
        pair = _LINE.match(line)
        if pair and pair.group("label") in LABELS:
            block, key = LABELS[pair.group("label")]
            current.setdefault(block, {})[key] = _value(key, pair.group("value"))
    if overview_seen:
        reports.append(current)
    return reports


BREAKDOWN_STATISTICS = 7  # MINIMUM, MAXIMUM, AVERAGE, P50, P90, P95, P99: every breakdown prints all of them


def cut_short(text: str, report: dict[str, Any]) -> str | None:
    """Why `report`, the last one `text` prints, was cut short (the log ends inside it: a run killed, a copy cut),
    or None when it is whole: its last line cut mid-value, its overview without `Total Latency (ms)` (every layout
    prints it), or a breakdown with fewer than its 7 statistics."""
    last = text.rsplit("\n", 1)[-1].strip()
    pair = _LINE.match(last)
    if last and (_BREAKDOWN.match(last) or (pair is not None and pair.group("label") in LABELS)):
        return f"the log ends mid-line ({last[:60]!r})"
    if "total_latency_ms" not in report.get("performance", {}):
        return "its performance overview ends before `Total Latency (ms)`"
    for block in report.values():
        for key, stats in block.items() if isinstance(block, dict) else ():
            if isinstance(stats, dict) and len(stats) < BREAKDOWN_STATISTICS:
                return f"its {key} breakdown stops after {len(stats)} of {BREAKDOWN_STATISTICS} statistics"
    return None
