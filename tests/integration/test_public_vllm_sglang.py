"""The public vLLM and SGLang outputs in ../shared/data/dumps/public, read in place: every number the parsers
give equals an independent recomputation from the raw file (plain json and numpy here, not the project's
code); files that differ in workload or server carry different `workload` / `server_settings`, true repeats
equal ones; the example sidecars in examples/public load without quarantine."""

import json
import os
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pytest

from assets.formats.dumps import registry, sglang, vllm
from assets.formats.dumps.decode import decode
from assets.inputs.files import read_local
from assets.runs.collect import collect
from assets.runs.store import write_observed
from tests.support.data import DATA, REPO_ROOT
from tests.support.observed import parse

PUBLIC = DATA / "dumps" / "public"
EXAMPLES = REPO_ROOT / "examples" / "public"
FOLDERS = sorted(p.name for p in PUBLIC.iterdir() if p.name.startswith(("vllm-", "sglang-")))
SIMON = PUBLIC / "vllm-simon-mo-r1-benchmark/saved-results/v0.8.4/deepseek-r1"
SIMON_H200 = SIMON / "h200/2025-04-16/deepseek-r1-h200-04162025"
SIMON_NEBIUS = SIMON / "nebius-h200/2025-04-18/deepseek-r1-nebius-h200-04182025"
AURO = PUBLIC / "vllm-aurotripathy-vllm-bench"
COCO = PUBLIC / "sglang-coco-alen-vlm-quant-eval/result"
THMYL = PUBLIC / "sglang-thmyl-vllm/run_vllm/script/benchmark_results.json"
NERD_GRAPHS = PUBLIC / "vllm-nerdalert-vllm-benchmark-graphs/results.json"
NERD_AUTO = PUBLIC / "vllm-nerdalert-vllm-bench-automation/vllm-benchmark-graphs/results.json"
DJANGO = PUBLIC / "vllm-djangodevreng-dgx-spark-benchmarks/results"
NOT_DUMPS = {"SOURCE.md", "meta.json", "10-monday-peak.log"}


def raw(path: Path) -> list[dict]:
    """The file's results as plain JSON: one object, or one per line (Python's json reads `Infinity`)."""
    text = path.read_text()
    try:
        return [json.loads(text)]
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def data_files(folder: str) -> list[Path]:
    return sorted(p for p in (PUBLIC / folder).rglob("*") if p.is_file() and p.name not in NOT_DUMPS)


ALL_FILES = [(folder, path) for folder in FOLDERS for path in data_files(folder)]


def test_every_public_folder_of_vllm_and_sglang_is_covered():
    assert FOLDERS == [
        "sglang-coco-alen-vlm-quant-eval",
        "sglang-thmyl-vllm",
        "vllm-aurotripathy-vllm-bench",
        "vllm-djangodevreng-dgx-spark-benchmarks",
        "vllm-nerdalert-vllm-bench-automation",
        "vllm-nerdalert-vllm-benchmark-graphs",
        "vllm-simon-mo-r1-benchmark",
    ]
    assert len(ALL_FILES) == 18 + 1 + 15 + 10 + 1 + 1 + 20


@pytest.mark.parametrize("folder,path", ALL_FILES, ids=lambda v: v if isinstance(v, str) else v.name)
def test_each_file_is_read_by_its_tool_whole_with_one_measurement_per_result(folder, path):
    dump = decode(read_local(path)[0])
    answers = {m.__name__.rsplit(".", 1)[-1]: m.recognise(dump) for m in registry.READERS}
    kinds = [k for k in answers.values() if k]
    expected = (
        sglang.RESULT_LINES
        if folder.startswith("sglang-")
        else vllm.RESULT_LINES
        if len(raw(path)) > 1
        else vllm.RESULT
    )
    assert kinds == [expected], answers
    parsed = parse(path)
    assert not parsed.problems and len(parsed.measurements) == len(raw(path))


@pytest.mark.parametrize("path", [PUBLIC / "vllm-djangodevreng-dgx-spark-benchmarks" / p for p in (
    "results/gemma-4/gemma-4-26b-a4b-it/bf16-v23/meta.json",
    "results/nemotron-3/nemotron-3-nano-omni-30b-a3b-reasoning/fp8/10-monday-peak.log",
)], ids=lambda p: p.name)  # fmt: skip
def test_the_runners_own_files_are_not_dumps(path):
    assert registry.parse_file(read_local(path)[0])[0] is None


