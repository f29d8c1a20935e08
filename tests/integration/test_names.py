"""Names as real files write them: MLPerf's accelerator spellings and the quantised checkpoints of real
benchmark dumps (read in place from ../shared) resolve to their canonical ids, never guessed."""

import json
from pathlib import Path

import pytest

from assets.core import canonical
from assets.mlperf_rounds.ingest import read_locations
from tests.support.data import DATA

PUBLIC = DATA / "dumps" / "public"
# Accelerator spellings of the public dumps that the alias tables once did not know, each with the chip it is.
SPELLINGS = {
    "NVIDIA GeForce RTX 4090 (Ada Lovelace)": "nvidia-rtx-4090",
    "Virtualized NVIDIA H100-SXM-80GB": "nvidia-h100-sxm-80gb",
    "NVIDIA A100-SXM-80GB CTS": "nvidia-a100-sxm-80gb",
    "H100-SXM-80GB": "nvidia-h100-sxm-80gb",
}


def written_accelerators(path: Path) -> list[str]:
    """Every Accelerator / accelerator_model_name value in a JSON file, as written."""
    found: list[str] = []

    def walk(value):
        if isinstance(value, dict):
            for key, item in value.items():
                if key in ("Accelerator", "accelerator_model_name") and isinstance(item, str):
                    found.append(item)
                else:
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(json.loads(path.read_text()))
    return found


def test_mlperf_accelerator_spellings_resolve_in_the_rows_read_from_real_files():
    files = sorted(
        path
        for path in (DATA / "mlperf" / "summary").rglob("cm-result.json")
        if any(spelling in path.read_text() for spelling in SPELLINGS)
    )
    written = {name for path in files for name in written_accelerators(path) if name in SPELLINGS}
    assert written == set(SPELLINGS)
    batch = read_locations([str(path) for path in files], [])
    rows = [r for r in batch.rows if r["accelerator_raw"] in SPELLINGS]
    assert {r["accelerator_raw"] for r in rows} == written
    assert all(r["accelerator_known"] and r["accelerator_id"] == SPELLINGS[r["accelerator_raw"]] for r in rows)


@pytest.mark.parametrize(
    "relative,key,model,precision",
    [
        (
            "vllm-aurotripathy-vllm-bench/FP8-1xH100-results-8B-llama-date-2025-03-26/"
            "openai-10.0qps-itkns-512-otkns-85-concurrency1-Meta-Llama-3.1-8B-Instruct-FP8-20250326-214933.json",
            "model_id",
            "llama-3.1-8b-instruct",
            "fp8",
        ),
        (
            "vllm-aurotripathy-vllm-bench/FP8-8xH100-results-70B-llama-date-2025-03-27/"
            "openai-10.0qps-itkns-512-otkns-85-concurrency1-Meta-Llama-3.1-70B-Instruct-FP8-20250327-022508.json",
            "model_id",
            "llama-3.1-70b-instruct",
            "fp8",
        ),
        (
            "vllm-simon-mo-r1-benchmark/saved-results/v0.8.4/deepseek-r1/h200/2025-04-16/"
            "deepseek-r1-h200-04162025/vllm-sharegpt.json",
            "model_id",
            "deepseek-r1",
            None,  # a local path: the model is its folder; the precision is not in the name
        ),
        (
            "vllm-djangodevreng-dgx-spark-benchmarks/results/nemotron-3/nemotron-3-nano-omni-30b-a3b-reasoning/fp8/"
            "08-sharegpt.json",
            "model_id",
            None,  # a model the table does not know: kept raw, flagged; its precision is still read
            "fp8",
        ),
        ("guidellm-thesteve0-local-llm-benchmark/results/qwen3.6-35b-a3b-Q8_0.json", "model", None, "q8_0"),
        ("guidellm-thesteve0-local-llm-benchmark/results/gemma4-31b-dense.json", "model", None, "q4_k_xl"),
    ],
)
def test_real_checkpoint_names_give_their_base_model_and_implied_precision(relative, key, model, precision):
    path = PUBLIC / relative
    names = set()

    def walk(value):
        if isinstance(value, dict):
            for k, item in value.items():
                if k == key and isinstance(item, str):
                    names.add(item)
                else:
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(json.loads(path.read_text()))
    (name,) = names
    found = canonical.model_and_precision(name)
    assert found.model_id == model, name
    assert (found.implied_precision.precision if found.implied_precision else None) == precision, name
