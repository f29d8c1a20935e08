"""A plan's prediction scored on what came back (assets/plan/prospective.py, calibrated.prospective_validation): on a
small warehouse of hand-made runs, a level run at a plan level's rate is judged on that level's stored prediction, a
level at another rate on the plan's frozen engine parameters simulating it as measured, the run's delivered rate on
the plan's predicted one; a run naming a plan the warehouse does not hold is quarantined with the reason, a plan
without an engine model has only its delivered-rate row. run.yaml's `plan` key is carried into observed.runs without
changing the run's id or config."""

import dataclasses
import shutil
from pathlib import Path

import duckdb
import pytest
import yaml

from assets.calibrate.engine import EngineParams
from assets.calibrate.fit import simulate_scored
from assets.calibrate.levels import read_configs
from assets.plan.prospective import (
    DELIVERED,
    other_traffic,
    plan_measurements,
    prospective_rows,
    score_words,
    write_prospective_validation,
)
from assets.plan.store import StoredLevel, StoredPlan, read_plans, write_plan
from assets.runs.collect import collect
from assets.runs.sidecar import SidecarProblem, run_config
from assets.warehouse.sqlfiles import check_sql_files, read_sql
from assets.warehouse.validate import frame_from_rows
from assets.warehouse.write import write_table
from schemas.observed.request_sources import RequestSources
from tests.support.data import WORKED_RUN_YAML
from tests.support.sql_warehouse import delivered, load, point, run_row
from tests.support.sweeps import VLLM_JSON

PARAMS = EngineParams(b0_ms=6.0, b1_ms=0.05, b2_ms=0.3, ttft_overhead_ms=20.0).to_dict()
PREDICTED_AT_2 = {"ttft_p95_ms": 120.0, "tpot_p95_ms": 12.0, "achieved_requests_per_s": 2.05}
MISSING = "plan-000000000000"


def stored_plan(plan_id: str, config_key: str, params=PARAMS, predicted=PREDICTED_AT_2, delivered_rate=10.0):
    """A plan as benchbill plan stores it, written by hand: one level at 2.05 requests/s."""
    return StoredPlan(
        plan_id=plan_id,
        profile="p",
        config_key=config_key,
        config_label="llama, 1x h100",
        reason="decision_at_risk",
        why="w",
        run_yaml={"plan": plan_id},
        traffic_basis="t",
        workload_digest="d",
        model_params=params,
        band_rel_error=0.2 if params else None,
        slo_bounds={"ttft_p95_ms": 1000.0},
        predicted_delivered_requests_per_s=delivered_rate,
        levels=[StoredLevel(1, 1.0, 2.05, 100, 50.0, predicted)],
    )


def without_records(conn):
    """The per-request tables, empty: the runs are tool aggregates only."""
    write_table(conn, "observed.request_sources", frame_from_rows([], RequestSources), RequestSources)
    conn.execute(
        "CREATE TABLE observed.requests (run_id VARCHAR, load_index INTEGER, input_tokens INTEGER, "
        "output_tokens INTEGER, status VARCHAR, phase VARCHAR)"
    )


@pytest.fixture
def warehouse(tmp_path):
    """A fitted sweep (a), a run naming the plan with a model (b: 2 and 3 requests/s, then past the SLO at 16), one
    naming a plan nobody stored (c) and one naming a plan without a model (d)."""
    conn = duckdb.connect()
    runs = [run_row("a"), {**run_row("b"), "plan_id": "plan-aaaaaaaaaaaa"}]
    runs += [{**run_row("c"), "plan_id": MISSING}, {**run_row("d"), "plan_id": "plan-bbbbbbbbbbbb"}]
    points = [point("a", i, r, 80.0 * (i + 1)) for i, r in enumerate((1.0, 2.0, 4.0, 8.0))]
    points += [point("b", 0, 2.0, 100.0), point("b", 1, 3.0, 150.0), point("b", 2, 16.0, 2000.0, error_rate=0.03)]
    points += [point("c", 0, 2.0, 100.0), point("d", 0, 2.0, 100.0), point("d", 1, 16.0, 2000.0)]
    load(conn, runs, points)
    delivered(conn)
    without_records(conn)
    key = read_configs(conn)[0].key
    plans = tmp_path / "plans"
    write_plan(plans, stored_plan("plan-aaaaaaaaaaaa", key))
    write_plan(plans, stored_plan("plan-bbbbbbbbbbbb", key, params=None, predicted=None, delivered_rate=None))
    return conn, plans


def scored_rows(warehouse):
    conn, plans = warehouse
    rows, rejects = prospective_rows(conn, *read_plans(plans), plans)
    return rows, rejects