# ---- numbers against an independent recomputation ---------------------------------------


DETAILED = sorted(SIMON_H200.glob("*.json")) + sorted(AURO.rglob("*.json"))


def _per_request(result: dict) -> dict[str, np.ndarray]:
    """TTFT, E2E (TTFT + the gaps: these files write no `latencies`), TPOT and pooled ITL in ms, successes only."""
    ok = np.array([not e for e in result["errors"]])
    ttft = np.array(result["ttfts"])[ok] * 1000
    e2e = ttft + np.array([sum(g) for g in result["itls"]])[ok] * 1000
    out = np.array(result["output_lens"])[ok]
    tpot = ((e2e - ttft) / np.maximum(out - 1, 1))[out > 1]
    itl = np.array([g for gaps, good in zip(result["itls"], ok) if good for g in gaps]) * 1000
    return {"ttft": ttft, "e2e": e2e, "tpot": tpot, "itl": itl, "out": out}


@pytest.mark.parametrize("path", DETAILED, ids=lambda p: f"{p.parent.name[:12]}/{p.name[:40]}")
def test_detailed_vllm_results_equal_numpy_over_their_own_arrays(path):
    (result,) = raw(path)
    (m,) = parse(path).measurements
    mine = _per_request(result)
    # The file's summary is numpy (linear) over its arrays: the tool, checked.
    assert np.percentile(mine["ttft"], 99) == pytest.approx(result["p99_ttft_ms"], rel=1e-9)
    # TPOT needs E2E, which these files do not write: TTFT + the gaps (time to the last token) is the tool's
    # latency (time to the end of the stream) to within ~1e-6.
    assert np.median(mine["tpot"]) == pytest.approx(result["median_tpot_ms"], rel=1e-5)
    assert np.percentile(mine["itl"], 99) == pytest.approx(result["p99_itl_ms"], rel=1e-9)
    # What we parsed equals the recomputation.
    assert m.values["ttft_p99_ms"] == pytest.approx(np.percentile(mine["ttft"], 99), rel=1e-9)
    assert m.values["ttft_p50_ms"] == pytest.approx(np.median(mine["ttft"]), rel=1e-9)
    assert m.values["tpot_p99_ms"] == pytest.approx(np.percentile(mine["tpot"], 99), rel=1e-5)
    assert m.values["itl_p50_ms"] == pytest.approx(np.median(mine["itl"]), rel=1e-9)
    assert m.values["achieved_requests_per_s"] == pytest.approx(result["completed"] / result["duration"], rel=1e-9)
    assert m.values["output_tokens_mean"] == pytest.approx(sum(result["output_lens"]) / result["completed"])
    assert (m.values["requests_ok"], m.values["requests_failed"]) == (result["completed"], 0)
    requests = m.requests
    assert requests.height == len(result["ttfts"]) == result["num_prompts"]
    ok = requests.filter(pl.col("status") == "ok")
    assert np.allclose(ok.get_column("ttft_ms").to_numpy(), mine["ttft"], rtol=1e-12)
    assert np.allclose(ok.get_column("e2e_ms").to_numpy(), mine["e2e"], rtol=1e-12)
    assert ok.get_column("output_tokens").to_list() == list(mine["out"])
    assert requests.get_column("input_tokens").to_list() == result["input_lens"]


SUMMARIES = [p for p in sorted(SIMON_NEBIUS.glob("*.json"))] + sorted(DJANGO.rglob("[0-9]*.json"))
SUMMARY_LINES = [NERD_GRAPHS, NERD_AUTO]


def _check_summary(m, result):
    assert m.values["achieved_requests_per_s"] == pytest.approx(result["completed"] / result["duration"], rel=1e-9)
    assert m.values["achieved_requests_per_s"] == pytest.approx(result["request_throughput"], rel=1e-9)
    assert m.values["output_tokens_per_s"] == pytest.approx(result["total_output_tokens"] / result["duration"])
    assert m.values["input_tokens_mean"] == pytest.approx(result["total_input_tokens"] / result["completed"])
    for ours, theirs in (
        ("ttft_p50_ms", "median_ttft_ms"),
        ("ttft_p99_ms", "p99_ttft_ms"),
        ("tpot_p99_ms", "p99_tpot_ms"),
    ):
        assert m.values[ours] == result[theirs]
    failed = result["failed"] if "failed" in result else result["num_prompts"] - result["completed"]
    assert (m.values["requests_ok"], m.values["requests_failed"]) == (result["completed"], failed)
    assert m.values["requests_sent"] == result["num_prompts"]


