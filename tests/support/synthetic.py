"""Synthetic per-request data, and writers that put the same requests into several tools' formats
(following the tools' own field lists, as the readers in assets/formats/dumps/ read them).

Used by the tests (the same requests in three formats must give the same percentiles) and by
tests/fixtures/recording/write_field_list_fixtures.py for the fixtures of tools that cannot run here.
"""

import csv
import json
import random
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Request:
    start_s: float  # seconds from the first request
    ttft_ms: float
    e2e_ms: float
    input_tokens: int
    output_tokens: int
    ok: bool = True
    phase: str = "measure"


def requests(
    n: int = 40,
    seed: int = 1,
    rate: float = 4.0,
    failures: int = 1,
    warmup: int = 0,
    ttft_ms: float = 40.0,
    per_token_ms: float = 8.0,
) -> list[Request]:
    """n measured requests (the last `failures` failed) after `warmup` warm-up ones; times are whole
    microseconds so that seconds <-> ms conversions round-trip."""
    rng = random.Random(seed)
    out, t = [], 0.0
    for i in range(warmup + n):
        t += round(rng.expovariate(rate), 6)
        tokens_out = rng.randint(2, 64)
        ttft = round(ttft_ms * (0.5 + rng.random()) + rng.random() * 30 * (i % 7 == 0), 3)
        e2e = round(ttft + per_token_ms * (tokens_out - 1) * (0.8 + 0.4 * rng.random()), 3)
        phase = "warmup" if i < warmup else "measure"
        ok = not (phase == "measure" and i >= warmup + n - failures)
        out.append(Request(round(t, 6), ttft, e2e, rng.randint(100, 400), tokens_out, ok, phase))
    return out


def vllm_result(reqs: list[Request], rate: float | str, **extra) -> dict:
    """A `vllm bench serve --save-result --save-detailed` result (warm-up requests are not in it)."""
    measured = [r for r in reqs if r.phase == "measure"]
    ok = [r for r in measured if r.ok]
    duration = max(r.start_s + r.e2e_ms / 1000 for r in measured) - min(r.start_s for r in measured)
    result = {
        "date": "20260901-120000",
        "endpoint_type": "openai",
        "backend": "openai",
        "label": None,
        "model_id": "meta-llama/Llama-3.1-8B-Instruct",
        "tokenizer_id": "meta-llama/Llama-3.1-8B-Instruct",
        "num_prompts": len(measured),
        "request_rate": rate,
        "burstiness": 1.0,
        "max_concurrency": None,
        "duration": duration,
        "completed": len(ok),
        "failed": len(measured) - len(ok),
        "total_input_tokens": sum(r.input_tokens for r in ok),
        "total_output_tokens": sum(r.output_tokens for r in ok),
        "request_throughput": len(ok) / duration,
        "request_goodput": None,
        "output_throughput": sum(r.output_tokens for r in ok) / duration,
        "total_token_throughput": sum(r.input_tokens + r.output_tokens for r in ok) / duration,
        "input_lens": [r.input_tokens for r in measured],
        "output_lens": [r.output_tokens if r.ok else 0 for r in measured],
        "ttfts": [r.ttft_ms / 1000 if r.ok else 0.0 for r in measured],
        "itls": [[] for _ in measured],
        "latencies": [r.e2e_ms / 1000 if r.ok else 0.0 for r in measured],
        "start_times": [1000.0 + r.start_s for r in measured],
        "errors": ["" if r.ok else "HTTP 500: scripted failure" for r in measured],
        "generated_texts": ["" for _ in measured],
    }
    result.update(extra)
    return result


