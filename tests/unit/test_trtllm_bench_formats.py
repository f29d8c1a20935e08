"""trtllm-bench variants the shared data lacks, on the hand-written fixtures of tests/fixtures/trtllm-bench (its
README says where each layout comes from): a streaming throughput report JSON, console reports of 0.13, 1.1 and 1.2,
a console report beside its own JSON (skipped as the same run), a log that begins with a bracket (never taken for
damaged JSON). Every number is compared with the raw text read here with json or a regular expression."""

import json
import re
import shutil
from pathlib import Path

import pytest

from assets.formats.dumps import registry, trtllm_bench
from assets.formats.dumps.exchange import Parsed
from assets.inputs.files import read_local
from assets.runs.collect import collect
from tests.support.data import FIXTURES

TRT = FIXTURES / "trtllm-bench"
STREAMING = TRT / "throughput-streaming" / "report.json"
SWEEP_LOG = TRT / "console-latency-sweep" / "latency_sweep.log"
EAGLE_LOG = TRT / "console-pytorch-eagle" / "result_gpt-oss-20b_eagle3.txt"
OLD_LOG = TRT / "console-0.13" / "trtllm-bench_llama-3-8b_tp1.log"
PERCENTILES = ("p50", "p90", "p95", "p99")
RUN_YAML = """\
accelerator: NVIDIA L40S
accelerator_count: 1
model: meta-llama/Llama-3.2-1B-Instruct
precision: bf16
runtime: TensorRT-LLM
runtime_version: 1.2.0
arrival: concurrency
"""


def read(path: Path, in_place: bool = True) -> Parsed:
    parsed, _dump = registry.parse_file(read_local(path)[0], str(path) if in_place else None)
    assert parsed is not None, path
    return parsed


def printed(text: str, label: str) -> list[float]:
    """Every value printed after `label:` (in the order printed)."""
    return [float(v) for v in re.findall(re.escape(label) + r"\s*:\s*(\S+)", text)]


def test_a_streaming_throughput_report_has_ttft_and_tpot_and_no_level_it_does_not_state():
    r, parsed = json.loads(STREAMING.read_text()), read(STREAMING)
    assert parsed.kind == trtllm_bench.REPORT_JSON
    (m,) = parsed.measurements
    for pct in PERCENTILES:
        assert m.values[f"ttft_{pct}_ms"] == r["streaming_metrics"]["ttft_percentiles"][pct]
        assert m.values[f"tpot_{pct}_ms"] == r["streaming_metrics"]["tpot_percentiles"][pct]
    assert m.values["achieved_requests_per_s"] == r["request_info"]["num_requests"] / 40.96
    # issue_rate 12.8 req/s is what a --concurrency cap leaves, measured: the cap is not stated, so neither is the level
    assert (m.load_kind, m.concurrency, m.offered_rate_per_s) == (None, None, None)
    assert "the report does not state the concurrency it ran at" in parsed.note
    assert "model_path" not in m.server_settings and m.server_settings["world_size"] == 2


def test_a_console_log_of_two_latency_reports_gives_two_levels_with_the_printed_numbers():
    text, parsed = SWEEP_LOG.read_text(), read(SWEEP_LOG)
    assert parsed.kind == trtllm_bench.CONSOLE and parsed.tool_version == "1.2.0"
    first, second = parsed.measurements
    throughput = printed(text, "Request Throughput (req/sec)")
    latency = printed(text, "Total Latency (ms)")
    ttft_p95 = printed(text, "[TTFT] P95    ")
    tpot_p99 = printed(text, "[TPOT] P99    ")
    e2e_p50 = printed(text, "[Latency] P50    ")
    for i, m in enumerate((first, second)):
        assert m.values["achieved_requests_per_s"] == throughput[i]
        assert m.values["duration_s"] == pytest.approx(latency[i] / 1000)
        assert (m.values["ttft_p95_ms"], m.values["tpot_p99_ms"], m.values["e2e_p50_ms"]) == (
            ttft_p95[i], tpot_p99[i], e2e_p50[i]
        )  # fmt: skip
        assert (m.load_kind, m.concurrency) == ("concurrency", 1.0)
        assert m.server_settings["gpu"] == "NVIDIA L40S" and m.server_settings["max_input_length"] == 1024
    assert [m.workload["input_len"] for m in (first, second)] == [128, 512]


def test_a_console_report_without_streaming_says_why_ttft_is_null_and_keeps_the_decoding_statistics():
    text, parsed = EAGLE_LOG.read_text(), read(EAGLE_LOG)
    (m,) = parsed.measurements
    assert all(m.values[f"{k}_{p}_ms"] is None for k in ("ttft", "tpot") for p in PERCENTILES)
    assert "TTFT and TPOT are not in the report, NULL (never 0)" in parsed.note
    assert m.values["e2e_p99_ms"] == printed(text, "[Latency] P99    ")[0]
    assert (m.load_kind, m.concurrency) == ("concurrency", printed(text, "Number of requests")[0])
    assert m.server_settings["speculative_decoding"] == "Eagle"
    assert "kv_cache_free_gpu_mem_fraction" not in m.server_settings  # printed as None
    metrics = {(name, stat): value for name, stat, value, _unit in m.tool_metrics}
    assert metrics[("acceptance_length", "mean")] == printed(text, "[AL] AVERAGE")[0]
    assert metrics[("draft_acceptance_rate", "p90")] == printed(text, "[DAR] P90    ")[0]


