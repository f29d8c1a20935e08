"""What one load level is: measurements that differ in workload or server settings are never pooled as repeats;
a rate that cannot be computed is NULL with its reason; requests that produced nothing are not latency samples."""

import json
import shutil
from pathlib import Path

import duckdb
import numpy as np
import pytest

from assets.formats.dumps.exchange import Measurement, Parsed
from assets.inputs.files import Fetched
from assets.runs.assemble import Point, Read, Run, split_configs
from assets.runs.collect import IDLE_SIDECAR_NOTE, collect_all
from assets.runs.store import write_observed
from tests.support.data import SHARED, WORKED_RUN_YAML
from tests.support.observed import build, points

PUBLIC = SHARED / "data" / "dumps" / "public"
# simon-mo/R1-Benchmark @ d538cdc9, vLLM benchmark_serving.py (April 2025): 500 ShareGPT requests with arrays
SHAREGPT = (
    PUBLIC / "vllm-simon-mo-r1-benchmark/saved-results/v0.8.4/deepseek-r1/h200/2025-04-16/deepseek-r1-h200-04162025"
    "/vllm-sharegpt.json"
)
# johnsonafool/llmperf-test @ c15ec8c3, LLMPerf token_benchmark_ray.py: the per-request half of concurrency 10
LLMPERF_INDIVIDUAL = (
    PUBLIC / "llmperf-johnsonafool-llmperf-test/result_outputs/gpt-4.1-nano_20260120_165625/raw_data/performance/10"
    "/gpt-4-1-nano_550_150_individual_responses.json"
)


def _run_folder(root: Path, name: str, content: bytes | None = None, source: Path | None = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "run.yaml").write_text(WORKED_RUN_YAML)
    if source is not None:
        (root / name).symlink_to(source)
    else:
        (root / name).write_bytes(content or b"")
    return root


def test_requests_that_produced_nothing_are_counted_and_left_out_of_every_percentile(tmp_path):
    """The real file (with the `latencies` array newer vLLM writes), with five requests emptied the ways tools
    write them: no output token (vLLM: output_lens 0, ttfts 0.0, error ""), one token with an end-to-end
    latency of 0, one token whose first token came after its last (with more tokens the TPOT would be
    negative and the row quarantined as broken)."""
    result = json.loads(SHAREGPT.read_bytes())
    # newer vLLM writes `latencies` beside the arrays (this file's version derives E2E = TTFT + the gaps)
    result["latencies"] = [t + sum(gaps) for t, gaps in zip(result["ttfts"], result["itls"])]
    emptied = {3: "no output", 50: "no output", 120: "no output", 200: "e2e 0", 300: "ttft after e2e"}
    for i, how in emptied.items():
        if how == "no output":
            result["output_lens"][i], result["ttfts"][i], result["itls"][i] = 0, 0.0, []
        elif how == "e2e 0":  # one token: no TPOT, so no negative TPOT to quarantine the row by
            result["output_lens"][i], result["ttfts"][i], result["latencies"][i] = 1, 0.0, 0.0
        else:
            result["output_lens"][i], result["ttfts"][i] = 1, result["latencies"][i] + 1.0
    folder = _run_folder(tmp_path / "dumps" / "r1", "result.json", json.dumps(result).encode())
    conn = build(duckdb.connect(), collect_all([str(folder.parent)]))
    stats = conn.execute(
        "SELECT requests_sent, requests_ok, requests_failed, requests_unusable FROM observed.request_stats"
    )
    assert stats.fetchone() == (500, 495, 5, 5)

    kept = [i for i in range(500) if i not in emptied]
    ttft_ms = np.array(result["ttfts"])[kept] * 1000
    e2e_ms = np.array(result["latencies"])[kept] * 1000
    (point,) = points(conn)
    assert point["ttft_p50_ms"] == pytest.approx(np.percentile(ttft_ms, 50))
    assert point["ttft_p99_ms"] == pytest.approx(np.percentile(ttft_ms, 99))
    assert point["e2e_p50_ms"] == pytest.approx(np.percentile(e2e_ms, 50))
    assert point["requests_unusable"] == 5 and point["requests_ok"] == 495


def test_a_level_whose_rate_cannot_be_computed_is_null_with_its_reason_never_zero(tmp_path):
    folder = _run_folder(tmp_path / "dumps" / "c10", "individual_responses.json", source=LLMPERF_INDIVIDUAL)
    conn = build(duckdb.connect(), collect_all([str(folder.parent)]))
    (point,) = points(conn)
    raw = json.loads(LLMPERF_INDIVIDUAL.read_bytes())
    assert point["requests_ok"] == sum(1 for r in raw if not r.get("error_code")) == 10
    assert point["achieved_requests_per_s"] is None
    assert point["achieved_rate_missing_reason"].startswith("no rate")


def test_a_run_yaml_that_governs_no_dump_says_so(tmp_path):
    root = tmp_path / "dumps"
    _run_folder(root / "empty", "notes.txt", b"just notes")
    _run_folder(root / "r1", "result.json", SHAREGPT.read_bytes())
    batch = collect_all([str(root)])
    idle = [f.source for f in batch.files if f.note == IDLE_SIDECAR_NOTE]
    assert idle == [str(root / "empty" / "run.yaml")]


def _point(name: str, rate: float, workload: dict, server: dict | None = None) -> Point:
    fetched = Fetched(name, b"{}", name * 2)
    parsed = Parsed("vllm bench serve result", "vllm", "d", tool_version="0.8.4")
    m = Measurement(name, "rate", rate, None, {}, workload=workload, server_settings=server or {})
    parsed.measurements.append(m)
    return Point(Read(fetched, Path("."), parsed), m)  # type: ignore[arg-type]


