"""Stored plans: an id that follows what the prediction rests on, a first date kept, damage said, never trusted."""

import datetime
import json

from assets.plan.store import (
    PLAN_FILE,
    StoredLevel,
    StoredPlan,
    plan_id_of,
    read_plans,
    workload_digest_of,
    write_plan,
)


def _plan(plan_id: str = "plan-000000000001") -> StoredPlan:
    level = StoredLevel(1, 1.0, 2.0, 1000, 499.5, {"ttft_p95_ms": 120.0})
    return StoredPlan(
        plan_id=plan_id,
        profile="chat",
        config_key="cfg",
        config_label="a config",
        reason="decision_at_risk",
        why="because",
        run_yaml={"plan": plan_id},
        traffic_basis="stated",
        workload_digest="w",
        model_params={"b0_ms": 8.0, "kv_tokens": float("inf")},
        band_rel_error=0.2,
        slo_bounds={"ttft_p95_ms": 1000.0},
        predicted_delivered_requests_per_s=2.0,
        levels=[level],
    )


def test_the_id_is_the_same_for_the_same_evidence_and_changes_with_the_model_or_traffic():
    base = plan_id_of("chat", "cfg", {"b0_ms": 8.0}, "w", [1.0, 2.0])
    assert base == plan_id_of("chat", "cfg", {"b0_ms": 8.0}, "w", [1.0, 2.0])
    assert base.startswith("plan-") and len(base) == len("plan-") + 12
    assert base != plan_id_of("chat", "cfg", {"b0_ms": 8.1}, "w", [1.0, 2.0])
    assert base != plan_id_of("chat", "cfg", {"b0_ms": 8.0}, workload_digest_of({"profile": "chat"}), [1.0, 2.0])
    assert base != plan_id_of("chat", "cfg", None, "w", [1.0, 2.0])


def test_a_plan_written_again_keeps_its_first_date(tmp_path):
    first = write_plan(tmp_path, _plan(), now=datetime.datetime(2026, 1, 2, tzinfo=datetime.UTC))
    again = write_plan(tmp_path, _plan(), now=datetime.datetime(2026, 3, 4, tzinfo=datetime.UTC))
    assert first.created_at == again.created_at == "2026-01-02T00:00:00+00:00"
    plans, problems = read_plans(tmp_path)
    assert problems == [] and len(plans) == 1
    assert plans[0].levels[0].predicted == {"ttft_p95_ms": 120.0}
    assert plans[0].model_params == {"b0_ms": 8.0, "kv_tokens": float("inf")}


def test_a_damaged_plan_is_said_and_left_out(tmp_path):
    write_plan(tmp_path, _plan())
    (tmp_path / "plan-000000000002").mkdir()
    (tmp_path / "plan-000000000002" / PLAN_FILE).write_text("{not json")
    (tmp_path / "plan-000000000003").mkdir()
    (tmp_path / "plan-000000000003" / PLAN_FILE).write_text(json.dumps({"version": "another"}))
    plans, problems = read_plans(tmp_path)
    assert [p.plan_id for p in plans] == ["plan-000000000001"]
    assert len(problems) == 2
    assert all("expected a" in p and "plan-00000000000" in p for p in problems)


def test_no_plans_folder_is_no_plans(tmp_path):
    assert read_plans(tmp_path / "missing") == ([], [])
