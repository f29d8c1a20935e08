"""The HTML report's decision part: each profile's decision lines, capacity charts and at-a-glance table."""

from __future__ import annotations

from typing import Any

from assets.report.charts import Point, RefLine, Series, line_chart
from assets.report.decision import (
    ELSEWHERE_TITLE,
    Decision,
    bill_text,
    config_name,
    decide,
    lightest_load_text,
    measure_text,
    no_bill_text,
    projected_text,
    saving_text,
    sensitivity_text,
)
from assets.report.decision_glance import BASIS_WORDS
from assets.report.evidence_marks import billed_evidence, data_value, tag
from assets.report.report_data import ReportData
from assets.report.textformat import TEXT, escape, number_text, shortlist_cell

CAPACITY_COLORS = ["#047857", "#1d4ed8", "#b45309", "#be123c", "#6d28d9"]
# How a capacity line that coincides with one drawn before it is drawn apart: (stroke-dasharray, its name), for a
# line of ours and for a projected one (dashed otherwise).
COINCIDING = {False: ("2 3", "dotted"), True: ("10 3 2 3", "dash-dotted")}


def decisions_by_profile(data: ReportData) -> dict[str, Decision]:
    return {
        p["profile"]: decide(
            p["profile"],
            data.capacity.get(p["profile"], []),
            data.measure_next.get(p["profile"], []),
            data.observed.get(p["profile"], []),
        )
        for p in data.profiles
    }


def decision_block(
    decision: Decision,
    profile: dict[str, Any],
    sensitivity: list[dict[str, Any]],
    warnings: list[str] | None = None,
    glance: str = "",
    plan: str = "",
) -> str:
    """A profile's decision: the warnings about the profile (as the terminal prints them) and its decision at a
    `glance` (assets.report.decision_glance), then the reasoning folded below: the recommended config and its bill
    (or, where every run of ours misses even at its lightest load, that first and the cheapest projection, not
    recommended), the saving against the baseline, what the token mix and the bursts cost each top config, what to
    measure next; then the profile's measurement `plan` (assets.report.plan_block), in view."""
    name = escape(decision.profile)
    row = decision.recommended
    parts = [f'<div class="decision" data-profile="{name}"><h3><a href="#profile-{name}">{name}</a></h3>']
    parts += [f'<p class="decision-line warning" data-line="warning">{escape(w)}.</p>' for w in warnings or []]
    parts.append(glance)
    parts.append(
        '<details class="reasoning"><summary>The reasoning: the bill in full, against what we run today, projected '
        "bands, what the token mix and the bursts cost, what to measure next</summary>"
    )
    if decision.missed_at_lightest:
        parts.append(
            f'<p class="decision-line" data-line="missed-at-lightest-load">'
            f"{escape(lightest_load_text(decision.missed_at_lightest))}.</p>"
        )
    if row is None:
        parts.append(
            f'<p class="decision-line muted" data-line="no-bill">{escape(no_bill_text(profile))}.</p></details>'
            f"{plan}</div>"
        )
        return "".join(parts)
    values = "".join(
        f' data-{column.replace("_", "-")}="{escape(data_value(row.get(column)))}"'
        for column in ("config_key", "price_class", "price_provider", "monthly_usd_low", "monthly_usd_high")
    )
    if decision.projection_first:
        parts.append(
            f'<p class="decision-line" data-line="cheapest-projection"{values}>{tag(row["evidence"])} <b>The '
            f"cheapest projection, not recommended:</b> {escape(bill_text(row))}.</p>"
        )
    else:
        parts.append(
            f'<p class="decision-line" data-line="recommended"{values}>{tag(row["evidence"])} <b>Recommended:</b> '
            f"{escape(bill_text(row))}.</p>"
            f'<p class="decision-line" data-line="saving"><b>Against what we run today:</b> '
            f"{escape(saving_text(row, decision.runner_up))}.</p>"
        )
    projected = projected_text(decision.top)
    if projected is not None:
        parts.append(
            f'<p class="decision-line" data-line="projected">{tag("projected")} <b>Projected bands:</b> '
            f"{escape(projected)}.</p>"
        )
    costs = [text for top in decision.top if (text := sensitivity_text(top, sensitivity))]
    if costs:
        items = "".join(f"<li>{escape(text)}.</li>" for text in costs)
        parts.append(
            f'<div class="decision-line" data-line="cost-sensitivity"><b>What the token mix and the bursts cost:</b>'
            f"<ul>{items}</ul></div>"
        )
    if decision.measure_next:
        items = "".join(f"<li>{escape(measure_text(m))}</li>" for m in decision.measure_next)
        parts.append(
            f'<div class="decision-line" data-line="measure-next"><b>What to measure next:</b><ul>{items}</ul></div>'
        )
    else:
        parts.append(
            '<p class="decision-line" data-line="measure-next"><b>What to measure next:</b> nothing flagged: no '
            "projected config may beat the best measured one at the recommended config's price class, and no run "
            "lacks load points near its SLO crossing.</p>"
        )
    if decision.measure_elsewhere:
        items = "".join(f"<li>{escape(measure_text(m))}</li>" for m in decision.measure_elsewhere)
        parts.append(
            f'<div class="decision-line" data-line="measure-elsewhere"><b>What to measure next, '
            f"{escape(ELSEWHERE_TITLE)}:</b><ul>{items}</ul></div>"
        )
    parts.append(f'<p class="muted">Our traffic: {escape(str(row["traffic_basis"]))}.</p></details>{plan}</div>')
    return "".join(parts)