def test_a_0_13_console_report_has_averages_only_and_its_token_throughput_is_output_tokens():
    text, parsed = OLD_LOG.read_text(), read(OLD_LOG)
    (m,) = parsed.measurements
    assert parsed.tool_version == "0.13.0"
    requests, seconds = printed(text, "Number of requests")[0], printed(text, "Total Latency (ms)")[0] / 1000
    assert m.values["achieved_requests_per_s"] == pytest.approx(requests / seconds, rel=1e-6)
    assert m.values["output_tokens_per_s"] == pytest.approx(requests * 128 / seconds, rel=1e-6)
    assert all(m.values[f"ttft_{p}_ms"] is None for p in PERCENTILES) and "no TTFT percentiles" in parsed.note
    assert "no TTFT percentiles" in parsed.definitions  # on the load point (tool_definitions)
    metrics = {(name, stat): value for name, stat, value, _unit in m.tool_metrics}
    assert metrics[("ttft_ms", "mean")] == printed(text, "Average time-to-first-token (ms)")[0]
    assert metrics[("inter_token_latency_ms", "mean")] == printed(text, "Average inter-token latency (ms)")[0]
    assert m.server_settings["max_sequence_length"] == 4096
    assert m.server_settings["kv_cache_free_gpu_mem_fraction"] == 0.95  # printed as 95.00%


def test_a_console_report_beside_its_own_json_is_skipped_and_read_alone_when_the_json_is_not_there(tmp_path):
    beside = read(STREAMING.parent / "trtllm-bench.log")
    assert beside.kind == trtllm_bench.CONSOLE_BESIDE_JSON and not beside.measurements
    alone = read(STREAMING.parent / "trtllm-bench.log", in_place=False)
    assert alone.kind == trtllm_bench.CONSOLE and alone.measurements[0].values["requests_ok"] == 512


def test_a_folder_of_every_variant_publishes_each_report_once(tmp_path):
    root = tmp_path / "dumps"
    shutil.copytree(TRT, root, ignore=shutil.ignore_patterns("README.md"))
    (root / "run.yaml").write_text(RUN_YAML)
    batch = collect(root)
    assert not batch.rejects
    status = {Path(f.source).name: f.status for f in batch.files}
    assert status["trtllm-bench.log"] == "skipped" and status["report.json"] == "read"
    assert len(batch.measurements) == 6 and len(batch.runs) == 6  # JSON, two sweep reports, eagle, 0.13, overview


def test_a_tensorrt_llm_log_without_a_report_and_a_util_csv_stay_named_skips(tmp_path):
    (tmp_path / "run.yaml").write_text(RUN_YAML)
    (tmp_path / "run.log").write_bytes(b"[TensorRT-LLM] TensorRT-LLM version: 1.2.0\n[TRT-LLM] [I] Loading engine\n")
    (tmp_path / "llama_util.csv").write_bytes(b"{'timestamp': [0.0, 0.5], 'gpu_util': [87.0, 91.5]}\n")
    batch = collect(tmp_path)
    notes = {Path(f.source).name: (f.status, f.note) for f in batch.files if f.source.endswith((".log", ".csv"))}
    assert notes == {
        "run.log": ("skipped", "a TensorRT-LLM console log: not read"),
        "llama_util.csv": ("skipped", "a TensorRT-LLM gptManagerBenchmark utilisation file: not read"),
    }
    assert not batch.rejects and not batch.measurements


def test_a_damaged_report_costs_itself_and_names_what_is_wrong(tmp_path):
    """A report JSON cut short, one with a word where a number is due, and a console log one of whose two reports
    prints `nan`: each bad report is quarantined with its reason, the good report of the log is read."""
    (tmp_path / "run.yaml").write_text(RUN_YAML)
    for name in ("cut", "word", "nan"):
        (tmp_path / name).mkdir()
    data = STREAMING.read_bytes()
    (tmp_path / "cut" / "report.json").write_bytes(data[: len(data) // 2])
    word = data.replace(b'"request_throughput_req_s": 12.5', b'"request_throughput_req_s": "fast"')
    (tmp_path / "word" / "report.json").write_bytes(word)
    log = SWEEP_LOG.read_text().replace("[TTFT] P95    : 4.9000", "[TTFT] P95    : nan", 1)
    (tmp_path / "nan" / "latency.log").write_text(log)
    batch = collect(tmp_path)
    reasons = {(Path(r.source).parent.name, r.location): r.reason for r in batch.rejects}
    assert "invalid JSON" in reasons[("cut", "file")]
    assert reasons[("word", "report")] == "performance.request_throughput_req_s is not a number (got 'fast')"
    assert reasons[("nan", "report 1")] == "streaming_metrics.ttft_percentiles.p95 is not finite (got nan)"
    assert [m["concurrency"] for m in batch.measurements] == [1.0]  # report 2 of the log


def test_an_overview_pasted_alone_is_read_in_the_documentation_spellings_with_no_level():
    path = TRT / "console-overview-only" / "result.txt"
    text, parsed = path.read_text(), read(path)
    (m,) = parsed.measurements
    assert m.values["output_tokens_per_s"] == printed(text, "Total Output Throughput (tokens/sec)")[0]
    assert m.values["ttft_p99_ms"] == printed(text, "[TTFT] P99    ")[0]
    assert m.values["tpot_p50_ms"] == printed(text, "[TPOT] P50    ")[0]
    metrics = {(name, stat): value for name, stat, value, _unit in m.tool_metrics}
    assert (
        metrics[("output_throughput_per_user", "mean")]
        == printed(text, "Per User Output Throughput (tokens/sec/user)")[0]
    )
    assert (
        metrics[("token_output_speed_per_user", "mean")] == 11.2
        and metrics[("output_throughput_per_gpu", "value")] == 1280
    )
    assert m.values["requests_ok"] is None and (m.load_kind, m.concurrency) == (None, None)
    assert "no issue_rate: the report does not state the concurrency it ran at" in parsed.note
