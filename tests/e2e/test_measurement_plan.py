"""The measurement plan on `make run`'s profiles (the real Azure conversation trace, the real inference-perf
sweeps, the real MLPerf tables): ranked rows in words, stored plans whose levels bracket the predicted crossing,
the prediction made now stored as published, and a run.yaml that claims nothing it does not know."""

import csv
import json
import math

import duckdb
import numpy as np
import pytest

from assets.plan.levels import MIN_REQUESTS, RATE_MULTIPLES, WIDE_MULTIPLES
from assets.plan.spec import PREDICTED_METRICS
from assets.plan.store import read_plans
from assets.runs.sidecar import OPTIONAL_KEYS, REQUIRED_KEYS
from tests.support.data import DATA


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
        assert r["accelerator_id"] in r["why"]  # the row says which config, in words
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


AZURE_CONV = DATA / "traffic" / "azure-llm-inference-2023" / "AzureLLMInferenceTrace_conv.csv"


def azure_log() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The real Azure conversation log read here with csv and numpy (not benchbill's reader): arrival offsets (s)
    and lengths (a request of no answer token is sent asking for one: the model counts it as one step)."""
    with AZURE_CONV.open() as f:
        rows = list(csv.reader(f))[1:]
    t = np.array([np.datetime64(r[0].replace(" ", "T"), "ns") for r in rows])
    offsets = (t - t[0]).astype(np.int64) / 1e9
    lengths = np.array([[int(r[1]), int(r[2])] for r in rows])
    return offsets, np.maximum(lengths[:, 0], 1), np.maximum(lengths[:, 1], 1)


def test_the_aiperf_trace_replays_our_log_exactly_time_scaled_to_each_level(published):
    (plan,) = rows(
        published,
        "SELECT plan_id, plan_folder FROM marts.measurement_plan WHERE profile = 'chat-8b-interactive' "
        "AND has_prediction ORDER BY plan_rank LIMIT 1",
    )
    offsets, inputs, outputs = azure_log()
    levels = rows(published, f"SELECT * FROM calibrated.plan_predictions WHERE plan_id = '{plan['plan_id']}'")
    for level in levels:
        trace = published / plan["plan_folder"] / "aiperf" / f"level-{level['level']}.jsonl"
        sent = [json.loads(line) for line in trace.read_text().splitlines()]
        assert len(sent) == level["requests"]
        ts = np.array([r["timestamp"] for r in sent]) / 1000
        # 8 windows of contiguous requests at evenly spaced places of the log, each as logged, one time factor
        size = len(sent) // 8
        factor = None
        for w, start in enumerate(np.linspace(0, len(offsets) - size, 8).astype(int)):
            mine = slice(w * size, (w + 1) * size)
            assert [r["input_length"] for r in sent[mine]] == inputs[start : start + size].tolist()
            assert [r["output_length"] for r in sent[mine]] == outputs[start : start + size].tolist()
            logged = np.diff(offsets[start : start + size])
            factor = factor or float(np.sum(logged) / np.sum(np.diff(ts[mine])))
            np.testing.assert_allclose(np.diff(ts[mine]) * factor, logged, atol=1e-6)
        assert (len(sent) - 1) / ts[-1] == pytest.approx(level["requests_per_s"], rel=0.01)
