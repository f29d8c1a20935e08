"""LoadGen logs from runs on our own hardware are dumps too, read by the benchmark side's parser."""

import pytest

from assets.formats.dumps import loadgen_run
from assets.runs.collect import collect_all
from tests.support.data import DATA

AMD = DATA / "mlperf/submissions/v5.1/closed/AMD/results/8xMI300X_2xEPYC_9575F/llama2-70b-99"
RUN_YAML = """\
accelerator: AMD Instinct MI300X
accelerator_count: 8
model: meta-llama/Llama-2-70b-chat-hf
precision: fp8
runtime: vLLM
runtime_version: 0.9.0
arrival: poisson
"""


@pytest.fixture
def batch(tmp_path):
    root = tmp_path / "dumps" / "mi300x"
    root.mkdir(parents=True)
    (root / "run.yaml").write_text(RUN_YAML)
    for scenario in ("Server", "Offline"):
        (root / scenario.lower()).symlink_to(AMD / scenario / "performance" / "run_1", target_is_directory=True)
    return collect_all([str(tmp_path / "dumps")])


def test_a_server_run_is_an_open_loop_load_level_in_ms(batch):
    # Server and Offline are different workloads (LoadGen's scenario): two runs of one config, never one sweep
    assert sorted(r["run_label"].split("scenario=")[1].split(" ")[0].rstrip("]") for r in batch.runs) == [
        "Offline",
        "Server",
    ]
    for run in batch.runs:
        assert (run["tool"], run["accelerator_id"], run["load_points"]) == ("mlperf-loadgen", "amd-mi300x-192gb", 1)
    server = next(m for m in batch.measurements if m["location"] == "LoadGen Server run")
    assert server["offered_rate_per_s"] == pytest.approx(83.5)
    assert server["achieved_requests_per_s"] == pytest.approx(81.6768)
    assert server["output_tokens_per_s"] == pytest.approx(24593.8)
    assert server["requests_ok"] == 73728
    assert server["ttft_p99_ms"] == pytest.approx(1914.647645)
    assert server["tpot_p99_ms"] == pytest.approx(193.380124)
    assert server["tool_definitions"] == loadgen_run.DEFINITIONS


def test_an_offline_run_has_throughput_and_no_latency(batch):
    offline = next(m for m in batch.measurements if m["location"] == "LoadGen Offline run")
    assert offline["offered_rate_per_s"] is None and offline["ttft_p95_ms"] is None
    assert offline["output_tokens_per_s"] == pytest.approx(27803.9)


def test_detail_and_summary_of_one_run_are_one_measurement(batch):
    assert len(batch.measurements) == 2 and not batch.rejects
    statuses = {(f.detected_format, f.status) for f in batch.files if "mlperf_log" in f.source}
    assert statuses == {(loadgen_run.DETAIL, "read"), (loadgen_run.SUMMARY, "read")}


def test_an_accuracy_run_is_quarantined_saying_why(tmp_path):
    root = tmp_path / "dumps"
    root.mkdir()
    (root / "run.yaml").write_text(RUN_YAML)
    text = (AMD / "Server/performance/run_1/mlperf_log_summary.txt").read_text()
    (root / "mlperf_log_summary.txt").write_text(text.replace("PerformanceOnly", "AccuracyOnly"))
    batch = collect_all([str(root)])
    assert not batch.measurements and "AccuracyOnly run, not a performance run" in batch.rejects[0].reason
