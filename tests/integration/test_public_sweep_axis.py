"""The load generator's settings are the sweep's axis, on every public folder (the run.yaml sidecars of examples/public
over ../shared/data/dumps/public): each keeps the runs and load levels its files hold. The counts below were read
from the files (their rates, concurrency caps, lengths, servers), not taken from the code: no public folder holds
files that differ ONLY in a load-generator setting at different levels, so none merges; aurotripathy's three caps at
one rate are an ambiguous level and stay apart, as before."""

import json
from pathlib import Path

import pytest

from assets.runs.collect import collect
from tests.support.data import DATA, REPO_ROOT

EXAMPLES = REPO_ROOT / "examples" / "public"
PUBLIC = DATA / "dumps" / "public"

# report folder below examples/public -> the load levels of each of its runs (sorted).
EXPECTED_LEVELS = {
    # one AIPerf profile each (c16; c1); one AIPerf 0.12 artifact at concurrency 1
    "aiperf-anud18-qwen36-vllm-aiperf-benchmark/5090-agent": [1],
    "aiperf-anud18-qwen36-vllm-aiperf-benchmark/qwen3vl-ngrok-chatbot_flat": [1],
    "aiperf-rohan9446-mlx-inference-bench": [1],
    # one GuideLLM benchmark (constant 10 rps); two models with one synchronous benchmark each
    "guidellm-rsevilla87-guidellm-results-parser": [1],
    "guidellm-thesteve0-local-llm-benchmark": [1, 1],
    # llm-d reports (v0.1 and v0.2 of each stage merged): 8 stages on the H100s, 15 req/s twice (stage 0, a warm-up
    # only a comment of the config names, and stage 3: repeats of one level); 9 stages of 1 ... 150 req/s on the MI325Xs
    "llm-d-benchmark-praveingk-llmd-benchmarking-nxtgen/granite-k8s-round-robin": [7],
    "llm-d-benchmark-praveingk-llmd-benchmarking-nxtgen/granite-llmd-precise-prefix": [7],
    "llm-d-benchmark-praveingk-llmd-benchmarking-nxtgen/sarvam-baseline": [9],
    "llm-d-benchmark-praveingk-llmd-benchmarking-nxtgen/sarvam-llmd-pd-4p4d": [9],
    # LLMPerf concurrency folders 1, 10, 20, 30, 40, 50 of one workload
    "llmperf-johnsonafool-llmperf-test": [6],
    # LoadGen: a Server run (two logs of one level: repeats) and an Offline run (another scenario)
    "mlperf-sheldon-xiong-xxd-mlpinf": [1, 1],
    "mlperf-thien-lm-mlperflogexample": [1],
    # SGLang: 6 ISL/OSL files per server, request_rate inf at max_concurrency 2, 4, 8, 16 (one GPU: ... 256)
    "sglang-coco-alen-vlm-quant-eval/dp4-bf16": [4] * 6,
    "sglang-coco-alen-vlm-quant-eval/dp4-w8a8-fp8": [4] * 6,
    "sglang-coco-alen-vlm-quant-eval/one-gpu-bf16": [8] * 6,
    # 15 lines: 5 ISL/OSL workloads; 200/1000 at concurrency 8 ... 185, six times at 185 (repeats)
    "sglang-thmyl-vllm": [1, 1, 1, 1, 6],
    # trtllm-bench: one throughput report (1000 requests at once); batch-1 latency reports, one per input length, each
    # its own workload with one level (concurrency 1): 15 lengths per RTX PRO 6000 engine, 5 on the RTX 4070 Ti
    "trtllm-bench-leiwu0812-gpt-oss-eagle3-bench": [1],
    "trtllm-bench-masahiro-kubota-trtllm-latency/rtx4070ti-bf16": [1] * 5,
    "trtllm-bench-masahiro-kubota-trtllm-latency/rtx6000-bf16": [1] * 15,
    "trtllm-bench-masahiro-kubota-trtllm-latency/rtx6000-fp8": [1] * 15,
    # each config: rate 10 with max_concurrency 1, 16 and 256: one rate, three caps, kept apart by cap
    "vllm-aurotripathy-vllm-bench/fp16-1xh100": [1, 1, 1],
    "vllm-aurotripathy-vllm-bench/fp8-1xh100": [1, 1, 1],
    "vllm-aurotripathy-vllm-bench/fp8-2xh100": [1, 1, 1],
    "vllm-aurotripathy-vllm-bench/fp8-4xrngd": [1, 1, 1],
    "vllm-aurotripathy-vllm-bench/fp8-8xh100": [1, 1, 1],
    # gemma: rates 0.1 ... 1.0 of one workload (num_prompts scaled with the rate: a sample size)
    "vllm-djangodevreng-dgx-spark-benchmarks/gemma-4-26b-bf16": [6],
    # nemotron: 07 random 4k and 08 ShareGPT (burstiness 0.7), 09 1k/4k and 10 random 4k capped at 25 (burstiness
    # 1.0): four token mixes, one level each
    "vllm-djangodevreng-dgx-spark-benchmarks/nemotron-3-nano-fp8": [1, 1, 1, 1],
    # three deployments x rates 10, 30, inf; two frameworks x rates 1, 10, 20, 30, 35, inf
    "vllm-nerdalert-vllm-bench-automation": [3, 3, 3],
    "vllm-nerdalert-vllm-benchmark-graphs": [6, 6],
    # one rate per ISL/OSL (or ShareGPT) file: 5 workloads; x 3 servers on nebius
    "vllm-simon-mo-r1-benchmark/h200-vllm": [1] * 5,
    "vllm-simon-mo-r1-benchmark/nebius-h200": [1] * 15,
}


