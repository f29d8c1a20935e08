"""LoadGen logs that teams committed from runs on their own hardware (../shared/data/dumps/public): LoadGen 5.1.0
DeepSeek-R1 (sheldon-xiong/xxd-mlpinf) and LoadGen 4.0 SDXL (thien-lm/MlPerfLogExample), read through their
run.yaml sidecars in examples/public/. Every number is recomputed here from the raw log text with json and re."""

import json
import os
import re

import pytest

from assets.formats.dumps import loadgen_run, registry
from assets.formats.dumps.decode import decode
from assets.inputs.files import read_local
from assets.runs.collect import collect_all
from tests.support.data import DATA, REPO_ROOT

PUBLIC = DATA / "dumps" / "public"
XXD = PUBLIC / "mlperf-sheldon-xiong-xxd-mlpinf"
SCITIX = XXD / "from-SCITIX.tar.gz/SCITIX/closed/SCITIX/results/SCITIX-H200-SXM-141GBx8/deepseek-r1"
SERVER = SCITIX / "Server/performance/run_1"
OFFLINE = SCITIX / "Offline/performance/run_1"
ROOT_SERVER = XXD / "mlperf_log_detail.txt"  # a separate Server run, no summary beside it
SDXL = PUBLIC / "mlperf-thien-lm-mlperflogexample"
EXAMPLES = REPO_ROOT / "examples" / "public"

LOGS = [
    (SERVER / "mlperf_log_detail.txt", loadgen_run.DETAIL),
    (SERVER / "mlperf_log_summary.txt", loadgen_run.SUMMARY),
    (OFFLINE / "mlperf_log_detail.txt", loadgen_run.DETAIL),
    (OFFLINE / "mlperf_log_summary.txt", loadgen_run.SUMMARY),
    (ROOT_SERVER, loadgen_run.DETAIL),
    (SDXL / "mlperf_log_detail.txt", loadgen_run.DETAIL),
    (SDXL / "mlperf_log_summary.txt", loadgen_run.SUMMARY),
]


def raw_events(path):
    """The detail log's keys and values, read with json line by line (first occurrence of a key wins)."""
    events = {}
    for line in path.read_text().splitlines():
        if line.startswith(":::MLLOG"):
            event = json.loads(line[len(":::MLLOG") :])
            events.setdefault(event["key"], event["value"])
    return events


def raw_summary(path):
    """`label : value` lines of a summary, as text (first occurrence wins)."""
    out = {}
    for line in path.read_text().splitlines():
        label, sep, value = line.partition(":")
        if sep and value.strip():
            out.setdefault(re.sub(r"\s+", " ", label.strip()), value.strip())
    return out


def parsed(path):
    dump = decode(read_local(path)[0])
    kind = loadgen_run.recognise(dump)
    return loadgen_run.parse(dump, kind)


def measurement(path):
    result = parsed(path)
    assert not result.problems, result.problems
    (one,) = result.measurements
    return one


def metric(m, name):
    return next(value for metric_name, _stat, value, _unit in m.tool_metrics if metric_name == name)


@pytest.mark.parametrize("path,kind", LOGS, ids=lambda v: v if isinstance(v, str) else str(v).split("public/")[-1])
def test_each_log_is_recognised_by_the_loadgen_reader_alone(path, kind):
    dump = decode(read_local(path)[0])
    answers = {m.__name__.rsplit(".", 1)[-1]: m.recognise(dump) for m in registry.READERS}
    assert [k for k in answers.values() if k] == [kind], answers


@pytest.mark.parametrize(
    "path",
    [SERVER / "mlperf_log_detail.txt", OFFLINE / "mlperf_log_detail.txt", ROOT_SERVER, SDXL / "mlperf_log_detail.txt"],
)
def test_the_tool_version_is_loadgen_s_own_without_its_build_commit(path):
    stated = raw_events(path)["loadgen_version"]  # "5.1.0 @ b9ed3c7fec", "4.0 @ fa4fe53e53"
    assert parsed(path).tool_version == stated.split(" @ ")[0] and parsed(path).tool_version in ("5.1.0", "4.0")


def test_a_summary_alone_does_not_state_the_version():
    assert parsed(SERVER / "mlperf_log_summary.txt").tool_version is None


