"""End to end: a model MLPerf never ran (Qwen3-0.6B, a real GuideLLM run) and the real lm-eval files in the dumps
folders: the shortlist rows stand on observed rows only and say so, carry the quality status of the profile's
requirement with its evidence, the terminal marks it, and what is untested is listed to evaluate next."""

import duckdb
import pytest

from pipelines.cli import main
from tests.support.data import DATA, REPO_ROOT, SHARED, V51_TABLE

QWEN06_RUN = REPO_ROOT / "examples" / "public" / "guidellm-rsevilla87-guidellm-results-parser"
# Our own evaluation of the 0.6B model, as a team would write it in the generic quality CSV (figures made up for
# this test; the 27B figures come from the real lm-eval files).
OWN_EVALS = """\
model,precision,task,metric,value,stderr,n,source
Qwen/Qwen3-0.6B,bf16,gsm8k,"exact_match,strict-match",0.41,0.0135,1319,made up for this test
Qwen/Qwen3-0.6B-FP8,,gsm8k,"exact_match,strict-match",0.38,0.0134,1319,made up for this test
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
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("quality")
    dumps = root / "dumps"
    dumps.mkdir()
    (dumps / "qwen06").symlink_to(QWEN06_RUN, target_is_directory=True)
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
    shortlist = rows(serving, "SELECT * FROM marts.config_shortlist WHERE model = 'qwen3-0.6b' ORDER BY profile")
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


def test_mlperf_accuracy_sits_beside_each_mlperf_result(serving):
    (row,) = rows(
        serving,
        "SELECT count(*) AS n, count(*) FILTER (WHERE within_target = false AND division = 'closed') AS closed_missed "
        "FROM benchmark.mlperf_accuracy WHERE bound IS NOT NULL",
    )
    assert row["n"] > 1000 and row["closed_missed"] == 0