@pytest.fixture(scope="module")
def runs() -> list[dict]:
    return [run for folder in sorted(EXAMPLES.iterdir()) if folder.is_dir() for run in collect(folder).runs]


def test_every_public_folder_keeps_its_runs_and_load_levels(runs):
    levels: dict[str, list[int]] = {}
    for run in runs:
        levels.setdefault(Path(run["report_dir"]).relative_to(EXAMPLES).as_posix(), []).append(run["load_points"])
    assert {folder: sorted(counts) for folder, counts in levels.items()} == EXPECTED_LEVELS


def test_caps_at_one_rate_stay_apart_by_cap_and_each_point_carries_its_cap():
    """aurotripathy ran rate 10 at three caps: the rate alone does not order them and none repeats another, so each
    cap is its own run, named by it (the existing split), with the cap on its load point."""
    batch = collect(EXAMPLES / "vllm-aurotripathy-vllm-bench")
    raw = {
        path.name: json.loads(path.read_bytes())
        for path in (PUBLIC / "vllm-aurotripathy-vllm-bench").glob("*/**/*.json")
    }
    assert {(r["request_rate"], r["max_concurrency"]) for r in raw.values()} == {(10.0, 1), (10.0, 16), (10.0, 256)}
    labels = {r["run_id"]: r["run_label"] for r in batch.runs}
    for m in batch.measurements:
        cap = raw[Path(m["source"]).name]["max_concurrency"]
        assert m["max_concurrency"] == cap and labels[m["run_id"]].endswith(f"[max_concurrency={cap}]")
    assert len(batch.runs) == 15


def test_a_capped_and_an_uncapped_file_of_different_token_mixes_are_told_apart_by_their_mix():
    """nemotron's 09-reasoning (0.2 req/s, no cap) and 10-monday-peak (1.5 req/s, cap 25) share their burstiness;
    the cap no longer tells them apart (it is the load generator's), their tokens per request do."""
    batch = collect(EXAMPLES / "vllm-djangodevreng-dgx-spark-benchmarks")
    by_name = {Path(m["source"]).name: m for m in batch.measurements}
    peak, reasoning = by_name["10-monday-peak.json"], by_name["09-reasoning.json"]
    assert (peak["max_concurrency"], reasoning["max_concurrency"]) == (25, None)
    labels = {r["run_id"]: r["run_label"] for r in batch.runs}
    assert peak["run_id"] != reasoning["run_id"]
    assert labels[peak["run_id"]].endswith(
        "[burstiness=1.0 observed_mean_input_tokens=4068 observed_mean_output_tokens=418]"
    )
    assert "max_concurrency" not in labels[reasoning["run_id"]]