def _run(pts: list[Point]) -> Run:
    config = {"runtime_settings": json.dumps({"max_num_seqs": 128}), "tool_version": None, "load_kind": "rate"}
    return Run(Path("/d"), Path("."), "vllm", config, "r1", "run-x", "c", ["run.yaml"], [p.read for p in pts], pts)


def test_workloads_and_server_settings_split_a_folder_into_runs_named_by_what_differs():
    # simon-mo's nebius folder in miniature: ISL/OSL variants at one rate, on vLLM and on SGLang
    pts = [
        _point("vllm-1000-2000.json", 10, {"input_len": 1000, "output_len": 2000}, {"server": "vllm"}),
        _point("vllm-5000-1000.json", 10, {"input_len": 5000, "output_len": 1000}, {"server": "vllm"}),
        _point("sgl-1000-2000.json", 10, {"input_len": 1000, "output_len": 2000}, {"server": "sglang"}),
    ]
    runs = split_configs(_run(pts))
    assert sorted(r.label for r in runs) == [
        "r1 [input_len=1000 output_len=2000 server=sglang]",
        "r1 [input_len=1000 output_len=2000 server=vllm]",
        "r1 [input_len=5000 output_len=1000 server=vllm]",
    ]
    assert len({r.run_id for r in runs}) == 3 and all(len(r.points) == 1 for r in runs)
    sglang = next(r for r in runs if "sglang" in r.label)
    assert json.loads(sglang.config["runtime_settings"]) == {"max_num_seqs": 128, "server": "sglang"}
    assert sglang.config["tool_version"] == "0.8.4" and sglang.workload == {"input_len": 1000, "output_len": 2000}


def test_files_equal_in_all_but_the_repeat_stay_one_run_with_its_id():
    pts = [_point(f"run={i}.json", 10, {"dataset": "random", "input_len": 1000}) for i in range(3)]
    (run,) = split_configs(_run(pts))
    assert (run.label, run.run_id, len(run.points)) == ("r1", "run-x", 3)


# anud18/qwen36-vllm-aiperf-benchmark @ d254ffc7, AIPerf 0.10.0: profile_export.jsonl, 10 per-request records
AIPERF_C1 = PUBLIC / "aiperf-anud18-qwen36-vllm-aiperf-benchmark/results/nvfp4/qwen3vl_ngrok/chatbot_flat/c1"


def test_the_warehouse_owns_the_records_it_publishes(tmp_path):
    """Per-request files are copied into the warehouse once (by content); editing or deleting the dump afterwards
    changes nothing observed.requests returns."""
    run = tmp_path / "dumps" / "c1"
    shutil.copytree(AIPERF_C1, run)
    (run / "run.yaml").write_text(WORKED_RUN_YAML)
    records = tmp_path / "warehouse" / "records"
    conn = duckdb.connect(str(tmp_path / "build.duckdb"))
    write_observed(conn, collect_all([str(run.parent)]), records)
    before = conn.execute("SELECT * FROM observed.requests ORDER BY request_index").fetchall()
    raw = [json.loads(line) for line in (AIPERF_C1 / "profile_export.jsonl").read_text().splitlines() if line]
    assert len(before) == len(raw) == 10
    (owned,) = records.glob("*.parquet")
    (reader,) = {r[0] for r in conn.execute("SELECT reader FROM observed.request_sources").fetchall()}
    assert reader == f"stored in the warehouse: records/{owned.name}"

    (run / "profile_export.jsonl").write_text("")  # the dump edited, then gone
    (run / "profile_export.jsonl").unlink()
    assert conn.execute("SELECT * FROM observed.requests ORDER BY request_index").fetchall() == before

    stamp = owned.stat().st_mtime_ns
    shutil.copytree(AIPERF_C1, run, dirs_exist_ok=True)
    write_observed(conn, collect_all([str(run.parent)]), records)  # the same content: the copy is reused
    assert [p.name for p in records.iterdir()] == [owned.name] and owned.stat().st_mtime_ns == stamp


# djangodevreng/dgx-spark-benchmarks @ 56365367, `vllm bench serve` 0.26.0: neither file names its dataset
NEMOTRON = (
    PUBLIC / "vllm-djangodevreng-dgx-spark-benchmarks/results/nemotron-3/nemotron-3-nano-omni-30b-a3b-reasoning/fp8"
)


def test_files_alike_but_for_their_token_mix_are_not_repeats():
    """07-office-baseline (random 4k) and 08-sharegpt run at the same rate and burstiness and state no dataset:
    only their tokens per request tell them apart, so they are two runs, never one level's two repeats."""
    batch = collect_all([str(Path("examples/public/vllm-djangodevreng-dgx-spark-benchmarks").resolve())])
    raw = {name: json.loads((NEMOTRON / name).read_bytes()) for name in ("07-office-baseline.json", "08-sharegpt.json")}
    assert {(r["request_rate"], r["burstiness"]) for r in raw.values()} == {(0.3, 0.7)}
    by_source = {m["source"].rsplit("/", 1)[1]: m for m in batch.measurements}
    runs = {by_source[name]["run_id"] for name in raw}
    assert len(runs) == 2 and all(by_source[name]["repeat_index"] == 0 for name in raw)
    for name, result in raw.items():
        run = next(r for r in batch.runs if r["run_id"] == by_source[name]["run_id"])
        mix = json.loads(run["workload"])
        assert mix["observed_mean_input_tokens"] == round(result["total_input_tokens"] / result["completed"])
        assert mix["observed_mean_output_tokens"] == round(result["total_output_tokens"] / result["completed"])
