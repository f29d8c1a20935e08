"""End to end: a model MLPerf never ran (Qwen3-0.6B, a real GuideLLM run) and the real lm-eval files in the dumps
folders: the shortlist rows stand on observed rows only and say so, carry the quality status of the profile's
requirement with its evidence, the terminal marks it, and what is untested is listed to evaluate next. And a model
no alias table knows (gemma-4-26B-A4B-it, a real vLLM rate sweep on a GB10) paired by its key through every table:
runs, quality, the engine model, its held-out rows, our traffic's curve and band, the cost sensitivity."""

import duckdb
import pytest

from pipelines.cli import main
from tests.support.data import DATA, REPO_ROOT, SHARED, V51_TABLE

QWEN06_RUN = REPO_ROOT / "examples" / "public" / "guidellm-rsevilla87-guidellm-results-parser"
# six rate levels of one workload (4,200 / 490 tokens), run.yaml model google/gemma-4-26B-A4B-it: unknown to the alias
# tables, named by the profile below as a local path (the same key, gemma-4-26b-a4b-it)
GEMMA_SWEEP = REPO_ROOT / "examples" / "public" / "vllm-djangodevreng-dgx-spark-benchmarks" / "gemma-4-26b-bf16"
GEMMA_KEY = "gemma-4-26b-a4b-it"
# another model no alias table knows, on the same GB10 (its canonical id is as empty as gemma's: only the key tells
# the two apart)
NEMOTRON_SWEEP = GEMMA_SWEEP.parent / "nemotron-3-nano-fp8"
# Our own evaluation of the 0.6B model, as a team would write it in the generic quality CSV (figures made up for
# this test; the 27B figures come from the real lm-eval files).
OWN_EVALS = """\
model,precision,task,metric,value,stderr,n,source
Qwen/Qwen3-0.6B,bf16,gsm8k,"exact_match,strict-match",0.41,0.0135,1319,made up for this test
Qwen/Qwen3-0.6B-FP8,,gsm8k,"exact_match,strict-match",0.38,0.0134,1319,made up for this test
google/gemma-4-26B-A4B-it,bf16,gsm8k,"exact_match,strict-match",0.80,0.011,1319,made up for this test
"""
PROFILES = """\
profiles:
  - name: qwen06-gsm8k
    model: Qwen/Qwen3-0.6B
    slo: {e2e_p95_ms: 600000, error_rate_max: 0.05}
    delivered_fraction_prior: [0.5, 0.8]
    quality:
      - {task: gsm8k, metric: "exact_match,strict-match", min_relative: 0.97}
  - name: qwen06-mmlu
    model: Qwen/Qwen3-0.6B
    slo: {e2e_p95_ms: 600000, error_rate_max: 0.05}
    delivered_fraction_prior: [0.5, 0.8]
    quality:
      - {task: mmlu_pro, metric: "exact_match,custom-extract", min: 0.3}
  - name: qwen27-absolute
    model: Qwen/Qwen3.6-27B
    slo: {ttft_p95_ms: 2000}
    delivered_fraction_prior: [0.5, 0.8]
    quality:
      - {task: mmlu_pro, metric: "exact_match,custom-extract", min: 0.849}
  - name: gemma-long-prompts
    model: /models/gemma-4-26B-A4B-it
    slo: {ttft_p95_ms: 4000, tpot_p95_ms: 300, error_rate_max: 0.05}
    delivered_fraction_prior: [0.5, 0.8]
    workload: {input_tokens_mean: 4000, output_tokens_mean: 490, arrival_cv: 1.0}
    quality:
      - {task: gsm8k, metric: "exact_match,strict-match", min: 0.75}
"""


