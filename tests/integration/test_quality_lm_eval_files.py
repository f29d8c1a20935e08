"""Quality evidence on the real lm-evaluation-harness files of ../shared/data/evals (read in place): every figure
read equals the file's own, the files' proportions agree with their own sample counts, each file's base model
and precision come out as its SOURCE.md states them, and the quality gate gives every status on configs built
from them, each status recomputed here from the JSON with plain arithmetic. MLPerf's own accuracy targets hold
for every closed-division result of the real v5.1 round table."""

from __future__ import annotations

import collections
import json
import math
from pathlib import Path

import polars as pl
import pytest

from assets.core import mlperf_names
from assets.runs.collect import collect
from tests.support.data import DATA, V51_TABLE
from tests.support.quality import quality_gate

EVALS = DATA / "evals"
FILES = sorted(EVALS.rglob("*.json"))
NOT_METRICS = {"alias", "name", "sample_len", "sample_count"}

# (folder part of the path) -> (base model, precision), as each folder's SOURCE.md states them.
EXPECTED_IDENTITY = {
    "qwen3_6_27b__bf16__": ("qwen3.6-27b", "bf16"),
    "qwen3_6_27b__fp8__": ("qwen3.6-27b", "fp8"),
    "qwen3_6_27b__int4_awq__": ("qwen3.6-27b", "int4"),  # AWQ W4A16
    "qwen3_6_27b__nvfp4__": ("qwen3.6-27b", "nvfp4"),
    "awq-asym-fp8-block": ("llama-3-8b-instruct", "fp8"),  # AWQ + FP8_BLOCK
    "awq-asym-fp8-dynamic": ("llama-3-8b-instruct", "fp8"),  # AWQ + FP8_DYNAMIC
    "Llama-2-7b-chat-hf/full": ("llama-2-7b-chat", "fp16"),  # no dtype: the checkpoint's float16
    "Llama-2-7b-chat-hf/load_in_8bit": ("llama-2-7b-chat", "int8"),  # bitsandbytes 8-bit
    "Llama-2-13b-chat-hf/full": ("llama-2-13b-chat", "fp16"),
    "Llama-2-13b-chat-hf/load_in_8bit": ("llama-2-13b-chat", "int8"),
}


def identity_of(path: Path) -> tuple[str, str]:
    [found] = [value for part, value in EXPECTED_IDENTITY.items() if part in path.as_posix()]
    return found


def file_figures(path: Path) -> dict[tuple[str, str], tuple[float, float | None]]:
    """(task, metric) -> (value, stderr) as the file writes them: `results`, then `groups` rows it does not
    repeat; a `none` filter named without it; a stderr that is not a number (absent, "N/A") as None."""
    payload = json.loads(path.read_text())
    rows = dict(payload["results"])
    rows.update({task: row for task, row in (payload.get("groups") or {}).items() if task not in rows})
    figures = {}
    for task, row in rows.items():
        for key, value in row.items():
            if key in NOT_METRICS or "_stderr" in key:
                continue
            metric, _, filter_name = key.partition(",")
            stderr = row.get(f"{metric}_stderr" + (f",{filter_name}" if filter_name else ""))
            name = metric if filter_name in ("", "none") else f"{metric},{filter_name}"
            figures[(task, name)] = (value, stderr if isinstance(stderr, float) else None)
    return figures


@pytest.fixture(scope="module")
def batch():
    return collect(EVALS)


def rows_of(batch, path: Path) -> list[dict]:
    return [r for r in batch.quality if r["source"] == str(path)]


def test_every_real_eval_file_is_recognised_and_nothing_is_quarantined(batch):
    assert len(FILES) == 14
    assert {f.source for f in batch.quality_files} == {str(p) for p in FILES}
    assert {f.detected_format for f in batch.quality_files} == {
        "lm-evaluation-harness results (0.4+)",
        "lm-evaluation-harness results (0.3)",
    }
    assert batch.quality_rejects == []
    assert not batch.runs  # quality files are no load test


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(EVALS).as_posix())
def test_parsed_figures_equal_the_files_own(batch, path):
    parsed = {(r["task"], r["metric"]): (r["value"], r["stderr"]) for r in rows_of(batch, path)}
    assert parsed and parsed == file_figures(path)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(EVALS).as_posix())
def test_base_model_and_precision_per_file(batch, path):
    rows = rows_of(batch, path)
    assert rows and {(r["model"], r["precision"]) for r in rows} == {identity_of(path)}
    payload = json.loads(path.read_text())
    assert {r["harness_version"] for r in rows} == {payload.get("lm_eval_version")}


def test_inferred_precisions_say_so(batch):
    inferred = {r["source"] for r in batch.quality if r["precision_source"] == "checkpoint (models.csv)"}
    # the unquantised files: dtype=auto (sch0tten bf16) or no dtype at all (pfnet full)
    assert inferred == {str(p) for p in FILES if "__bf16__" in str(p) or "/full/" in str(p)}
    assert all("inferred" in r["precision_note"] for r in batch.quality if r["source"] in inferred)


