"""The report's plan block under a profile's decision: its measurement plan rows (what to measure next on our
traffic, the levels and the prediction made before measuring) and, once a run names a plan, how far off the
prediction was. The words are `benchbill plan`'s (assets/report/plan_text.py); paths are the warehouse's relative
plan folders."""

from __future__ import annotations

from typing import Any

from assets.report.evidence_marks import tag
from assets.report.plan_text import (
    earlier_scores,
    levels_text,
    nearest_level,
    no_plan_text,
    plan_levels,
    prediction_text,
    reason_text,
    score_text,
    status_text,
)
from assets.report.report_data import PlanData
from assets.report.textformat import escape


def plan_block(profile: dict[str, Any], billed: bool, plans: PlanData) -> str:
    """A profile's plan as a compact table (rank, config, reason, why, levels, the prediction at the level nearest
    1x the rate it brackets, status, files), each scored plan's line under it; why there is none where the profile
    has no plan row; nothing for a serving file published before the plan existed."""
    if not plans.published:
        return ""
    name = escape(profile["profile"])
    rows = plans.rows.get(profile["profile"], [])
    heading = f'<div class="plan" data-profile="{name}"><h4>Measurement plan: what to measure next on our traffic</h4>'
    measured = "".join(
        f'<p class="plan-score"><b>Measured: {escape(said)}:</b> {escape(score)}.</p>'
        for said, score in earlier_scores(plans, profile["profile"])
    )
    if not rows:
        none = escape(no_plan_text(profile, billed))
        return f'{heading}<p class="muted" data-line="no-plan">{none}.</p>{measured}</div>'
    body, scored = [], []
    for row in rows:
        levels = plan_levels(row, plans.levels.get(row["plan_id"], []))
        folder = str(row["plan_folder"]).rstrip("/") + "/"
        body.append(
            f'<tr class="plan-row" data-plan-id="{escape(row["plan_id"])}" data-rank="{row["plan_rank"]}" '
            f'data-status="{escape(row["plan_status"])}"><td>{row["plan_rank"]}</td>'
            f"<td>{escape(row['config_label'])}<br>{tag(row['evidence'])}</td><td>{escape(reason_text(row))}</td>"
            f"<td>{escape(row['why'])}</td><td>{escape(levels_text(row))}</td>"
            f"<td>{escape(prediction_text(nearest_level(levels)))}</td>"
            f'<td class="status">{escape(status_text(row))}</td>'
            f'<td class="file">{escape(row["plan_id"])}<br>{escape(folder)}</td></tr>'
        )
        score = score_text(plans.scores.get(row["plan_id"], []))
        if score is not None:
            scored.append(
                f'<p class="plan-score" data-plan-id="{escape(row["plan_id"])}">'
                f"<b>#{row['plan_rank']} {escape(row['config_label'])}:</b> {escape(score)}.</p>"
            )
    return (
        f'{heading}<table class="plan"><thead><tr><th>#</th><th>config</th><th>reason</th><th>why</th>'
        "<th>levels</th><th>predicted at the level nearest 1x</th><th>status</th><th>plan and files (in the "
        f"warehouse)</th></tr></thead><tbody>{''.join(body)}</tbody></table>{''.join(scored)}{measured}"
        f'<p class="muted"><code>benchbill plan --profile {name}</code> prints each level\'s prediction and copies '
        "the files to run, with a README saying what to run and where the results go.</p></div>"
    )