@pytest.mark.parametrize("path", SUMMARIES, ids=lambda p: p.name)
def test_summary_only_vllm_results_equal_the_raw_keys(path):
    (result,) = raw(path)
    (m,) = parse(path).measurements
    _check_summary(m, result)
    if "p95_ttft_ms" in result:  # vLLM 0.26 with --metric-percentiles 50,90,95,99
        assert (m.values["ttft_p95_ms"], m.values["e2e_p90_ms"]) == (result["p95_ttft_ms"], result["p90_e2el_ms"])


@pytest.mark.parametrize("path", SUMMARY_LINES, ids=lambda p: p.parent.name)
def test_appended_vllm_lines_equal_the_raw_keys_and_inferred_failures_are_said(path):
    lines = raw(path)
    parsed = parse(path)
    for m, result in zip(parsed.measurements, lines, strict=True):
        _check_summary(m, result)
    assert "failed requests inferred as num_prompts - completed" in parsed.note


def test_nerdalert_inf_run_lost_985_of_2000_prompts_and_says_so():
    parsed = parse(NERD_GRAPHS)
    inf = [m for m in parsed.measurements if m.load_kind == "concurrency"]
    assert [(m.concurrency, m.values["requests_ok"], m.values["requests_failed"]) for m in inf] == [
        (2000.0, 1015, 985),
        (2000.0, 1015, 985),
    ]
    assert ("requests_failed", "inferred: num_prompts - completed", 985.0, "requests") in inf[0].tool_metrics
    assert "line 6: 985" in parsed.note and "line 12: 985" in parsed.note


def test_djangodevreng_monday_peak_failures_are_the_files_own():
    (m,) = parse(DJANGO / "nemotron-3/nemotron-3-nano-omni-30b-a3b-reasoning/fp8/10-monday-peak.json").measurements
    assert (m.values["requests_ok"], m.values["requests_failed"], m.values["requests_sent"]) == (198, 102, 300)
    assert (m.load_kind, m.offered_rate_per_s, m.workload["max_concurrency"]) == ("rate", 1.5, 25)


SGLANG_FILES = sorted(COCO.rglob("*.jsonl")) + [THMYL]


@pytest.mark.parametrize("path", SGLANG_FILES, ids=lambda p: f"{p.parent.name[-12:]}/{p.name}")
def test_sglang_lines_equal_the_raw_keys(path):
    lines = raw(path)
    for m, line in zip(parse(path).measurements, lines, strict=True):
        assert m.offered_rate_per_s is None and m.load_kind == "concurrency"  # Infinity: closed loop
        assert m.concurrency == line["max_concurrency"]
        assert m.values["achieved_requests_per_s"] == pytest.approx(line["completed"] / line["duration"], rel=1e-9)
        assert m.values["input_tokens_per_s"] == line["input_throughput"]
        assert m.values["output_tokens_mean"] == pytest.approx(line["total_output_tokens"] / line["completed"])
        for ours, theirs in (("ttft_p50_ms", "median_ttft_ms"), ("ttft_p99_ms", "p99_ttft_ms"),
                             ("itl_p95_ms", "p95_itl_ms"), ("e2e_p99_ms", "p99_e2e_latency_ms")):  # fmt: skip
            assert m.values[ours] == line[theirs]
        if "p90_ttft_ms" in line:
            assert m.values["ttft_p90_ms"] == line["p90_ttft_ms"]
        assert ("concurrency", "mean in flight (measured)", line["concurrency"], "requests") in m.tool_metrics


def test_coco_alen_failures_come_from_the_prompt_count_in_the_file_name():
    for path in sorted(COCO.rglob("sglang_*_20_32768_*.jsonl")):
        parsed = parse(path)
        for m, line in zip(parsed.measurements, raw(path), strict=True):
            assert (m.values["requests_sent"], m.values["requests_failed"]) == (20, 20 - line["completed"])
        assert "num_prompts (from the file name) - completed" in parsed.note
    one = parse(COCO / "Qwen2.5-VL-3B-Instruct-benchServer/sglang_0427_20_32768_32.jsonl").measurements[0]
    assert (one.values["requests_ok"], one.values["requests_failed"]) == (19, 1)


# ---- workload and server settings: what makes files different load levels or configs ---------


def only(path: Path):
    (m,) = parse(path).measurements
    return m


