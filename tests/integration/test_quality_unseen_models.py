"""Quality evidence for a model no alias table knows, on the real lm-evaluation-harness files of
../shared/data/evals-unseen-models (Llama-3.2-3B-Instruct at bf16, AWQ and GPTQ W4A16; read in place): every
figure is kept under the model's own key with model_known false, each file's precision comes out as its SOURCE.md
states it, and every figure equals the file's own (read here with plain json). The gate gives all five statuses on
a perplexity bound and an accuracy bound at five schemes, recomputed here from the JSON; AWQ and GPTQ stay apart
and a w4a8 run never borrows w4a16 evidence."""

from __future__ import annotations

import json
import math
from pathlib import Path

import polars as pl
import pytest

from assets.runs.collect import collect
from tests.support.data import DATA
from tests.support.quality import quality_gate

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
    assert {r["scheme"] for r in rows} == {s for s, name in FILE_OF_SCHEME.items() if name == path.name}


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


# Three profiles of the model as a team writes it (in no alias table): a perplexity bound, an accuracy bound, none.
PROFILES = {
    "profiles": [
        {
            "name": f"llama32-{name}",
            "model": "meta-llama/Llama-3.2-3B-Instruct",
            "slo": {"ttft_p95_ms": 2000},
            "delivered_fraction_prior": [0.5, 0.8],
            **({"quality": [requirement]} if requirement else {}),
        }
        for name, requirement in (
            ("perplexity", {"task": "wikitext", "metric": "word_perplexity", "max_relative": 1.05}),
            ("mmlu", {"task": "mmlu", "metric": "acc", "min_relative": 0.99}),
            ("none", None),
        )
    ]
}
# The configs offered, as (precision, scheme): the three evaluated, and two never evaluated (a w4a8 run must not
# borrow the w4a16 evidence), plus an int4 run whose scheme is known in part (AWQ and GPTQ both agree with it).
OFFERED = (
    ("bf16", "bf16"),
    ("int4", "int4-w4a16-awq"),
    ("int4", "int4-w4a16-gptq"),
    ("int4", "int4-w4a8"),
    ("fp8", "fp8-w8a8-dynamic"),
    ("int4", "int4"),
)
FILE_OF_SCHEME = {
    "bf16": "llama3_2_3b_fp16_results.json",
    "int4-w4a16-awq": "llama3_2_3b_awq_results.json",
    "int4-w4a16-gptq": "llama3_2_3b_gptq_results.json",
}


def figure(scheme: str, task: str, key: str) -> tuple[float, float | None] | None:
    """value, stderr (None for "N/A") of the file evaluated at this scheme, read with plain json."""
    if scheme not in FILE_OF_SCHEME:
        return None
    row = json.loads((FOLDER / FILE_OF_SCHEME[scheme]).read_text())["results"][task]
    stderr = row[key.replace(",", "_stderr,", 1)]
    return row[key], stderr if isinstance(stderr, float) else None


def expected_status(requirement: dict, scheme: str) -> str:
    """The gate's rule recomputed: where both have a stderr, the ratio to bf16's value by its 95% interval carrying
    both (delta method) against the ratio bound; a point value (no stderr) against ratio x bf16's value as is;
    bf16 itself meets a ratio of 1 or looser."""
    key = requirement["metric"] + ",none"
    found = figure(scheme, requirement["task"], key)
    if found is None:
        return "untested"
    value, stderr = found
    if scheme == "bf16":
        return "meets"
    bound = requirement.get("max_relative") or requirement["min_relative"]
    reference, reference_stderr = figure("bf16", requirement["task"], key)
    if stderr is not None and reference_stderr is not None:  # the ratio's interval carries both stderrs
        ratio = value / reference
        half = 1.96 * math.sqrt(stderr**2 + ratio**2 * reference_stderr**2) / reference
        low, high = ratio - half, ratio + half
    else:  # a point value (wikitext's perplexities): the value against ratio x reference
        bound, low, high = bound * reference, value, value
    if "max_relative" in requirement:
        return "meets" if high <= bound else "fails" if low > bound else "inconclusive"
    return "meets" if low >= bound else "fails" if high < bound else "inconclusive"


@pytest.fixture(scope="module")
def gate(batch, tmp_path_factory) -> pl.DataFrame:
    offered = [
        {"profile": p["name"], "model_id": "llama-3.2-3b-instruct", "precision": precision, "precision_scheme": s}
        for p in PROFILES["profiles"]
        for precision, s in OFFERED
    ]
    return quality_gate(tmp_path_factory.mktemp("gate") / "w.duckdb", batch, PROFILES, offered)


def test_five_statuses_on_the_real_files_of_a_model_in_no_alias_table(gate):
    statuses = {(r["profile"], r["scheme"]): r["quality_status"] for r in gate.to_dicts()}
    for profile in PROFILES["profiles"]:
        for _precision, scheme in OFFERED:
            if "quality" not in profile:
                expected = "not_required"
            elif scheme == "int4":
                expected = "untested"  # known in part: AWQ and GPTQ both agree with it
            else:
                expected = expected_status(profile["quality"][0], scheme)
            assert statuses[(profile["name"], scheme)] == expected, (profile["name"], scheme)
    assert {statuses[("llama32-perplexity", s)] for _p, s in OFFERED} == {"meets", "fails", "untested"}
    assert {statuses[("llama32-mmlu", s)] for _p, s in OFFERED} == {"meets", "fails", "inconclusive", "untested"}
    assert set(statuses.values()) == {"meets", "fails", "inconclusive", "untested", "not_required"}


def test_w4a16_evidence_is_never_used_for_a_w4a8_run_and_awq_and_gptq_are_two_rows(gate):
    rows = {(r["profile"], r["scheme"]): r for r in gate.to_dicts()}
    w4a8 = rows[("llama32-perplexity", "int4-w4a8")]
    assert (w4a8["quality_status"], w4a8["value"], w4a8["evidence_scheme"]) == ("untested", None, None)
    awq, gptq = rows[("llama32-perplexity", "int4-w4a16-awq")], rows[("llama32-perplexity", "int4-w4a16-gptq")]
    assert (awq["value"], gptq["value"]) == (
        figure("int4-w4a16-awq", "wikitext", "word_perplexity,none")[0],
        figure("int4-w4a16-gptq", "wikitext", "word_perplexity,none")[0],
    )
    assert "point value: the harness reports no sampling error" in awq["quality_evidence"]
    partial = rows[("llama32-perplexity", "int4")]
    assert "agrees with 2 evaluated schemes (int4-w4a16-awq, int4-w4a16-gptq)" in partial["quality_evidence"]