@pytest.mark.parametrize("path", [p for p in FILES if "lm_eval_version" in p.read_text()], ids=lambda p: p.name)
def test_proportions_agree_with_their_own_sample_counts(batch, path):
    """An exact-match rate over n documents is a whole count over n, and lm-eval's stderr of a mean of 0/1
    scores is sqrt(p (1 - p) / (n - 1)): recomputed from the file's own n-samples."""
    payload = json.loads(path.read_text())
    by_key = {(r["task"], r["metric"]): r for r in rows_of(batch, path)}
    checked = 0
    for task, counts in payload["n-samples"].items():
        n = counts["effective"]
        for key, value in payload["results"][task].items():
            if not key.startswith("exact_match,"):
                continue
            assert abs(value * n - round(value * n)) < 1e-6
            stderr = payload["results"][task][key.replace("exact_match,", "exact_match_stderr,")]
            assert stderr == pytest.approx(math.sqrt(value * (1 - value) / (n - 1)), rel=1e-9)
            assert by_key[(task, key)]["samples"] == n
            checked += 1
    assert checked


def test_a_group_is_the_mean_of_its_subtasks(batch):
    for path in (p for p in FILES if "mmlu_pro" in str(p)):
        payload = json.loads(path.read_text())
        subtasks = payload["group_subtasks"]["mmlu_pro"]
        key = "exact_match,custom-extract"
        sizes = [payload["n-samples"][t]["effective"] for t in subtasks]
        mean = sum(payload["results"][t][key] * n for t, n in zip(subtasks, sizes)) / sum(sizes)
        [group] = [r for r in rows_of(batch, path) if r["task"] == "mmlu_pro"]
        assert group["value"] == pytest.approx(mean, rel=1e-12)
        assert group["samples"] == sum(sizes) == 700


# The profiles the gate is tried with: an absolute and a relative requirement on the real Qwen3.6-27B figures,
# and one that states none.
PROFILES = {
    "profiles": [
        {
            "name": "qwen-absolute",
            "model": "Qwen/Qwen3.6-27B",
            "slo": {"ttft_p95_ms": 2000},
            "delivered_fraction_prior": [0.5, 0.8],
            "quality": [
                {"task": "gsm8k", "metric": "exact_match,strict-match", "min": 0.96},
                {"task": "mmlu_pro", "metric": "exact_match,custom-extract", "min": 0.849},
            ],
        },
        {
            "name": "qwen-relative",
            "model": "Qwen/Qwen3.6-27B",
            "slo": {"ttft_p95_ms": 2000},
            "delivered_fraction_prior": [0.5, 0.8],
            "quality": [{"task": "gsm8k", "metric": "exact_match,strict-match", "min_relative": 0.99}],
        },
        {
            "name": "qwen-no-requirement",
            "model": "Qwen/Qwen3.6-27B",
            "slo": {"ttft_p95_ms": 2000},
            "delivered_fraction_prior": [0.5, 0.8],
        },
    ]
}
# Configs each profile is offered: the four evaluated precisions and one never evaluated.
OFFERED = ("bf16", "fp8", "int4", "nvfp4", "mxfp4")
FOLDER_PRECISION = {"bf16": "bf16", "fp8": "fp8", "int4_awq": "int4", "nvfp4": "nvfp4"}


def qwen_figure(precision: str, task: str, key: str) -> tuple[float, float] | None:
    """value, stderr of the sch0tten file for this precision and task, read with plain json."""
    for folder, name in FOLDER_PRECISION.items():
        if name == precision:
            [path] = [p for p in FILES if f"qwen3_6_27b__{folder}__{task}" in str(p)]
            row = json.loads(path.read_text())["results"][task]
            return row[key], row[key.replace(",", "_stderr,", 1)]
    return None


def expected_status(requirements: list[dict], precision: str) -> str:
    """The gate's rule, recomputed: per requirement, the 95% interval value +/- 1.96 stderr against the bound; a
    relative bound against the ratio to bf16's value (the widest precision evaluated), its interval carrying both
    stderrs (delta method); the worst status wins."""
    statuses = []
    for req in requirements:
        key = req["metric"]
        figure = qwen_figure(precision, req["task"], key)
        if figure is None:
            statuses.append("untested")
            continue
        value, stderr = figure
        if "min_relative" in req:
            if precision == "bf16":
                statuses.append("meets" if req["min_relative"] <= 1 else "fails")
                continue
            reference, reference_stderr = qwen_figure("bf16", req["task"], key)
            ratio = value / reference  # both stderrs carried: the ratio's own interval against the ratio bound
            half = 1.96 * math.sqrt(stderr**2 + ratio**2 * reference_stderr**2) / reference
            value, bound, low, high = ratio, req["min_relative"], ratio - half, ratio + half
        else:
            bound, low, high = req["min"], value - 1.96 * stderr, value + 1.96 * stderr
        statuses.append("meets" if low >= bound else "fails" if high < bound else "inconclusive")
    order = ["fails", "untested", "inconclusive", "meets"]
    return min(statuses, key=order.index)