def write_aiperf(folder: Path, reqs: list[Request], rate: float) -> None:
    """`profile_export.jsonl` (one line per request, warm-up included and marked) and a small
    `profile_export_aiperf.json` aggregate naming the load."""
    folder.mkdir(parents=True, exist_ok=True)
    base_ns = 1_790_000_000_000_000_000
    with open(folder / "profile_export.jsonl", "w") as f:
        for i, r in enumerate(reqs):
            start = base_ns + round(r.start_s * 1e9)
            meta = {
                "session_num": i,
                "x_request_id": f"req-{i}",
                "request_start_ns": start,
                "request_end_ns": start + round(r.e2e_ms * 1e6),
                "worker_id": "w0",
                "benchmark_phase": "warmup" if r.phase == "warmup" else "profiling",
                "was_cancelled": False,
            }
            metrics = (
                {}
                if not r.ok
                else {
                    "time_to_first_token": {"value": r.ttft_ms, "unit": "ms"},
                    "request_latency": {"value": r.e2e_ms, "unit": "ms"},
                    "input_sequence_length": {"value": r.input_tokens, "unit": "tokens"},
                    "output_sequence_length": {"value": r.output_tokens, "unit": "tokens"},
                }
            )
            line = {"metadata": meta, "metrics": metrics}
            if not r.ok:
                line["error"] = {"code": 500, "type": "Internal Server Error", "message": "scripted failure"}
            f.write(json.dumps(line) + "\n")
    measured = [r for r in reqs if r.phase == "measure"]
    ok = [r for r in measured if r.ok]
    aggregate = {
        "schema_version": "1.0",
        "aiperf_version": "0.13.0",
        "request_throughput": {"unit": "requests/sec", "avg": rate},
        "request_count": {"unit": "requests", "avg": len(ok)},
        "error_request_count": {"unit": "requests", "avg": len(measured) - len(ok)},
        "time_to_first_token": {"unit": "ms", "avg": sum(r.ttft_ms for r in ok) / len(ok)},
        "input_config": {"phases": [{"name": "profiling", "kind": "profiling", "type": "poisson", "rate": rate}]},
    }
    (folder / "profile_export_aiperf.json").write_text(json.dumps(aggregate, indent=2))


def write_generic_csv(
    path: Path, reqs: list[Request], rate: float | None = None, unix0: float = 1_790_000_000.0, timing: bool = True
) -> None:
    """The generic per-request CSV (with ttft_ms/e2e_ms a measurement; without them a traffic log)."""
    columns = ["start_time_unix_s", "input_tokens", "output_tokens"]
    if timing:
        columns += ["ttft_ms", "e2e_ms", "status", "phase", "error"] + (["offered_rate_per_s"] if rate else [])
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(columns)
        for r in reqs:
            row = [f"{unix0 + r.start_s:.6f}", r.input_tokens, r.output_tokens]
            if timing:
                row += [
                    r.ttft_ms if r.ok else "",
                    r.e2e_ms if r.ok else "",
                    "ok" if r.ok else "error",
                    r.phase,
                    "" if r.ok else "HTTP 500",
                ] + ([rate] if rate else [])
            writer.writerow(row)


def inference_perf_requests(reqs: list[Request], stage: int = 0) -> list[dict]:
    """`per_request_lifecycle_metrics.json` entries (perf_counter seconds)."""
    entries = []
    for r in reqs:
        start = 5000.0 + r.start_s
        first = start + r.ttft_ms / 1000
        step = (r.e2e_ms - r.ttft_ms) / 1000 / (r.output_tokens - 1)
        times = [first + k * step for k in range(r.output_tokens)] if r.ok else []
        entries.append(
            {
                "stage_id": stage,
                "session_id": None,
                "scheduled_time": start,
                "start_time": start,
                "end_time": start + r.e2e_ms / 1000,
                "request_data": "{}",
                "response_data": None if not r.ok else "...",
                "info": {
                    "request_metrics": {"text": {"input_tokens": r.input_tokens}},
                    "response_metrics": {
                        "output_tokens": r.output_tokens if r.ok else 0,
                        "server_usage": None,
                        "response_chunks": [],
                        "chunk_times": times,
                        "output_token_times": times,
                    },
                    "extra_info": {},
                    "lora_adapter": None,
                    "labels": {},
                    "input_tokens": r.input_tokens,
                },
                "error": None if r.ok else {"error_type": "ClientResponseError", "error_msg": "500"},
                "ttft_slo_sec": None,
                "tpot_slo_sec": None,
            }
        )
    return entries
