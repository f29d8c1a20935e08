"""vLLM and SGLang results say what was measured besides the load (workload) and on what server (server
settings), from the file, its --metadata, its sweep folder or its name; failures are counted as the tool
counts them; SGLang's 2024 lines are read by their key table."""

import json
import shutil

import polars as pl
import pytest

from assets.formats.dumps import bench_serving, registry, sglang, vllm
from assets.formats.dumps.decode import decode
from assets.inputs.files import read_local
from tests.support.data import FIXTURES, SLA_TREE
from tests.support.observed import parse

SGLANG_2024 = FIXTURES / "sglang/2024/sglang_1120_300_1024_1024.jsonl"
SGLANG_MID_2024 = FIXTURES / "sglang/2024/mid2024_sharegpt.jsonl"
DETAILED = FIXTURES / "vllm/openai-4.0qps-Llama-3.1-8B-Instruct-20260901-120000.json"


@pytest.mark.parametrize("path", [SGLANG_2024, SGLANG_MID_2024], ids=lambda p: p.name)
def test_sglang_2024_lines_are_recognised_by_sglang_alone(path):
    dump = decode(read_local(path)[0])
    answers = {m.__name__.rsplit(".", 1)[-1]: m.recognise(dump) for m in registry.READERS}
    assert [k for k in answers.values() if k] == [sglang.RESULT_LINES_2024], answers


def test_sglang_2024_rates_are_computed_from_its_totals_and_medians_fill_p50():
    lines = [json.loads(line.replace("Infinity", '"inf"')) for line in SGLANG_2024.read_text().splitlines()]
    parsed = parse(SGLANG_2024)
    assert [(m.load_kind, m.offered_rate_per_s, m.concurrency) for m in parsed.measurements] == [
        ("rate", 1.0, None),
        ("rate", 2.0, None),
        ("concurrency", None, 16.0),  # the bare token Infinity is closed loop at max_concurrency
    ]
    for m, line in zip(parsed.measurements, lines, strict=True):
        assert m.values["achieved_requests_per_s"] == pytest.approx(line["completed"] / line["duration"])
        assert m.values["input_tokens_per_s"] == pytest.approx(line["total_input_tokens"] / line["duration"])
        assert m.values["ttft_p50_ms"] == line["median_ttft_ms"] and m.values["itl_p50_ms"] == line["median_itl_ms"]
        assert m.values["e2e_p50_ms"] == line["median_e2e_latency_ms"] and m.values["ttft_p95_ms"] is None
        assert ("e2e_latency_ms", "mean", line["mean_e2e_latency_ms"], "ms") in m.tool_metrics
        # The default file name states 300 prompts: what did not complete failed (said in the note).
        assert (m.values["requests_sent"], m.values["requests_failed"]) == (300, 300 - line["completed"])
        assert m.workload["num_prompts"] == 300 and m.workload["random_input_len"] == 1024
    assert "num_prompts (from the file name) - completed" in parsed.note
    assert "max_concurrency" not in parsed.measurements[2].workload  # the load axis, not the workload


def test_sglang_mid_2024_line_without_completed_has_no_rate_and_says_why():
    first, second = parse(SGLANG_MID_2024).measurements
    assert first.values["achieved_requests_per_s"] == pytest.approx(250 / 125.0)
    assert first.values["ttft_p50_ms"] == 70.0 and first.values["output_tokens_per_s"] == 400.0
    assert first.values["total_tokens_per_s"] == pytest.approx((60000 + 50000) / 125.0)
    assert second.values["achieved_requests_per_s"] is None and second.values["requests_ok"] is None
    assert "request rate not computed, NULL (line 2)" in parse(SGLANG_MID_2024).note


def _detailed(tmp_path, name="result.json", **changes):
    result = json.loads(DETAILED.read_text())
    result.update(changes)
    path = tmp_path / name
    path.write_text(json.dumps(result))
    return result, path


def test_vllm_request_with_no_output_and_no_error_text_is_an_error_when_the_tool_counted_it_failed(tmp_path):
    result, _ = _detailed(tmp_path)
    n = len(result["ttfts"])
    silent = next(i for i, e in enumerate(result["errors"]) if not e)
    result["output_lens"][silent], result["ttfts"][silent] = 0, 0.0
    errors = sum(1 for e in result["errors"] if e)
    result.pop("failed", None)
    result["num_prompts"], result["completed"] = n, n - errors - 1  # the tool counted it as not completed
    (tmp_path / "counted.json").write_text(json.dumps(result))
    (m,) = parse(tmp_path / "counted.json").measurements
    row = m.requests.row(silent, named=True)
    assert (row["status"], row["output_tokens"], row["ttft_ms"]) == ("error", 0, None)
    assert row["error"] == bench_serving.SILENT_FAILURE
    assert m.values["requests_failed"] == errors + 1 == m.requests.filter(pl.col("status") == "error").height

    result["completed"] = n - errors  # the tool counted it as completed: a success with no token, as written
    (tmp_path / "success.json").write_text(json.dumps(result))
    (m,) = parse(tmp_path / "success.json").measurements
    row = m.requests.row(silent, named=True)
    assert (row["status"], row["output_tokens"], row["ttft_ms"], row["error"]) == ("ok", 0, 0.0, None)