def test_simon_mo_isl_osl_variants_at_one_rate_are_different_workloads():
    names = ["vllm-1000-2000-.json", "vllm-5000-1000-.json", "vllm-10000-500-.json", "vllm-30000-100-.json",
             "vllm-sharegpt-.json"]  # fmt: skip
    measured = [only(SIMON_NEBIUS / n) for n in names]
    assert {m.offered_rate_per_s for m in measured} == {10.0}
    assert len({json.dumps(m.workload, sort_keys=True) for m in measured}) == 5
    assert measured[0].workload["input_len"] == 1000 and measured[0].workload["output_len"] == 2000
    assert measured[4].workload["dataset_name"] == "sharegpt"


def test_simon_mo_servers_are_told_apart_by_the_file_name_and_share_the_workload():
    vllm_, ep, sgl = (
        only(SIMON_NEBIUS / n) for n in ("vllm-1000-2000-.json", "vllm-1000-2000-ep.json", "sgl-1000-2000.json")
    )
    assert vllm_.workload == ep.workload == sgl.workload
    settings = [vllm_.server_settings, ep.server_settings, sgl.server_settings]
    assert [s["server"] for s in settings] == ["vllm", "vllm", "sgl"] and ep.server_settings["expert_parallel"] is True
    assert len({json.dumps(s, sort_keys=True) for s in settings}) == 3
    # The same workload on the other cluster (per-request file): equal workload.
    assert only(SIMON_H200 / "vllm-1000-2000.json").workload == vllm_.workload


def test_aurotripathy_max_concurrency_under_one_rate_is_the_workload_and_configs_share_it():
    folder = AURO / "FP8-2xH100-results-70B-llama-date-2025-03-28"
    measured = {only(p).workload["max_concurrency"]: only(p) for p in folder.glob("*.json")}
    assert sorted(measured) == [1, 16, 256] and {m.offered_rate_per_s for m in measured.values()} == {10.0}
    assert all(m.workload["input_len"] == 512 and m.workload["output_len"] == 85 for m in measured.values())
    other = only(next((AURO / "FP16-1xH100-results-8B-llama-date-2025-03-25").glob("*concurrency16-*.json")))
    assert other.workload == measured[16].workload  # same cell on another config: the same workload
    assert other.server_settings != measured[16].server_settings  # model_id differs


def test_coco_alen_lengths_at_one_concurrency_are_different_workloads_and_servers_share_them():
    bf16 = COCO / "Qwen2.5-VL-3B-Instruct-benchServer"
    at_2 = [m for p in sorted(bf16.glob("*.jsonl")) for m in parse(p).measurements if m.concurrency == 2]
    assert len(at_2) == 6 and len({json.dumps(m.workload, sort_keys=True) for m in at_2}) == 6
    fp8 = COCO / "Qwen2.5-VL-3B-Instruct-w8a8fp8-benchServer"
    for name in ("sglang_0427_20_512_32.jsonl", "sglang_0427_20_32768_256.jsonl"):
        assert [m.workload for m in parse(bf16 / name).measurements] == [
            m.workload for m in parse(fp8 / name).measurements
        ]


def test_thmyl_lengths_differ_and_its_six_runs_at_200_1000_are_true_repeats():
    lines = raw(THMYL)
    measured = parse(THMYL).measurements
    key = [(line["max_concurrency"], line["random_input_len"], line["random_output_len"]) for line in lines]
    repeats = [m for m, k in zip(measured, key, strict=True) if k == (185, 200, 1000)]
    assert len(repeats) == 6 and all(m.workload == repeats[0].workload for m in repeats)
    at_185 = {json.dumps(m.workload, sort_keys=True) for m, k in zip(measured, key, strict=True) if k[0] == 185}
    assert len(at_185) == 5  # 200/200, 200/3000, 1000/3000, 3000/3000, 200/1000
    assert repeats[0].workload == {"backend": "sglang", "dataset_name": "random-ids", "random_input_len": 200,
                                   "random_output_len": 1000, "random_range_ratio": 0.9}  # fmt: skip


def test_nerdalert_framework_and_deployment_are_server_settings_and_the_workload_is_shared():
    graphs = parse(NERD_GRAPHS).measurements
    assert [m.server_settings["framework"] for m in graphs] == ["vllm"] * 6 + ["sgl"] * 6
    assert graphs[0].workload == graphs[6].workload and graphs[0].offered_rate_per_s == graphs[6].offered_rate_per_s
    auto = parse(NERD_AUTO).measurements
    assert [m.server_settings["deployment"] for m in auto] == ["no-features"] * 3 + ["base"] * 3 + ["kvcache"] * 3
    assert auto[0].workload["input_len"] == "1000" and auto[0].workload["output_len"] == "500"  # --metadata strings
    assert auto[0].workload == auto[3].workload == auto[6].workload