def by(rows, run, load_index, metric):
    return next(r for r in rows if (r["run_id"], r["load_index"], r["metric"]) == (run, load_index, metric))


def test_a_level_at_a_plan_levels_rate_is_judged_on_that_levels_stored_prediction(warehouse):
    rows, _ = scored_rows(warehouse)
    ttft = by(rows, "b", 0, "ttft_p95_ms")
    assert (ttft["prediction_basis"], ttft["plan_level"], ttft["load"]) == ("plan level", 1, "r=2/s")
    assert (ttft["predicted"], ttft["measured"]) == (120.0, 100.0)
    assert ttft["relative_error"] == pytest.approx(0.2) and ttft["signed_relative_error"] == pytest.approx(0.2)
    assert ttft["within_band"] and ttft["scored"] and ttft["band_rel_error"] == 0.2
    tpot = by(rows, "b", 0, "tpot_p95_ms")
    assert tpot["relative_error"] == pytest.approx(12.0 / 10.0 - 1) and tpot["within_band"]
    achieved = by(rows, "b", 0, "achieved_requests_per_s")
    assert achieved["predicted"] == 2.05 and achieved["measured"] == 2.0


def test_a_level_at_another_rate_is_predicted_by_the_plans_frozen_parameters_as_measured(warehouse):
    conn, _ = warehouse
    rows, _ = scored_rows(warehouse)
    ttft = by(rows, "b", 1, "ttft_p95_ms")
    level = next(lv for cfg in read_configs(conn) for lv in cfg.levels if (lv.run_id, lv.load_index) == ("b", 1))
    expected = simulate_scored(EngineParams(**PARAMS), level)["ttft_p95_ms"]
    assert (ttft["prediction_basis"], ttft["plan_level"], ttft["load"]) == ("frozen model", None, "r=3/s")
    assert ttft["predicted"] == pytest.approx(expected) and ttft["measured"] == 150.0
    assert ttft["relative_error"] == pytest.approx(abs(expected / 150.0 - 1))
    assert ttft["within_band"] == (expected / 1.2 <= 150.0 <= expected * 1.2)


def test_the_runs_delivered_rate_is_judged_on_the_plans_predicted_one(warehouse):
    conn, _ = warehouse
    rows, _ = scored_rows(warehouse)
    row = next(r for r in rows if r["run_id"] == "b" and r["metric"] == DELIVERED)
    low, high = conn.execute(
        "SELECT delivered_requests_per_s_low, delivered_requests_per_s_high FROM observed.delivered_at_slo "
        "WHERE run_id = 'b' AND profile = 'p'"
    ).fetchone()
    assert row["load"] == "sweep" and row["predicted"] == 10.0 and row["measured"] == pytest.approx((low + high) / 2)
    assert row["relative_error"] == pytest.approx(abs(10.0 / row["measured"] - 1)) and row["scored"]
    assert "measured band" in row["note"]


def test_a_level_of_many_failed_requests_or_of_another_config_is_reported_unjudged():
    conn = duckdb.connect()
    load(conn, [{**run_row("b"), "plan_id": "plan-aaaaaaaaaaaa"}], [point("b", 0, 2.0, 100.0, error_rate=0.2)])
    delivered(conn)
    without_records(conn)
    plan = dataclasses.replace(stored_plan("plan-aaaaaaaaaaaa", "cfg"), created_at="2026-12-01T00:00:00+00:00")
    rows, _ = prospective_rows(conn, [plan], [], Path("plans"))
    ttft = by(rows, "b", 0, "ttft_p95_ms")
    assert not ttft["scored"] and "20% of requests failed: unjudged" in ttft["note"]
    assert "is not the plan's" in ttft["note"]  # the plan was made for another config


def test_a_run_naming_a_plan_the_warehouse_does_not_hold_is_quarantined_with_the_reason(warehouse):
    conn, plans = warehouse
    rows, rejects = scored_rows(warehouse)
    assert not [r for r in rows if r["run_id"] == "c"]
    (reject,) = rejects
    assert reject.location == "run c" and MISSING in reject.reason and "does not hold" in reject.reason
    write_prospective_validation(conn, plans)
    quarantined = conn.execute(
        "SELECT location, reason FROM audit.quarantine WHERE table_name = 'calibrated.prospective_validation'"
    ).fetchall()
    assert [q[0] for q in quarantined] == ["run c"] and MISSING in quarantined[0][1]
    assert conn.execute("SELECT count(*) FROM calibrated.prospective_validation").fetchone() == (len(rows),)
    for check in check_sql_files():
        if check.table == "calibrated.prospective_validation":
            assert conn.execute(read_sql(f"checks/calibrated/{check.path.name}")).fetchall() == [], check.path