def test_vllm_metadata_keys_are_workload_or_server_by_what_they_name(tmp_path):
    (m,) = parse(DETAILED).measurements  # --metadata gpu=H100 tp=1
    assert m.server_settings == {"model_id": "meta-llama/Llama-3.1-8B-Instruct", "gpu": "H100", "tp": "1"}
    assert m.workload["num_prompts"] == 12 and m.workload["burstiness"] == 1.0
    _, path = _detailed(tmp_path, input_len="1000", prefix_len="64", max_model_len="4096", framework="vllm")
    (m,) = parse(path).measurements
    assert (m.workload["input_len"], m.workload["prefix_len"]) == ("1000", "64")
    assert (m.server_settings["max_model_len"], m.server_settings["framework"]) == ("4096", "vllm")


@pytest.mark.parametrize(
    "name,workload,server",
    [
        ("vllm-1000-2000.json", {"input_len": 1000, "output_len": 2000}, {"server": "vllm"}),
        ("vllm-1000-2000-.json", {"input_len": 1000, "output_len": 2000}, {"server": "vllm"}),
        ("vllm-1000-2000-ep.json", {"input_len": 1000, "output_len": 2000},
         {"server": "vllm", "expert_parallel": True}),
        ("sgl-sharegpt.json", {"dataset_name": "sharegpt"}, {"server": "sgl"}),
        ("openai-10.0qps-itkns-512-otkns-85-concurrency1-Llama-3.1-8B-Instruct-20250325-230422.json",
         {"input_len": 512, "output_len": 85}, {}),
        ("openai-4.0qps-Llama-3.1-8B-Instruct-20260901-120000.json", {}, {}),
        ("vllm-10.0qps-Llama-3.1-8B-Instruct-20260901-120000.json", {}, {}),
    ],
)  # fmt: skip
def test_lengths_and_server_a_file_name_states(name, workload, server):
    assert (vllm.named_workload(f"some/folder/{name}"), vllm.named_server(name)) == (workload, server)


def _sweep_run(root, folder, run, serve, bench):
    """A `vllm bench sweep serve` run file: the result with the overrides and run_number merged in, as the tool does."""
    result = json.loads((SLA_TREE / "request_rate=4/run=0.json").read_text())
    result.update(serve)
    result.update(bench)
    result["run_number"] = run
    path = root / folder / ("warmup.json" if run == -1 else f"run={run}.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result))
    return path


def test_sweep_folder_places_serve_overrides_in_server_settings_and_bench_overrides_in_workload(tmp_path):
    serve, bench = {"max_num_seqs": 4, "max_model_len": 2048}, {"random_input_len": 128, "dataset_name": "random"}
    folder = "SERVE--max_num_seqs=4-max_model_len=2048-BENCH--random_input_len=128-dataset_name=random"
    dump = decode(read_local(_sweep_run(tmp_path, folder, 0, serve, bench))[0])
    assert registry.recognise(dump)[1] == vllm.RESULT  # SGLang's key names as BENCH overrides: still vLLM
    (m,) = parse(_sweep_run(tmp_path, folder, 0, serve, bench)).measurements
    assert m.server_settings == {"model_id": "meta-llama/Llama-3.1-8B-Instruct", **serve}  # max_model_len too
    assert m.workload["random_input_len"] == 128 and "max_model_len" not in m.workload
    assert "run_number" not in m.workload | m.server_settings  # the repeat index is not a setting
    (repeat,) = parse(_sweep_run(tmp_path, folder, 1, serve, bench)).measurements
    assert (repeat.workload, repeat.server_settings) == (m.workload, m.server_settings)
    (other,) = parse(
        _sweep_run(tmp_path, folder.replace("=4", "=8"), 0, {**serve, "max_num_seqs": 8}, bench)
    ).measurements
    assert other.server_settings["max_num_seqs"] == 8 and other.workload == m.workload


def test_sweep_folder_without_the_overrides_in_the_file_is_read_from_the_folder_name(tmp_path):
    (m,) = parse(SLA_TREE / "request_rate=4/run=0.json").measurements
    assert m.server_settings["max_num_seqs"] == 128


def test_sweep_warmup_run_is_recognised_and_not_read(tmp_path):
    warmup = _sweep_run(tmp_path, "SERVE--max_num_seqs=4", -1, {"max_num_seqs": 4}, {})
    parsed, _ = registry.parse_file(read_local(warmup)[0])
    assert parsed.kind == vllm.SWEEP_WARMUP and not parsed.measurements and "warm-up" in parsed.note
    shutil.copy(warmup, tmp_path / "warmup.json")  # a result named warmup.json outside a sweep is still read
    data = json.loads((tmp_path / "warmup.json").read_text())
    data.pop("run_number")
    (tmp_path / "warmup.json").write_text(json.dumps(data))
    assert parse(tmp_path / "warmup.json").measurements
