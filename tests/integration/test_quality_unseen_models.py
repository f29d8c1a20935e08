"""Quality evidence for a model no alias table knows, on the real lm-evaluation-harness files of
../shared/data/evals-unseen-models (Llama-3.2-3B-Instruct at bf16, AWQ and GPTQ W4A16; read in place): every
figure is kept under the model's own key with model_known false, each file's precision comes out as its SOURCE.md
states it, and every figure equals the file's own (read here with plain json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assets.runs.collect import collect
from tests.support.data import DATA

UNSEEN = DATA / "evals-unseen-models"
FOLDER = UNSEEN / "lm-eval" / "yedhuk-awq-gptq-pipelines"
FILES = sorted(FOLDER.glob("*.json"))
# file -> precision, as SOURCE.md states it (the fp16 file loaded bfloat16: config.model_dtype)
EXPECTED_PRECISION = {
    "llama3_2_3b_fp16_results.json": "bf16",
    "llama3_2_3b_awq_results.json": "int4",
    "llama3_2_3b_gptq_results.json": "int4",
}


@pytest.fixture(scope="module")
def batch():
    return collect(UNSEEN)


def rows_of(batch, path: Path) -> list[dict]:
    return [r for r in batch.quality if r["source"] == str(path)]


def test_every_file_is_read_and_nothing_is_quarantined(batch):
    assert len(FILES) == 3
    assert batch.quality_rejects == []
    assert {f.source: f.status for f in batch.quality_files} == {str(p): "read" for p in FILES}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_model_is_kept_raw_under_its_key_at_the_files_precision(batch, path):
    config = json.loads(path.read_text())["config"]
    rows = rows_of(batch, path)
    assert {(r["model"], r["model_known"], r["model_raw"]) for r in rows} == {
        ("llama-3.2-3b-instruct", False, config["model"])
    }
    assert {r["precision"] for r in rows} == {EXPECTED_PRECISION[path.name]}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_figures_equal_the_files_own(batch, path):
    results = json.loads(path.read_text())["results"]
    got = {(r["task"], r["metric"]): (r["value"], r["stderr"]) for r in rows_of(batch, path)}
    expected = {}
    for task, row in results.items():
        for key, value in row.items():
            if key in ("alias", "name", "sample_len", "sample_count") or "_stderr" in key:
                continue
            metric, _, filter_name = key.partition(",")
            stderr = row[f"{metric}_stderr,{filter_name}"]
            name = metric if filter_name == "none" else key
            expected[(task, name)] = (value, stderr if isinstance(stderr, float) else None)
    assert got == expected


def test_wikitext_perplexities_are_point_values_and_nothing_else_is(batch):
    for path in FILES:
        results = json.loads(path.read_text())["results"]
        na = {
            (task, key.split(",")[0].removesuffix("_stderr"))
            for task, row in results.items()
            for key, value in row.items()
            if "_stderr" in key and value == "N/A"
        }
        points = {(r["task"], r["metric"]) for r in rows_of(batch, path) if r["point_value"]}
        assert points == na == {("wikitext", m) for m in ("word_perplexity", "byte_perplexity", "bits_per_byte")}
        notes = {r["stderr_note"] for r in rows_of(batch, path) if r["point_value"]}
        assert all(n.startswith("point value: the harness reports no sampling error for this metric") for n in notes)
