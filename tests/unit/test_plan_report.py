"""The report's plan block under each profile's decision: the plan's rows in rank order (config, reason, why, levels,
the prediction at the level nearest 1x, status and date, the plan's folder relative to the warehouse), the score of a
plan a run came back for, why a profile has none; nothing from a serving file published before the plan existed."""

import re

from assets.report.decision import decide
from assets.report.decision_blocks import decision_block
from assets.report.plan_block import plan_block
from assets.report.report_data import PlanData
from assets.report.report_paths import ABSOLUTE_PATH
from tests.support.plan_serving import PROFILE, level_rows, plan_row, score_rows
from tests.support.report_html import text_of
from tests.unit.test_decision import plan_row as capacity_row

FIRST, SECOND = "plan-aaaaaaaaaaaa", "plan-bbbbbbbbbbbb"
PROFILE_ROW = {"profile": PROFILE, "traffic_log": None, "peak_to_mean": 2.0, "mean_requests_per_s": 5.0}


def plans(scores: list[dict] | None = None) -> PlanData:
    first = plan_row(1, FIRST)
    second = plan_row(2, SECOND, predicted=False, reason="decision_at_risk", evidence="observed")
    return PlanData(
        published=True,
        rows={PROFILE: [first, second]},
        levels={FIRST: level_rows(first), SECOND: level_rows(second)},
        scores={FIRST: scores or []},
    )


def cells(block: str, plan_id: str) -> list[str]:
    """The text of each cell of a plan's row."""
    row = block.split(f'data-plan-id="{plan_id}"', 1)[1].split("</tr>", 1)[0]
    return [text_of(cell).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]


def test_the_plan_rows_show_reason_why_levels_the_prediction_near_1x_status_and_relative_folder():
    block = plan_block(PROFILE_ROW, True, plans())
    assert block.index(f'data-plan-id="{FIRST}"') < block.index(f'data-plan-id="{SECOND}"')
    rank, config, reason, why, levels, predicted, status, files = (" ".join(c.split()) for c in cells(block, FIRST))
    assert rank == "1" and "llama-3.1-8b-instruct on 1x nvidia-h100-sxm-80gb" in config
    assert reason.startswith("may_beat_recommended") and "possible saving -803 to 2,044 USD" in why
    assert levels.startswith("6 levels, 2.000 to 5.200 req/s (0.5x to 1.3x the predicted delivered rate")
    assert predicted == "at 4.000 req/s (1x): p95 TTFT 180 ms, p95 TPOT 21.5 ms, p95 E2E 4,200 ms, achieved 4.000 req/s"
    assert status == "open since 2026-12-07" and files == f"{FIRST} plans/{FIRST}/"
    assert "no per-level prediction" in cells(block, SECOND)[5]
    assert ABSOLUTE_PATH.search(block) is None


def test_a_plan_a_run_came_back_for_says_how_far_off_the_prediction_was():
    scored = plan_block(PROFILE_ROW, True, plans(score_rows(FIRST, [0.1, 0.3, -0.05, 0.2], -0.12)))
    line = scored.split('class="plan-score"', 1)[1].split("</p>", 1)[0]
    assert " ".join(text_of(line).split()).endswith(
        "predicted before measuring: p95 TTFT off by 15% (median of 4), delivered rate off by 12%."
    )
    assert "plan-score" not in plan_block(PROFILE_ROW, True, plans())


def test_a_profile_without_a_plan_row_says_why_and_an_older_serving_file_shows_nothing():
    empty = PlanData(published=True)
    no_volume = {"profile": "batch", "traffic_log": None, "peak_to_mean": None}
    assert "no measurement plan for batch: no volume stated" in text_of(plan_block(no_volume, False, empty))
    assert "nothing to measure" in text_of(plan_block(PROFILE_ROW, True, empty))
    assert plan_block(PROFILE_ROW, True, PlanData()) == ""


def test_the_plan_is_shown_in_the_decision_after_its_reasoning_with_or_without_a_bill():
    block = plan_block(PROFILE_ROW, True, plans())
    capacity = [{**capacity_row("c1", "observed", "ours", 2.0, 3, 10.0), "profile": PROFILE, "rank_in_profile": 1}]
    for decision in (decide(PROFILE, capacity, []), decide(PROFILE, [], [])):
        shown = decision_block(decision, PROFILE_ROW, [], plan=block)
        assert shown.index("</details>") < shown.index(block) and shown.endswith(f"{block}</div>")