@pytest.mark.parametrize("path", [SERVER / "mlperf_log_detail.txt", ROOT_SERVER])
def test_a_51_server_run_in_ms_from_ns_with_completed_tokens(path):
    raw = raw_events(path)
    m = measurement(path)
    v = m.values
    assert m.offered_rate_per_s == raw["effective_target_qps"] == 1
    assert v["achieved_requests_per_s"] == pytest.approx(raw["result_completed_samples_per_sec"])
    assert v["requests_ok"] == raw["result_query_count"] * raw["generated_samples_per_query"] == 4388
    assert v["duration_s"] == pytest.approx(4388 / raw["result_completed_samples_per_sec"])
    # completed tokens/s, never result_token_throughput (1.7e-08: not a tokens/s figure)
    assert v["output_tokens_per_s"] == pytest.approx(raw["result_completed_tokens_per_second"])
    assert raw["result_token_throughput"] < 1e-6 and v["output_tokens_per_s"] > 3000
    assert v["output_tokens_mean"] == pytest.approx(
        raw["result_completed_tokens_per_second"] / raw["result_completed_samples_per_sec"]
    )
    for ours, theirs in (("50", "50.00"), ("90", "90.00"), ("95", "95.00"), ("99", "99.00")):
        assert v[f"ttft_p{ours}_ms"] == pytest.approx(raw[f"result_first_token_{theirs}_percentile_latency_ns"] / 1e6)
        assert v[f"tpot_p{ours}_ms"] == pytest.approx(raw[f"result_time_per_output_token_{theirs}_percentile_ns"] / 1e6)
        assert v[f"e2e_p{ours}_ms"] == pytest.approx(raw[f"result_{theirs}_percentile_latency_ns"] / 1e6)


def test_loadgen_s_error_line_is_not_a_failed_request():
    summary = (SERVER / "mlperf_log_summary.txt").read_text()
    assert "1 ERROR encountered" in summary and re.search(r"Result is : VALID", summary)
    errors = [
        json.loads(line[len(":::MLLOG") :])
        for line in (SERVER / "mlperf_log_detail.txt").read_text().splitlines()
        if '"is_error": true' in line
    ]
    assert [e["value"] for e in errors] == [
        "IssueQueryThread 0 Ending early: Max query count reached. query_count 4388"
    ]
    m = measurement(SERVER / "mlperf_log_detail.txt")
    assert m.values["requests_failed"] == 0 and metric(m, "loadgen_errors") == len(errors) == 1
    assert metric(m, "result_validity_is_valid") == 1.0


def test_a_51_offline_run_has_samples_tokens_and_no_latency():
    raw = raw_events(OFFLINE / "mlperf_log_detail.txt")
    m = measurement(OFFLINE / "mlperf_log_detail.txt")
    v = m.values
    samples = raw["result_query_count"] * raw["generated_samples_per_query"]
    assert m.offered_rate_per_s is None and samples == 4388 == v["requests_ok"]
    assert v["achieved_requests_per_s"] == pytest.approx(raw["result_samples_per_second"])
    assert v["duration_s"] == pytest.approx(samples / raw["result_samples_per_second"])
    assert v["duration_s"] == pytest.approx(raw["result_max_latency_ns"] / 1e9, rel=1e-3)  # the last sample's end
    assert v["output_tokens_per_s"] == pytest.approx(raw["result_tokens_per_second"])
    assert all(v[f"{measure}_p99_ms"] is None for measure in ("ttft", "tpot", "e2e"))
    assert m.workload["scenario"] == "Offline"


def test_the_summary_alone_gives_the_same_server_figures():
    text = raw_summary(SERVER / "mlperf_log_summary.txt")
    v = measurement(SERVER / "mlperf_log_summary.txt").values
    assert v["achieved_requests_per_s"] == pytest.approx(float(text["Completed samples per second"]))
    assert v["output_tokens_per_s"] == pytest.approx(float(text["Completed tokens per second"]))
    assert v["ttft_p99_ms"] == pytest.approx(float(text["99.00 percentile first token latency (ns)"]) / 1e6)
    assert v["tpot_p99_ms"] == pytest.approx(float(text["99.00 percentile time to output token (ns)"]) / 1e6)
    assert v["requests_ok"] is None  # the summary does not state the query count


