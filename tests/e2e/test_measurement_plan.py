"""The measurement plan on `make run`'s profiles (the real Azure conversation trace, the real inference-perf
sweeps, the real MLPerf tables): ranked rows in words, stored plans whose levels bracket the predicted crossing,
the prediction made now stored as published, and a run.yaml that claims nothing it does not know."""

import json
import math

import duckdb
import pytest

from assets.plan.levels import MIN_REQUESTS, RATE_MULTIPLES, WIDE_MULTIPLES
from assets.plan.spec import PREDICTED_METRICS
from assets.plan.store import read_plans
from assets.runs.sidecar import OPTIONAL_KEYS, REQUIRED_KEYS


@pytest.fixture(scope="module")
def published(make_run_published):
    """The warehouse of `make run`'s profiles (tests/conftest.py, built once per test run, read only)."""
    return make_run_published


def rows(published, sql):
    with duckdb.connect(str(published / "serving.duckdb"), read_only=True) as conn:
        cursor = conn.execute(sql)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]


def test_the_chat_profile_has_a_plan_ranked_by_what_it_could_move_a_month(published):
    plan = rows(published, "SELECT * FROM marts.measurement_plan WHERE profile = 'chat-8b-interactive' ORDER BY 2")
    assert plan, "chat-8b-interactive (a volume, our runs, projected rivals) has no measurement plan"
    assert [r["plan_rank"] for r in plan] == list(range(1, len(plan) + 1))
    stakes = [r["stake_monthly_usd"] for r in plan if r["stake_monthly_usd"] is not None]
    assert stakes == sorted(stakes, reverse=True)
    assert len({r["config_key"] for r in plan}) == len(plan), "a config is planned once per profile"
    for r in plan:
        assert r["why"] and r["config_label"] in r["why"] or r["accelerator_id"] in r["why"]
        assert r["plan_status"] == "open"  # no run of these dumps names a plan


def test_every_planned_config_is_stored_with_its_levels_as_published(published):
    plan = rows(published, "SELECT * FROM marts.measurement_plan")
    stored = {p.plan_id: p for p in read_plans(published / "plans")[0]}
    levels = rows(published, "SELECT * FROM calibrated.plan_predictions ORDER BY plan_id, level")
    for r in plan:
        assert (published / r["plan_folder"] / "plan.json").is_file()
        p = stored[r["plan_id"]]
        theirs = [lv for lv in levels if lv["plan_id"] == r["plan_id"]]
        assert len(theirs) == len(p.levels) == r["levels"]
        for published_level, kept in zip(theirs, p.levels, strict=True):
            assert published_level["requests_per_s"] == kept.requests_per_s
            assert published_level["requests"] == kept.requests >= MIN_REQUESTS
            for metric in PREDICTED_METRICS:
                assert published_level[metric] == (kept.predicted or {}).get(metric)


def test_levels_bracket_the_predicted_crossing_which_the_prediction_confirms(published):
    plan = rows(published, "SELECT * FROM marts.measurement_plan")
    bounds = rows(published, "SELECT profile, measure, bound FROM requirement.slo_bounds")
    predicted = [r for r in plan if r["has_prediction"]]
    assert predicted, "no planned config has an engine model: the calibrated sweeps should give one"
    for r in plan:
        levels = rows(
            published, f"SELECT * FROM calibrated.plan_predictions WHERE plan_id = '{r['plan_id']}' ORDER BY level"
        )
        multiples = RATE_MULTIPLES if r["has_prediction"] else WIDE_MULTIPLES
        assert [lv["rate_multiple"] for lv in levels] == list(multiples)
        if not r["has_prediction"]:
            assert all(lv["ttft_p95_ms"] is None for lv in levels) and "no prediction" in r["why"]
            continue
        center = r["predicted_delivered_requests_per_s"]
        assert [lv["requests_per_s"] for lv in levels] == pytest.approx([center * m for m in multiples])
        slo = {b["measure"]: b["bound"] for b in bounds if b["profile"] == r["profile"] and b["measure"] in levels[0]}
        light, heavy = levels[0], levels[-1]
        assert all(light[k] <= bound for k, bound in slo.items()), (r["plan_id"], light, slo)
        falls_behind = heavy["achieved_requests_per_s"] < 0.9 * heavy["requests_per_s"]
        assert falls_behind or any(heavy[k] > bound for k, bound in slo.items()), (r["plan_id"], heavy, slo)


def test_the_run_yaml_names_the_plan_and_claims_no_version_or_price(published):
    for r in rows(published, "SELECT * FROM marts.measurement_plan"):
        keys = json.loads(r["run_yaml"])
        assert keys["plan"] == r["plan_id"]
        assert set(keys) <= {*REQUIRED_KEYS, *OPTIONAL_KEYS, "plan"}
        assert "tool_version" not in keys and not any("price" in k or "usd" in k for k in keys)
        assert keys["accelerator"] == r["accelerator_id"] and keys["accelerator_count"] == r["accelerator_count"]


def test_the_analyst_view_lists_each_plan_row_per_level(published):
    view = rows(published, "SELECT profile, plan_rank, level, requests_per_s FROM analytics.measurement_plan")
    plan = rows(published, "SELECT sum(levels) AS n FROM marts.measurement_plan")
    assert len(view) == plan[0]["n"] and all(math.isfinite(v["requests_per_s"]) for v in view)