@pytest.fixture(scope="module")
def gate(batch, tmp_path_factory) -> pl.DataFrame:
    offered = [
        {"profile": p["name"], "model_id": "qwen3.6-27b", "precision": precision, "precision_scheme": precision}
        for p in PROFILES["profiles"]
        for precision in OFFERED
    ]
    return quality_gate(tmp_path_factory.mktemp("gate") / "w.duckdb", batch, PROFILES, offered)


def test_the_gate_judges_each_config_as_recomputed_from_the_files(gate):
    for profile in PROFILES["profiles"]:
        for precision in OFFERED:
            [row] = gate.filter((pl.col("profile") == profile["name"]) & (pl.col("scheme") == precision)).to_dicts()
            expected = expected_status(profile["quality"], precision) if "quality" in profile else "not_required"
            assert row["quality_status"] == expected, (profile["name"], precision, row["quality_evidence"])


def test_an_absolute_and_a_relative_requirement_give_every_status(gate):
    by_profile = {
        name: set(gate.filter(pl.col("profile") == name)["quality_status"])
        for name in ("qwen-absolute", "qwen-relative", "qwen-no-requirement")
    }
    assert by_profile == {
        "qwen-absolute": {"fails", "inconclusive", "untested"},  # nvfp4's MMLU-Pro interval lies below 0.849
        "qwen-relative": {"meets", "inconclusive", "untested"},  # fp8, int4 hold 99% of bf16's GSM8K; nvfp4 straddles
        "qwen-no-requirement": {"not_required"},
    }
    assert set().union(*by_profile.values()) == {"meets", "fails", "inconclusive", "untested", "not_required"}


def test_the_gate_rests_on_the_figures_it_shows(gate):
    [nvfp4] = gate.filter((pl.col("profile") == "qwen-absolute") & (pl.col("precision") == "nvfp4")).to_dicts()
    value, stderr = qwen_figure("nvfp4", "mmlu_pro", "exact_match,custom-extract")
    assert (nvfp4["task"], nvfp4["value"], nvfp4["stderr"], nvfp4["threshold"]) == ("mmlu_pro", value, stderr, 0.849)
    assert nvfp4["interval_high"] == pytest.approx(value + 1.96 * stderr) and nvfp4["interval_high"] < 0.849
    assert "qwen3_6_27b__nvfp4__mmlu_pro" in nvfp4["quality_source"]
    [fp8] = gate.filter((pl.col("profile") == "qwen-relative") & (pl.col("precision") == "fp8")).to_dicts()
    assert fp8["threshold"] == pytest.approx(0.99 * qwen_figure("bf16", "gsm8k", "exact_match,strict-match")[0])
    assert fp8["reference_precision"] == "bf16"
    [untested] = gate.filter((pl.col("profile") == "qwen-relative") & (pl.col("precision") == "mxfp4")).to_dicts()
    assert "not evaluated at mxfp4" in untested["quality_evidence"]


def accuracy_pairs(text: str) -> dict[str, float]:
    pairs = {}
    for part in text.split("  "):
        key, _, value = part.partition(":")
        try:
            pairs[key.strip()] = float(value)
        except ValueError:
            continue
    return pairs


def test_mlperf_accuracy_targets_hold_for_every_closed_v51_result():
    """The checker's bounds (assets/reference/mlperf_accuracy_targets.csv) against the real v5.1 round table:
    every closed-division result passed MLPerf's accuracy gate, so each published metric with a bound is within
    it; and every LLM benchmark of the round has its bounds."""
    targets = mlperf_names.mlperf_accuracy_targets()
    table = json.loads(V51_TABLE.read_text())
    checked, outside = 0, collections.Counter()
    for record in table:
        if not record.get("Accuracy"):
            continue
        for metric, value in accuracy_pairs(record["Accuracy"]).items():
            for t in targets:
                if t.benchmark == record["Model"] and t.metric.upper() == metric.upper():
                    bound = t.reference_value * t.target_fraction
                    within = value >= bound if t.bound == "min" else value <= bound
                    outside[record["Category"]] += not within
                    checked += record["Category"] == "closed"
    assert checked > 1000
    assert outside["closed"] == 0 and outside["open"] > 0  # open results may run other models
    llms = {r["Model"] for r in table if r["Model"].startswith(("llama", "mixtral", "deepseek"))}
    assert llms <= {t.benchmark for t in targets}
