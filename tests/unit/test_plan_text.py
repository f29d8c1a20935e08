"""A profile's measurement plan as text: every row with its rank, config, reason, why, plan id, status and date,
where its files are, the levels with the prediction made per level (or that there is none), the score once a run
came back; folded to the terminal's width; and the few lines `benchbill run` prints per profile."""

from pathlib import Path

import duckdb
import pytest

from assets.report.plan_text import (
    REASON_WORDS,
    format_plan,
    nearest_level,
    no_plan_text,
    plan_heads,
    plan_levels,
    prediction_text,
    score_text,
    status_text,
)
from assets.report.report_data import PlanData, read_plan_data
from schemas.vocab import PLAN_REASONS
from tests.support.plan_serving import PROFILE, level_rows, plan_row, plan_warehouse, score_rows

WAREHOUSE = Path("/srv/benchbill/warehouse")
PREDICTED, UNPREDICTED = "plan-aaaaaaaaaaaa", "plan-bbbbbbbbbbbb"


def two_plans(scores: list[dict] | None = None) -> PlanData:
    """A plan of two rows: a projected config with a prediction per level, and the recommended one without one
    (measured already)."""
    first = plan_row(1, PREDICTED)
    second = plan_row(
        2, UNPREDICTED, predicted=False, reason="decision_at_risk", evidence="observed", plan_status="measured"
    )
    return PlanData(
        published=True,
        rows={PROFILE: [first, second]},
        levels={PREDICTED: level_rows(first), UNPREDICTED: level_rows(second)},
        scores={PREDICTED: scores or []},
    )


def test_the_plan_names_every_row_with_its_reason_why_id_status_and_files():
    text = format_plan(PROFILE, two_plans(), WAREHOUSE, width=100)
    assert text.startswith(f"measurement plan for {PROFILE} (2 rows")
    first, second = text.split("\n\n")[1:]
    assert first.startswith("1. llama-3.1-8b-instruct on 1x nvidia-h100-sxm-80gb bf16 vLLM (#1)")
    assert "reason: may_beat_recommended (a projected config that may beat the recommended one)" in first
    assert "why: run 1 x nvidia-h100-sxm-80gb (rank 1): possible saving -803 to 2,044 USD a month" in first
    assert f"plan {PREDICTED}: open since 2026-12-07" in first
    assert f"files: {WAREHOUSE}/plans/{PREDICTED}/" in first
    assert second.startswith("2. ") and "decision_at_risk" in second
    assert f"plan {UNPREDICTED}: measured (planned 2026-12-07)" in second


def test_each_level_shows_its_rate_requests_and_the_p95s_predicted_for_it():
    text = format_plan(PROFILE, two_plans(), WAREHOUSE, width=100)
    first = text.split("\n\n")[1]
    at_1x = next(cells for line in first.splitlines() if (cells := line.split())[1:2] == ["1x"])
    assert at_1x == ["4", "1x", "4.000", "600", "180", "21.5", "4,200", "4.000"]  # p95 TTFT, TPOT, E2E; achieved
    assert "levels: 6 levels, 2.000 to 5.200 req/s (0.5x to 1.3x the predicted delivered rate, 4.000 req/s)" in (
        " ".join(first.split())
    )


def test_a_plan_without_an_engine_model_says_so_and_shows_no_prediction_columns():
    second = format_plan(PROFILE, two_plans(), WAREHOUSE, width=100).split("\n\n")[2]
    assert "no per-level prediction (no engine model for this config)" in " ".join(second.split())
    assert "the billed band's middle" in " ".join(second.split())
    header = [line for line in second.splitlines() if "level" in line and "requests" in line]
    assert header and "TTFT" not in second and "achieved" not in second


def test_levels_come_from_the_plan_row_when_no_prediction_rows_are_published():
    row = plan_row(1, PREDICTED, predicted=False)
    levels = plan_levels(row, [])
    assert [level["requests_per_s"] for level in levels] == [2.0, 2.8, 3.4, 4.0, 4.6, 5.2]
    assert {level["requests"] for level in levels} == {600} and levels[3]["rate_multiple"] == 1.0


@pytest.mark.parametrize("width", [60, 80, 120])
def test_every_line_fits_the_width_and_a_narrow_terminal_leaves_out_latencies_from_the_last(width):
    text = format_plan(PROFILE, two_plans(), WAREHOUSE, width=width)
    assert max(len(line) for line in text.splitlines()) <= width
    assert "TTFT" in text  # the first latency is never left out
    assert ("E2E" in text) == (width >= 80)


def test_the_prediction_shown_for_a_plan_is_the_one_at_the_level_nearest_1x():
    levels = level_rows(plan_row(1, PREDICTED))
    assert nearest_level(levels)["rate_multiple"] == 1.0
    assert prediction_text(nearest_level(levels)) == (
        "at 4.000 req/s (1x): p95 TTFT 180 ms, p95 TPOT 21.5 ms, p95 E2E 4,200 ms, achieved 4.000 req/s"
    )
    unpredicted = level_rows(plan_row(1, PREDICTED, predicted=False))
    assert prediction_text(nearest_level(unpredicted)) == "no per-level prediction (no engine model for this config)"