# Its own warehouse: real gemma, nemotron and qwen sweeps with their lm-eval results (not the shared inputs).
@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("quality")
    dumps = root / "dumps"
    dumps.mkdir()
    (dumps / "qwen06").symlink_to(QWEN06_RUN, target_is_directory=True)
    (dumps / "gemma").symlink_to(GEMMA_SWEEP, target_is_directory=True)
    (dumps / "nemotron").symlink_to(NEMOTRON_SWEEP, target_is_directory=True)
    (dumps / "evals").symlink_to(DATA / "evals", target_is_directory=True)
    (dumps / "own-evals").mkdir()
    (dumps / "own-evals" / "qwen3-0.6b.csv").write_text(OWN_EVALS)
    (root / "profiles.yaml").write_text(PROFILES)
    args = ["run", "--mlperf", str(V51_TABLE), "--dumps", str(dumps), "--profiles", str(root / "profiles.yaml")]
    args += ["--allow-links-into", str(SHARED), "--allow-links-into", str(REPO_ROOT / "examples")]
    args += ["--warehouse", str(root / "warehouse")]
    return root / "warehouse" / "serving.duckdb", args


@pytest.fixture(scope="module")
def serving(run):
    path, args = run
    assert main(args) == 0
    return path


def rows(serving, sql):
    with duckdb.connect(str(serving), read_only=True) as conn:
        cursor = conn.execute(sql)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, r)) for r in cursor.fetchall()]


def test_a_model_mlperf_never_ran_stands_on_observed_rows_and_says_so(serving):
    shortlist = rows(serving, "SELECT * FROM marts.config_shortlist WHERE model_id = 'qwen3-0.6b' ORDER BY profile")
    assert [r["profile"] for r in shortlist] == ["qwen06-gsm8k", "qwen06-mmlu"]
    for row in shortlist:
        assert row["evidence"] == "observed" and row["mlperf_round"] is None and row["mlperf_accuracy"] is None
        assert "no MLPerf reference for this model: observed rows only, no projection" in row["caveats"]
        assert row["measured_requests_per_s_low"] is not None


def test_the_shortlist_carries_the_quality_status_and_its_evidence(serving):
    by_profile = {r["profile"]: r for r in rows(serving, "SELECT * FROM marts.config_shortlist")}
    gsm8k = by_profile["qwen06-gsm8k"]
    assert gsm8k["quality_status"] == "meets"  # bf16 is the reference itself
    assert "qwen3-0.6b.csv" in gsm8k["quality_evidence"] and "0.4100" in gsm8k["quality_evidence"]
    mmlu = by_profile["qwen06-mmlu"]
    assert mmlu["quality_status"] == "untested" and "not evaluated at bf16" in mmlu["quality_evidence"]


def test_the_gate_judges_every_evaluated_precision(serving):
    gate = {
        (r["profile"], r["precision"]): r["quality_status"] for r in rows(serving, "SELECT * FROM marts.quality_gate")
    }
    assert gate[("qwen06-gsm8k", "fp8")] == "inconclusive"  # 0.38 +/- 0.026 straddles 0.97 x 0.41
    assert gate[("qwen27-absolute", "nvfp4")] == "fails"  # the real MMLU-Pro figure's interval lies below 0.849
    assert gate[("qwen27-absolute", "bf16")] == "inconclusive"
    evaluated = rows(serving, "SELECT DISTINCT model, precision FROM analytics.quality WHERE model = 'qwen3.6-27b'")
    assert {r["precision"] for r in evaluated} == {"bf16", "fp8", "int4", "nvfp4"}


def test_what_is_untested_is_listed_to_evaluate_next(serving):
    todo = rows(serving, "SELECT * FROM marts.quality_to_measure")
    assert [(r["profile"], r["precision"], r["action"]) for r in todo] == [
        ("qwen06-mmlu", "bf16", "evaluate quality at bf16 before deciding")
    ]


