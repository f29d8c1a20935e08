"""Predict, then measure, on a real sweep without a GPU: the inference-perf kubecon-na-2025 vLLM sweep on one H100
(7 stages, 1 to 183 requests/s, saturating near 106/s). Stages 0, 2, 4 and 6 are ingested and fitted; the build
plans that config (marts.measurement_plan: levels at 0.5-1.3x its predicted delivered rate on the profile's
traffic, the prediction stored under plans/); stages 1, 3 and 5 come back in a folder whose run.yaml names the plan.
calibrated.prospective_validation then holds, per level and metric, what the raw files say (recomputed here with
json, not benchbill's reader) against the plan's stored prediction: a stage within 5% of a plan level's rate on that
level's prediction, the others on the plan's frozen engine parameters; the refit on all seven stages rewrites
neither, and the report and `benchbill plan` give the score."""

import json
import shutil
from pathlib import Path

import duckdb
import pytest

from assets.plan.prospective import score_words
from assets.plan.store import StoredPlan, read_plan
from pipelines.cli import main
from tests.support.data import INFERENCE_PERF, REPO_ROOT, V51_TABLE

STAGES = INFERENCE_PERF / "vllm" / "results"
RUN_YAML = (REPO_ROOT / "examples" / "dumps" / "vllm" / "run.yaml").read_text()
FITTED, RETURNED = (0, 2, 4, 6), (1, 3, 5)
PROFILE = "chat-8b-interactive"
# the raw files' aggregates, as observed.load_points names them: metric -> (successes.latency key, statistic)
RAW = {
    f"{metric}_{stat}_ms": (key, raw)
    for metric, key in (("ttft", "time_to_first_token"), ("e2e", "request_latency"))
    for stat, raw in (("p50", "median"), ("p95", "p95"), ("p99", "p99"))
}


def stage(index: int) -> dict:
    return json.loads((STAGES / f"stage_{index}_lifecycle_metrics.json").read_text())


def sweep_folder(folder: Path, stages: tuple[int, ...], run_yaml: str) -> Path:
    """Some stages of the real sweep below a run.yaml of their own."""
    folder.mkdir(parents=True)
    (folder / "run.yaml").write_text(run_yaml)
    for index in stages:
        shutil.copy(STAGES / f"stage_{index}_lifecycle_metrics.json", folder)
    return folder


def build(warehouse: Path, *dumps: Path) -> None:
    args = ["run", "--mlperf", str(V51_TABLE), "--warehouse", str(warehouse)]
    assert main([*args, *(a for d in dumps for a in ("--dumps", str(d)))]) == 0


def planned(warehouse: Path) -> StoredPlan:
    """The plan the first build made for the fitted config (marts.measurement_plan, stored under plans/)."""
    with duckdb.connect(str(warehouse / "serving.duckdb"), read_only=True) as conn:
        found = conn.execute(
            "SELECT p.plan_id FROM marts.measurement_plan AS p JOIN observed.runs AS r ON r.run_id = p.config_key "
            "WHERE p.profile = ? AND r.run_label = 'a' AND p.has_prediction",
            [PROFILE],
        ).fetchall()
    assert found, f"the first build made no plan with a prediction for run a on {PROFILE}"
    return read_plan(warehouse / "plans" / found[0][0] / "plan.json")


# Its own warehouse, built twice (the fit on four stages, then the three that come back): what the test is about.
@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    root = tmp_path_factory.mktemp("prospective")
    warehouse = root / "warehouse"
    fitted = sweep_folder(root / "a", FITTED, RUN_YAML)
    build(warehouse, fitted)
    plan = planned(warehouse)
    returned = sweep_folder(root / "b", RETURNED, RUN_YAML + f"plan: {plan.plan_id}\n")
    build(warehouse, fitted, returned)
    with duckdb.connect(str(warehouse / "serving.duckdb"), read_only=True) as conn:
        rows = conn.execute("SELECT * FROM calibrated.prospective_validation ORDER BY load_index, metric").pl()
        runs = conn.execute("SELECT run_label, plan_id FROM observed.runs ORDER BY run_label").fetchall()
        models = conn.execute("SELECT config_key, run_labels FROM calibrated.engine_models").fetchall()
        observed = conn.execute(
            "SELECT * FROM observed.delivered_at_slo WHERE profile = ? AND run_label = 'b'", [PROFILE]
        ).pl()
    return plan, warehouse, rows.to_dicts(), runs, models, observed.to_dicts()