def test_an_offline_summary_without_test_parameters_still_reads():
    text = (OFFLINE / "mlperf_log_summary.txt").read_text()
    head, _params, _rest = re.split(r"(=+\nTest Parameters Used\n=+\n)", text)[0:3]
    stripped = (
        head + "Test Parameters Used\n\nNo warnings encountered during test.\n\nNo errors encountered during test.\n"
    )
    dump = decode(read_local(OFFLINE / "mlperf_log_summary.txt")[0])
    dump.data = stripped.encode()
    result = loadgen_run.parse(dump, loadgen_run.SUMMARY)
    (m,) = result.measurements
    assert m.values["achieved_requests_per_s"] == pytest.approx(
        float(raw_summary(OFFLINE / "mlperf_log_summary.txt")["Samples per second"])
    )
    assert m.values["output_tokens_per_s"] == pytest.approx(4964.9) and "samples_per_query" not in m.workload


def test_two_server_runs_at_one_rate_with_other_test_settings_are_different_workloads():
    submission, test_run = measurement(SERVER / "mlperf_log_detail.txt"), measurement(ROOT_SERVER)
    assert submission.offered_rate_per_s == test_run.offered_rate_per_s
    assert (
        (submission.workload["min_duration_ms"], test_run.workload["min_duration_ms"])
        == (
            raw_events(SERVER / "mlperf_log_detail.txt")["effective_min_duration_ms"],
            raw_events(ROOT_SERVER)["effective_min_duration_ms"],
        )
        == (600000, 10000)
    )
    assert submission.workload != test_run.workload


def test_a_40_sdxl_offline_run_has_samples_and_no_token_figures():
    raw = raw_events(SDXL / "mlperf_log_detail.txt")
    assert not [k for k in raw if "token" in k]
    v = measurement(SDXL / "mlperf_log_detail.txt").values
    assert v["requests_ok"] == raw["result_query_count"] * raw["generated_samples_per_query"] == 10
    assert v["achieved_requests_per_s"] == pytest.approx(raw["result_samples_per_second"])
    assert v["duration_s"] == pytest.approx(raw["result_max_latency_ns"] / 1e9, rel=1e-3)
    assert v["output_tokens_per_s"] is None and v["output_tokens_mean"] is None


# --- the run.yaml sidecars in examples/public -------------------------------------------------------------------


@pytest.mark.parametrize("folder", ["mlperf-sheldon-xiong-xxd-mlpinf", "mlperf-thien-lm-mlperflogexample"])
def test_the_sidecar_links_the_shared_folder_relatively(folder):
    link = EXAMPLES / folder / "results"
    assert link.is_symlink() and not os.path.isabs(os.readlink(link))
    assert link.resolve() == (PUBLIC / folder).resolve()


def test_the_deepseek_sidecar_reads_every_performance_log():
    batch = collect_all([str(EXAMPLES / "mlperf-sheldon-xiong-xxd-mlpinf")])
    # Server and Offline are different workloads (separate runs); the two Server logs at 1 qps differ only in
    # their run length (600 s and 10 s minimum), a sample size: repeats of one load level
    server, offline = sorted(batch.runs, key=lambda r: "Offline" in r["run_label"])
    assert "scenario=Server" in server["run_label"] and "scenario=Offline" in offline["run_label"]
    assert (server["load_points"], server["repeats_max"], offline["load_points"]) == (1, 2, 1)
    for run in batch.runs:
        assert (run["tool"], run["accelerator_id"], run["model_id"], run["accelerator_count"]) == (
            "mlperf-loadgen",
            "nvidia-h200-sxm-141gb",
            "deepseek-r1",
            8,
        )
        assert run["tool_version"] == "5.1.0"
    read = sorted(
        f.source.split("results/", 1)[1] for f in batch.files if f.status == "read" and "mlperf_log" in f.source
    )
    assert len(read) == 5 and not batch.rejects
    by_source = {m["source"].split("results/", 1)[1]: m for m in batch.measurements}
    assert set(by_source) == {
        "mlperf_log_detail.txt",
        str((SERVER / "mlperf_log_detail.txt").relative_to(XXD)),
        str((OFFLINE / "mlperf_log_detail.txt").relative_to(XXD)),
    }
    assert all(m["requests_failed"] == 0 and m["achieved_requests_per_s"] > 0 for m in batch.measurements)


def test_the_sdxl_sidecar_reads_one_offline_run():
    batch = collect_all([str(EXAMPLES / "mlperf-thien-lm-mlperflogexample")])
    (run,) = batch.runs
    assert (run["accelerator_id"], run["model_id"]) == ("nvidia-h100-sxm-80gb", "stable-diffusion-xl-base-1.0")
    (m,) = batch.measurements
    assert m["achieved_requests_per_s"] == pytest.approx(
        raw_events(SDXL / "mlperf_log_detail.txt")["result_samples_per_second"]
    )
    assert not batch.rejects