def test_the_score_is_the_median_p95_ttft_error_over_the_levels_and_the_delivered_rates_error():
    scores = score_rows(PREDICTED, [0.10, 0.30, -0.05], delivered_error=-0.08)
    assert score_text(scores) == (
        "predicted before measuring: p95 TTFT off by 10% (median of 3), delivered rate off by 8%"
    )
    assert score_text(score_rows(PREDICTED, [], delivered_error=0.2)) == (
        "predicted before measuring: p95 TTFT not measured, delivered rate off by 20%"
    )
    assert score_text([]) is None
    text = format_plan(PROFILE, two_plans(scores), WAREHOUSE, width=120)
    assert "predicted before measuring: p95 TTFT off by 10%" in text.split("\n\n")[1]


def test_once_a_run_came_back_each_level_shows_the_p95_ttft_measured_beside_the_one_predicted():
    scores = score_rows(PREDICTED, [0.10, 0.30], delivered_error=None)  # levels 1 and 2 came back
    first = format_plan(PROFILE, two_plans(scores), WAREHOUSE, width=120).split("\n\n")[1]
    rows = {cells[0]: cells for line in first.splitlines() if (cells := line.split()) and cells[0].isdigit()}
    assert rows["1"][4] == "45" and rows["1"][-1] == "90.9" and rows["2"][-1] == "76.9" and rows["3"][-1] == "-"
    unscored = format_plan(PROFILE, two_plans(), WAREHOUSE, width=120).split("\n\n")[1]
    assert "measured" in first and "measured" not in unscored


def test_every_reason_a_plan_row_may_give_is_said_in_words():
    assert sorted(REASON_WORDS) == sorted(PLAN_REASONS)


def test_an_open_plan_is_dated_and_a_measured_one_keeps_its_date():
    assert status_text(plan_row(1, PREDICTED)) == "open since 2026-12-07"
    assert status_text(plan_row(1, PREDICTED, plan_status="measured")) == "measured (planned 2026-12-07)"


def test_run_prints_per_profile_the_first_row_its_levels_and_prediction_and_where_its_files_are():
    lines = plan_heads(two_plans(), WAREHOUSE, width=400)
    assert len(lines) == 2
    head, files = lines
    assert head.startswith(
        f"measurement plan for {PROFILE}, row 1 of 2: llama-3.1-8b-instruct on 1x nvidia-h100-sxm-80gb"
    )
    assert "a projected config that may beat the recommended one; 6 levels, 2.000 to 5.200 req/s" in head
    assert head.endswith(
        "at 4.000 req/s (1x): p95 TTFT 180 ms, p95 TPOT 21.5 ms, p95 E2E 4,200 ms, achieved 4.000 req/s"
    )
    assert files == (
        f"    files: {WAREHOUSE}/plans/{PREDICTED}/ (the whole plan and why: benchbill plan --profile {PROFILE})"
    )
    folded = plan_heads(two_plans(), WAREHOUSE, width=80)
    assert 2 <= len(folded) <= 8 and max(len(line) for line in folded) <= 80
    assert plan_heads(PlanData(), WAREHOUSE) == []


def test_a_profile_without_a_plan_row_says_why():
    no_volume = {"profile": "batch", "traffic_log": None, "peak_to_mean": None}
    assert no_plan_text(no_volume, billed=False).startswith("no measurement plan for batch: no volume stated")
    billed = {"profile": PROFILE}
    assert "nothing to measure" in no_plan_text(billed, billed=True)


def test_a_serving_file_without_the_plan_tables_reads_as_no_plan(tmp_path):
    plan_warehouse(tmp_path, rows=None)
    with duckdb.connect(str(tmp_path / "serving.duckdb"), read_only=True) as conn:
        assert read_plan_data(conn) == PlanData()


def test_the_plans_are_read_per_profile_with_their_levels_and_scores_only_where_published(tmp_path):
    rows = [plan_row(1, PREDICTED), plan_row(1, UNPREDICTED, profile="other")]
    plan_warehouse(tmp_path, rows, scores=score_rows(PREDICTED, [0.1], None), profiles={PROFILE: True, "other": True})
    with duckdb.connect(str(tmp_path / "serving.duckdb"), read_only=True) as conn:
        mine = read_plan_data(conn, PROFILE)
        every = read_plan_data(conn)
    assert mine.published and list(mine.rows) == [PROFILE] and list(mine.levels) == [PREDICTED]
    assert [level["level"] for level in mine.levels[PREDICTED]] == [1, 2, 3, 4, 5, 6]
    assert [s["metric"] for s in mine.scores[PREDICTED]] == ["ttft_p95_ms"]
    assert sorted(every.rows) == [PROFILE, "other"] and UNPREDICTED not in every.scores