# ---- the example sidecars ---------------------------------------------------------------------------


@pytest.mark.parametrize("folder", FOLDERS)
def test_example_sidecars_load_every_file_without_quarantine(folder, tmp_path):
    batch = collect(EXAMPLES / folder)
    assert not batch.rejects and not batch.request_rejects
    assert {Path(f.source).name for f in batch.files if f.status != "read"} <= {
        "meta.json",
        "10-monday-peak.log",
        "SOURCE.md",
    }
    linked = {
        (Path(top) / name).resolve()
        for top, _dirs, names in os.walk(EXAMPLES / folder, followlinks=True)
        for name in names
        if name != "run.yaml"
    }
    assert {p.resolve() for p in data_files(folder)} <= linked  # every public file is governed by a sidecar
    conn = duckdb.connect(str(tmp_path / "w.duckdb"))
    reports = write_observed(conn, batch)
    assert {name: r.quarantined for name, r in reports.items() if r.quarantined} == {}
    conn.close()


def test_collect_over_examples__one_run_per_sidecar_config_and_workload():
    """One run per sidecar config and stated workload: simon-mo's 4 server configs x 5 workloads (4 random
    ISL/OSL pairs from the file names, ShareGPT), aurotripathy's 5 configs x 3 concurrency caps, coco-alen's 3
    servers x 6 ISL/OSL pairs; never a workload pooled as a repeat of another."""
    labels = {folder: sorted(r["run_label"] for r in collect(EXAMPLES / folder).runs) for folder in FOLDERS}
    simon_mo = labels["vllm-simon-mo-r1-benchmark"]
    assert sorted({label.split(" [")[0] for label in simon_mo}) == [
        "h200-vllm",
        "nebius-h200-sglang",
        "nebius-h200-vllm",
        "nebius-h200-vllm-ep",
    ]
    assert len(simon_mo) == 20 and sum("dataset_name=sharegpt" in label for label in simon_mo) == 4
    assert len(labels["vllm-aurotripathy-vllm-bench"]) == 15 and len(labels["sglang-coco-alen-vlm-quant-eval"]) == 18


def test_collect_over_examples__server_settings_within_one_sidecar_give_separate_runs():
    """Depends on assets/runs/collect: one file holding two servers
    (nerdalert's `framework` vllm/sgl) or three deployments gives one run per server setting."""
    assert len(collect(EXAMPLES / "vllm-nerdalert-vllm-benchmark-graphs").runs) == 2
    assert len(collect(EXAMPLES / "vllm-nerdalert-vllm-bench-automation").runs) == 3


def test_run_yaml_overrides_give_each_server_of_one_folder_its_runtime():
    """One folder, two servers (nerdalert: `framework` vllm / sgl in one file; simon-mo nebius: `vllm-`, `-ep`,
    `sgl-` file names): run.yaml's `overrides` set the runtime each server's files state, with no file linked
    one by one."""
    graphs = {r["runtime_settings"]: r for r in collect(EXAMPLES / "vllm-nerdalert-vllm-benchmark-graphs").runs}
    by_framework = {json.loads(k)["framework"]: (r["runtime"], r["runtime_version"]) for k, r in graphs.items()}
    assert by_framework == {"vllm": ("vLLM", "0.8.3"), "sgl": ("SGLang", "0.4.4.post1")}
    nebius = [r for r in collect(EXAMPLES / "vllm-simon-mo-r1-benchmark").runs if r["run_label"].startswith("nebius")]
    runtimes = {r["run_label"].split(" [")[0]: (r["runtime"], r["runtime_version"]) for r in nebius}
    assert runtimes == {
        "nebius-h200-vllm": ("vLLM", "0.8.4"),
        "nebius-h200-vllm-ep": ("vLLM", "0.8.4"),
        "nebius-h200-sglang": ("SGLang", "0.4.5.post1"),
    }
    for run in nebius:
        settings = json.loads(run["runtime_settings"])
        assert settings.get("enable_expert_parallel", False) == run["run_label"].startswith("nebius-h200-vllm-ep")
        assert ("dp_size" in settings) == run["run_label"].startswith("nebius-h200-sglang")