def test_a_stored_plan_that_cannot_be_read_or_is_undated_is_quarantined_naming_its_file(warehouse):
    conn, plans = warehouse
    broken = plans / "plan-cccccccccccc" / "plan.json"
    broken.parent.mkdir()
    broken.write_text("{not json")
    undated = dataclasses.replace(stored_plan("plan-dddddddddddd", "cfg"), created_at="last week")
    _, rejects = prospective_rows(conn, [*read_plans(plans)[0], undated], read_plans(plans)[1], plans)
    assert any(str(broken) in r.reason and "expected a stored measurement plan" in r.reason for r in rejects)
    assert any("created_at 'last week' is not an ISO 8601 date" in r.reason for r in rejects)


def test_a_plan_level_run_on_other_token_lengths_than_the_plans_traffic_says_so():
    traffic = {"input_tokens_mean": 200.0, "output_tokens_mean": 64.0}
    assert other_traffic({"input_tokens_mean": 210.0, "output_tokens_mean": 60.0}, traffic) is None
    said = other_traffic({"input_tokens_mean": 1000.0, "output_tokens_mean": 60.0}, traffic)
    assert said == (
        "the level sent ~1000 prompt / 60 answer tokens, the plan's traffic ~200 / 64: the plan level predicted other "
        "traffic than was measured"
    )
    assert other_traffic({"input_tokens_mean": None, "output_tokens_mean": 60.0}, traffic) is None


def test_a_plan_without_an_engine_model_gets_only_its_delivered_rate_row_said(warehouse):
    rows, _ = scored_rows(warehouse)
    (row,) = [r for r in rows if r["run_id"] == "d"]
    assert row["metric"] == DELIVERED and row["predicted"] is None and row["measured"] is not None
    assert not row["scored"] and "no engine model" in row["note"] and row["relative_error"] is None


def test_status_and_the_reports_sentence(warehouse):
    conn, _ = warehouse
    rows, _ = scored_rows(warehouse)
    status = plan_measurements(conn, ["plan-aaaaaaaaaaaa", "plan-cccccccccccc"])
    assert status["plan-aaaaaaaaaaaa"].status == "measured" and status["plan-aaaaaaaaaaaa"].levels == 3
    assert status["plan-aaaaaaaaaaaa"].runs == ["b"]
    assert (status["plan-cccccccccccc"].status, status["plan-cccccccccccc"].levels) == ("open", 0)
    mine = [r for r in rows if r["plan_id"] == "plan-aaaaaaaaaaaa"]
    p95 = sorted(r["relative_error"] for r in mine if r["metric"] == "ttft_p95_ms")
    slo = next(r["relative_error"] for r in mine if r["metric"] == DELIVERED)
    assert score_words(mine) == (
        f"predicted before measuring: p95 TTFT off by {p95[1]:.0%} (median of 3), delivered rate off by {slo:.0%}"
    )
    no_model = [r for r in rows if r["plan_id"] == "plan-bbbbbbbbbbbb"]
    assert score_words(no_model).startswith("predicted before measuring: p95 TTFT not measured, delivered rate not")
    assert score_words([], "2026-12-01T10:00:00+00:00") == (
        "predicted before measuring: not measured yet (the plan is open since 2026-12-01)"
    )


def test_run_yaml_names_a_plan_without_changing_the_runs_id_or_config(tmp_path):
    folder = tmp_path / "dumps" / "sweep"
    folder.mkdir(parents=True)
    shutil.copy(VLLM_JSON, folder / VLLM_JSON.name)
    (folder / "run.yaml").write_text(WORKED_RUN_YAML)
    (plain,) = collect(tmp_path / "dumps").runs
    (folder / "run.yaml").write_text(WORKED_RUN_YAML + "plan: plan-0123456789ab\n")
    (planned,) = collect(tmp_path / "dumps").runs
    assert plain["plan_id"] is None and planned["plan_id"] == "plan-0123456789ab"
    assert {k: v for k, v in planned.items() if k != "plan_id"} == {k: v for k, v in plain.items() if k != "plan_id"}


@pytest.mark.parametrize("value", ["plan-XYZ", "0123456789ab", "plan-0123456789abc", "plan-0123456789AB"])
def test_a_malformed_plan_id_is_refused_naming_the_file(value):
    config = {**yaml.safe_load(WORKED_RUN_YAML), "plan": value}
    with pytest.raises(SidecarProblem, match=r"dumps/a/run\.yaml: plan .* is not a plan id"):
        run_config(config, ["dumps/a/run.yaml"])