def capacity_chart(decision: Decision, windows: list[dict[str, Any]]) -> str:
    """Our traffic per window over the log against each top config's static capacity (replicas at the peak x
    the low end of what one replica delivers within the SLO)."""
    if not decision.top:
        return ""
    if not windows:
        row = decision.top[0]
        return (
            f'<p class="muted" data-profile="{escape(decision.profile)}">No traffic log for {escape(decision.profile)}'
            f": no rate over time to draw ({escape(str(row['traffic_basis']))}).</p>"
        )
    drawn = [r for r in decision.top if r["replicas_high"] is not None and r["billed_requests_per_s_low"] is not None]
    capacities = [r["replicas_high"] * r["billed_requests_per_s_low"] for r in drawn]
    lines = []
    for i, (row, capacity) in enumerate(zip(drawn, capacities)):
        evidence = billed_evidence(row)
        near = [  # named short: the run's label, or the projected hardware
            drawn[j]["run_label"] or f"{drawn[j]['accelerator_count']}x {drawn[j]['accelerator_id']}"
            for j in range(i)
            if _coincide(capacities[j], capacity, max(capacities))
        ]
        lines.append(
            RefLine(
                "y",
                capacity,
                f"{config_name(row)}: {row['replicas_high']} x {number_text(row['billed_requests_per_s_low'], 'rate')}"
                f" = {number_text(capacity, 'rate')} requests/s ({BASIS_WORDS[evidence]})"
                + (f"; {COINCIDING[evidence == 'projected'][1]}: coincides with {', '.join(near)}" if near else ""),
                CAPACITY_COLORS[i % len(CAPACITY_COLORS)],
                "capacity",
                dashed=evidence == "projected",
                dash=COINCIDING[evidence == "projected"][0] if near else "",
            )
        )
    traffic = Series(
        "our traffic",
        [
            Point(
                w["window_start_s"] / 60,
                w["scaled_rate_per_s"],
                f"{w['window_start_s'] / 60:,.0f} min: {number_text(w['scaled_rate_per_s'], 'rate')} requests/s "
                f"({w['requests']:,} requests in the log's window)",
            )
            for w in windows
        ],
        "#111827",
    )
    return line_chart(
        title=f"{decision.profile}: our traffic against each top config's capacity",
        x_label="minutes since the log's first request",
        y_label="requests/s",
        series=[traffic],
        lines=lines,
        width=1100,
        height=360,
        data={"profile": decision.profile, "chart": "capacity"},
    )


def _coincide(a: float, b: float, top: float) -> bool:
    """Whether two capacity lines would be drawn within about 3 px of each other on a 200 px plot up to `top`."""
    return abs(a - b) <= 0.015 * top


def at_a_glance(data: ReportData) -> str:
    """Per profile, its first-ranked row (rank_in_profile 1: the recommended config at its cheapest price where
    the profile states a volume, else the lowest cost per request), with the monthly bill when there is one."""
    body = []
    for profile in data.profiles:
        rows = data.shortlist.get(profile["profile"], [])
        row = next((r for r in rows if r["rank_in_profile"] == 1 and r["cost_per_request_usd_high"] is not None), None)
        if row is None:
            continue
        plan = next(
            (
                c
                for c in data.capacity.get(profile["profile"], [])
                if (c["config_key"], c["price_class"], c["price_provider"])
                == (row["config_key"], row["price_class"], row["price_provider"])
            ),
            {},
        )
        cells = [
            shortlist_cell(row, source, fmt)
            for source, fmt in (
                (("accelerator_count", "accelerator_id"), TEXT),
                ("run_label", TEXT),
                (("price_class", "price_provider"), TEXT),
                (("cost_per_request_usd_low", "cost_per_request_usd_high"), "usd_per_1k_requests"),
                (("billed_requests_per_s_low", "billed_requests_per_s_high"), "rate"),
                ("mlperf_server_tokens_per_s_per_accel", "tokens"),
            )
        ]
        cells.append(shortlist_cell(plan, ("monthly_usd_low", "monthly_usd_high"), "usd_per_month"))
        body.append(
            f'<tr class="glance-row" data-profile="{escape(row["profile"])}" '
            f'data-config-key="{escape(row["config_key"])}" data-price-class="{escape(row["price_class"] or "")}" '
            f'data-price-provider="{escape(row["price_provider"] or "")}">'
            f"<td>{escape(profile['profile'])}</td><td>{tag(billed_evidence(row))}</td>"
            + "".join(f"<td>{escape(c)}</td>" for c in cells)
            + "</tr>"
        )
    if not body:
        return ""
    return (
        '<h3>At a glance: the first-ranked config per profile</h3><p class="muted">The recommended config at '
        "its cheapest price where the profile states a volume (lowest monthly bill at our volume, our runs before "
        "projections), else the lowest cost per request: the first row of every table below.</p><table><thead><tr>"
        "<th>profile</th><th>billed on</th><th>accelerators</th><th>run</th><th>price</th><th>$ per 1k requests</th>"
        "<th>billed req/s</th><th>MLPerf srv tok/s/acc</th><th>monthly USD (static)</th></tr></thead><tbody>"
        + "".join(body)
        + "</tbody></table>"
    )