def test_the_run_naming_the_plan_joins_its_configs_fit(measured):
    plan, _, _, runs, models, _ = measured
    assert runs == [("a", None), ("b", plan.plan_id)]
    assert [(key, json.loads(labels)) for key, labels in models] == [(plan.config_key, ["a", "b"])]


def test_each_returned_level_is_judged_on_the_prediction_made_before_measuring(measured):
    plan, warehouse, rows, *_ = measured
    levels = [r for r in rows if r["load"] != "sweep"]
    assert {r["run_label"] for r in rows} == {"b"} and {r["plan_id"] for r in rows} == {plan.plan_id}
    # a level within 5% of a plan level's rate is judged on that level's stored prediction, any other on the plan's
    # frozen engine parameters simulating the level as measured
    for r in levels:
        rate = stage(RETURNED[r["load_index"]])["load_summary"]["requested_rate"]
        near = [lv.level for lv in plan.levels if abs(rate / lv.requests_per_s - 1) <= 0.05]
        assert (r["prediction_basis"], r["plan_level"]) == (("plan level", near[0]) if near else ("frozen model", None))
    stored = {lv.level: lv.predicted for lv in read_plan(warehouse / "plans" / plan.plan_id / "plan.json").levels}
    assert stored == {lv.level: lv.predicted for lv in plan.levels}  # the refit never rewrites the plan
    for r in levels:
        if r["prediction_basis"] == "plan level":
            assert r["predicted"] == pytest.approx(stored[r["plan_level"]][r["metric"]], rel=1e-12)
        assert r["predicted"] > 0 and r["relative_error"] == pytest.approx(abs(r["predicted"] / r["measured"] - 1))
        assert r["signed_relative_error"] == pytest.approx(r["predicted"] / r["measured"] - 1)
        e = plan.band_rel_error
        assert r["within_band"] == (r["predicted"] / (1 + e) <= r["measured"] <= r["predicted"] * (1 + e))


def test_the_measured_values_are_the_raw_files(measured):
    rows = measured[2]
    by_level = {(r["load_index"], r["metric"]): r for r in rows if r["load"] != "sweep"}
    for load_index, index in enumerate(RETURNED):
        raw = stage(index)
        # as calibrated.validation spells it: inference-perf's client cap (levels.TOOL_CLIENT_CAP) follows the rate
        assert by_level[(load_index, "ttft_p95_ms")]["load"] == f"r={raw['load_summary']['requested_rate']:g}/s cap=440"
        for metric, (key, statistic) in RAW.items():
            expected = raw["successes"]["latency"][key][statistic] * 1000
            assert by_level[(load_index, metric)]["measured"] == pytest.approx(expected, rel=1e-9), (index, metric)
        achieved = by_level[(load_index, "achieved_requests_per_s")]["measured"]
        assert achieved == pytest.approx(raw["successes"]["throughput"]["requests_per_sec"], rel=1e-9)


def test_the_delivered_rate_at_the_slo_is_judged_on_the_plans(measured):
    plan, _, rows, _, _, observed = measured
    (row,) = [r for r in rows if r["load"] == "sweep"]
    (band,) = observed
    # stage 3 (92 req/s) meets p95 TTFT <= 1000 ms, stage 5 (153 req/s offered, 106 achieved) does not: a crossing
    assert band["slo_crossed"] and row["scored"]
    middle = (band["delivered_requests_per_s_low"] + band["delivered_requests_per_s_high"]) / 2
    assert row["measured"] == pytest.approx(middle) and row["predicted"] == plan.predicted_delivered_requests_per_s
    assert row["relative_error"] == pytest.approx(abs(row["predicted"] / middle - 1))


def test_the_report_says_how_far_off_the_prediction_was(measured):
    rows = measured[2]
    p95 = sorted(r["relative_error"] for r in rows if r["metric"] == "ttft_p95_ms")
    slo = next(r["relative_error"] for r in rows if r["load"] == "sweep")
    assert score_words(rows) == (
        f"predicted before measuring: p95 TTFT off by {p95[1]:.0%} (median of 3), delivered rate off by {slo:.0%}"
    )


def test_the_report_and_the_plan_command_name_the_measured_plan_and_its_score(measured, capsys):
    plan, warehouse, rows, *_ = measured
    said = score_words(rows)
    report = " ".join((warehouse / "report.html").read_text().split())
    assert f"Measured: plan {plan.plan_id}" in report and said in report
    capsys.readouterr()
    assert main(["plan", "--profile", PROFILE, "--warehouse", str(warehouse)]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert f"measured: plan {plan.plan_id}" in printed and said in printed