def test_the_terminal_marks_the_status(run, serving, capsys):
    _path, args = run
    assert main([*args, "--force"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("#  config"))
    assert "quality" in header.split()
    section = out.split("\nqwen06-mmlu:")[1].split("\n\n")[0]  # the profile's heading, its table and its caveats
    assert any(line.startswith("1  ") and "untested" in line.split() for line in section.splitlines()), out
    assert "model /models/gemma-4-26B-A4B-it matches no run of ours" not in out  # its runs pair by the key


def test_mlperf_accuracy_sits_beside_each_mlperf_result(serving):
    (row,) = rows(
        serving,
        "SELECT count(*) AS n, count(*) FILTER (WHERE within_target = false AND division = 'closed') AS closed_missed "
        "FROM benchmark.mlperf_accuracy WHERE bound IS NOT NULL",
    )
    assert row["n"] > 1000 and row["closed_missed"] == 0


def test_a_model_no_alias_table_knows_pairs_by_its_key_through_every_table(serving):
    (profile,) = rows(serving, "SELECT * FROM requirement.profiles WHERE profile = 'gemma-long-prompts'")
    assert (profile["model_id"], profile["model_key"]) == (None, GEMMA_KEY)
    runs = rows(serving, f"SELECT model_raw, model_id FROM observed.runs WHERE model_key = '{GEMMA_KEY}'")
    assert runs and {(r["model_raw"], r["model_id"]) for r in runs} == {("google/gemma-4-26B-A4B-it", None)}
    observed = rows(serving, "SELECT * FROM observed.delivered_at_slo WHERE profile = 'gemma-long-prompts'")
    assert len(observed) == len(runs) and {r["model_id"] for r in observed} == {GEMMA_KEY}
    (gate,) = rows(serving, "SELECT * FROM marts.quality_gate WHERE profile = 'gemma-long-prompts'")
    assert (gate["precision"], gate["quality_status"]) == ("bf16", "meets")
    # the engine model, fitted on the sweep, carries the key; its canonical id stays empty (never guessed)
    (model,) = rows(serving, f"SELECT * FROM calibrated.engine_models WHERE model_key = '{GEMMA_KEY}'")
    assert model["model_id"] is None and model["status"] == "fitted" and model["load_levels"] == 6
    unknown = rows(serving, "SELECT model_key FROM calibrated.engine_models WHERE model_id IS NULL")
    assert {r["model_key"] for r in unknown} == {GEMMA_KEY, "nemotron-3-nano-omni-30b-a3b-reasoning"}
    held_out = rows(serving, f"SELECT * FROM calibrated.validation WHERE config_key = '{model['config_key']}'")
    assert held_out and {r["model_key"] for r in held_out} == {GEMMA_KEY}
    # our traffic through it: the curve, the band, its cost sensitivity
    curve = rows(serving, "SELECT * FROM calibrated.latency_curve WHERE profile = 'gemma-long-prompts'")
    assert len(curve) >= 20 and {(r["config_key"], r["model_key"]) for r in curve} == {(model["config_key"], GEMMA_KEY)}
    (band,) = rows(serving, "SELECT * FROM calibrated.delivered_at_slo WHERE profile = 'gemma-long-prompts'")
    assert (band["model_id"], band["model_key"], band["config_key"]) == (None, GEMMA_KEY, model["config_key"])
    assert band["status"] == "delivered" and band["bills"], band["status_reason"]
    assert 0 < band["delivered_requests_per_s_low"] < band["delivered_requests_per_s_high"]
    priced = rows(serving, "SELECT * FROM calibrated.cost_sensitivity WHERE profile = 'gemma-long-prompts'")
    assert priced and {r["model_key"] for r in priced} == {GEMMA_KEY}
    # MLPerf pairs by canonical id only: neither the model nor the GB10 has an MLPerf result, so no batching gap
    (fraction,) = rows(
        serving,
        "SELECT * FROM projected.measured_fractions WHERE profile = 'gemma-long-prompts' AND source = 'calibrated'",
    )
    assert fraction["model_id"] == GEMMA_KEY and not fraction["learnt_from"] and fraction["mlperf_result_key"] is None
    reason = f"no MLPerf reference of NVIDIA GB10 and {GEMMA_KEY}: this band measures no gap"
    assert fraction["not_learnt_reason"] == reason
