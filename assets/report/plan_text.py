"""A profile's measurement plan as text (marts.measurement_plan rows, their levels in calibrated.plan_predictions and,
once a run names a plan, its score in calibrated.prospective_validation): what `benchbill plan` prints, the lines
`benchbill run` prints per profile, and the words the report's plan block shares with them. Plain library code."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

from assets.plan.prospective import score_words
from assets.report.decision import no_bill_text
from assets.report.report_data import PlanData
from assets.report.textformat import align_rows, number_text, plain_number, range_text, terminal_width, wrapped

REASON_WORDS = {
    "decision_at_risk": "the recommended config's band is wide or overlaps the next config's",
    "may_beat_recommended": "a projected config that may beat the recommended one",
    "model_unreliable": "billed on a calibrated band whose engine model is unreliable",
    "workload_differs": "billed on a calibrated band whose engine model was fitted on another workload",
}
# The p95 of each latency a level's prediction gives, as the plan's table titles it, in the order a narrow terminal
# leaves them out from the end (TTFT stays).
LEVEL_LATENCIES = (("p95 TTFT\nms", "ttft_p95_ms"), ("p95 TPOT\nms", "tpot_p95_ms"), ("p95 E2E\nms", "e2e_p95_ms"))
# The metrics of calibrated.prospective_validation the score line names: the p95 TTFT per level (their median) and
# the delivered rate at the SLO (one row per plan).
SCORED_TTFT = "ttft_p95_ms"
SCORED_DELIVERED = "delivered_at_slo_requests_per_s"
NEAREST_TO = 1.0  # the report shows the prediction at the level whose rate multiple is nearest this


def date_text(value: Any) -> str:
    """A timestamp as its date (`2026-12-07`)."""
    if isinstance(value, datetime.datetime | datetime.date):
        return value.strftime("%Y-%m-%d")
    return str(value)[:10]


def status_text(row: dict[str, Any]) -> str:
    """`open since 2026-12-07` (no run names the plan yet), or `measured (planned 2026-12-07)`."""
    made = date_text(row["plan_created_at"])
    return f"open since {made}" if row["plan_status"] == "open" else f"{row['plan_status']} (planned {made})"


def reason_text(row: dict[str, Any]) -> str:
    """The row's reason and what it means."""
    words = REASON_WORDS.get(row["reason"])
    return f"{row['reason']} ({words})" if words else str(row["reason"])


def billed_text(row: dict[str, Any]) -> str:
    """What the config is billed on today: `observed, billed on measured 2.10 - 2.60 req/s`."""
    basis = row.get("billed_basis") or row["evidence"]
    band = range_text(row.get("billed_requests_per_s_low"), row.get("billed_requests_per_s_high"), "rate")
    return f"{row['evidence']}, billed on {basis}" + (f" {band} req/s" if band != "-" else " (no billed band)")


def _numbers(text: str | None) -> list[float | None]:
    """A comma-separated list of numbers (level_rates_per_s, rate_multiples); an empty item as None."""
    return [float(part) if part.strip() else None for part in (text or "").split(",")] if text else []


def plan_levels(row: dict[str, Any], levels: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The plan's levels lightest first: its calibrated.plan_predictions rows, else (no such rows) the rates and
    multiples the plan row lists, with its fewest requests and no prediction."""
    if levels:
        return sorted(levels, key=lambda level: level["level"])
    rates, multiples = _numbers(row.get("level_rates_per_s")), _numbers(row.get("rate_multiples"))
    return [
        {
            "level": i + 1,
            "requests_per_s": rate,
            "rate_multiple": multiples[i] if i < len(multiples) else None,
            "requests": row.get("requests_per_level_min"),
        }
        for i, rate in enumerate(rates)
    ]


def multiple_text(value: float | None) -> str:
    """A rate multiple as `0.85x` ('-' when there is none)."""
    return "-" if value is None else f"{plain_number(value, 3)}x"


def levels_text(row: dict[str, Any]) -> str:
    """The levels in one phrase: how many, their rates, what they bracket and how long each is."""
    rates = [r for r in _numbers(row.get("level_rates_per_s")) if r is not None]
    multiples = [m for m in _numbers(row.get("rate_multiples")) if m is not None]
    span = range_text(min(rates), max(rates), "rate", " to ") + " req/s" if rates else "rates not stated"
    predicted = row.get("predicted_delivered_requests_per_s")
    around = (
        f"the predicted delivered rate, {number_text(predicted, 'rate')} req/s"
        if predicted is not None
        else "the billed band's middle"
    )
    bracket = f" ({multiple_text(min(multiples))} to {multiple_text(max(multiples))} {around})" if multiples else ""
    count = row["levels"]
    return (
        f"{count} level{'s' if count != 1 else ''}, {span}{bracket}, at least "
        f"{number_text(row['requests_per_level_min'], 'count')} requests each"
    )


def has_prediction(level: dict[str, Any]) -> bool:
    """Whether a level carries a prediction (any p95 latency or the achieved rate)."""
    return any(level.get(column) is not None for _t, column in LEVEL_LATENCIES) or (
        level.get("achieved_requests_per_s") is not None
    )


def nearest_level(levels: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The level whose rate multiple is nearest NEAREST_TO (the middle one where no level has a multiple)."""
    if not levels:
        return None
    scaled = [level for level in levels if level.get("rate_multiple") is not None]
    if not scaled:
        return levels[len(levels) // 2]
    return min(scaled, key=lambda level: abs(level["rate_multiple"] - NEAREST_TO))


def prediction_text(level: dict[str, Any] | None) -> str:
    """The prediction at one level in words: `at 2.40 req/s (1x): p95 TTFT 180 ms, p95 TPOT 21.5 ms, achieved
    2.38 req/s`; or that there is none (a config without an engine model)."""
    if level is None or not has_prediction(level):
        return "no per-level prediction (no engine model for this config)"
    figures = [
        f"{title.split(chr(10))[0]} {plain_number(level[column], 3)} ms"
        for title, column in LEVEL_LATENCIES
        if level.get(column) is not None
    ]
    if level.get("achieved_requests_per_s") is not None:
        figures.append(f"achieved {number_text(level['achieved_requests_per_s'], 'rate')} req/s")
    where = f"at {number_text(level['requests_per_s'], 'rate')} req/s ({multiple_text(level.get('rate_multiple'))})"
    return f"{where}: {', '.join(figures)}"


def _signed_percent(fraction: float) -> str:
    """A relative error as a signed percentage: `+12%`, `-8.0%`."""
    return ("+" if fraction > 0 else "") + number_text(fraction, "percent") + "%"


def score_text(scores: list[dict[str, Any]]) -> str | None:
    """The score of a plan's prediction from its calibrated.prospective_validation rows (prospective.score_words:
    `predicted before measuring: p95 TTFT off by 12% (median of 6), delivered rate off by 8%`); None without rows."""
    return score_words(scores) if scores else None


def earlier_scores(plans: PlanData, profile: str) -> list[tuple[str, str]]:
    """(plan in words, its score) of each plan of `profile` a run came back for that is no longer in its plan: the
    prediction made before measuring, scored, though the refit on what came back planned anew."""
    out = []
    for level in plans.earlier.get(profile, []):
        score = score_text(plans.scores.get(level["plan_id"], []))
        if score is not None:
            made = date_text(level["plan_created_at"])
            out.append((f"plan {level['plan_id']} ({level['config_label']}, made {made})", score))
    return out


def no_plan_text(profile: dict[str, Any], billed: bool) -> str:
    """Why a profile (an analytics.profiles row) has no plan row: no bill to put at risk (no volume, or no config
    billed at it), or nothing a measurement would change."""
    if not billed:
        return f"no measurement plan for {profile['profile']}: {no_bill_text(profile)}"
    return (
        f"no measurement plan for {profile['profile']}: nothing to measure: the recommended config's billed band "
        "is narrow and overlaps no other config's, no projected config may beat it, and no config is billed on a "
        "calibrated band whose engine model is unreliable or fitted on another workload"
    )


def unknown_profile_text(name: str, profiles: list[str], serving: Path) -> str:
    """An unknown profile, with the profiles that exist."""
    known = ", ".join(sorted(profiles)) or "none"
    return f"no profile {name!r} in {serving}; its profiles are: {known}"


def _ms(value: float | None) -> str:
    """Milliseconds to 3 significant digits ('-' when there is none)."""
    return "-" if value is None else plain_number(value, 3)


def measured_ttft(scores: list[dict[str, Any]]) -> dict[int, float]:
    """The p95 TTFT measured per level (plan_level -> ms) in a plan's calibrated.prospective_validation rows."""
    return {
        s["plan_level"]: s["measured"]
        for s in scores
        if s["metric"] == SCORED_TTFT and s.get("plan_level") is not None and s.get("measured") is not None
    }


def levels_table(levels: list[dict[str, Any]], width: int, measured: dict[int, float] | None = None) -> list[str]:
    """The levels as an aligned table: rate, multiple, requests, and, where predicted, the p95 latencies and the
    achieved rate, then the p95 TTFT `measured` once a run came back (level -> ms); predicted latencies left out from
    the last while the table is wider than `width`."""
    measured = measured or {}
    shown = [lt for lt in LEVEL_LATENCIES if any(level.get(lt[1]) is not None for level in levels)]
    achieved = any(level.get("achieved_requests_per_s") is not None for level in levels)
    while True:
        header = ["level", "x", "req/s", "requests", *(t for t, _c in shown)]
        header += ["achieved\nreq/s"] if achieved else []
        header += ["measured\np95 TTFT"] if measured else []
        body = [
            [
                str(level["level"]),
                multiple_text(level.get("rate_multiple")),
                number_text(level.get("requests_per_s"), "rate"),
                number_text(level.get("requests"), "count"),
                *(_ms(level.get(c)) for _t, c in shown),
                *([number_text(level.get("achieved_requests_per_s"), "rate")] if achieved else []),
                *([_ms(measured.get(level["level"]))] if measured else []),
            ]
            for level in levels
        ]
        lines = align_rows(header, body, right=[True] * len(header))
        if len(shown) <= 1 or max(len(line) for line in lines) <= width:
            return lines
        shown = shown[:-1]


def plan_row_lines(
    row: dict[str, Any], levels: list[dict[str, Any]], scores: list[dict[str, Any]], warehouse: Path, width: int
) -> list[str]:
    """One plan row as the terminal prints it: the config, reason, why, plan id and status, where its files are,
    the traffic and the levels (with the prediction made per level), the score once measured."""
    indent = "   "
    lines = wrapped(f"{row['plan_rank']}. {row['config_label']}", width, hanging=indent)
    for said in (
        f"reason: {reason_text(row)}; {billed_text(row)}",
        f"why: {row['why']}",
        f"plan {row['plan_id']}: {status_text(row)}",
        f"files: {plan_folder_path(warehouse, row)}",
        f"traffic: {row['traffic_basis']}",
        f"levels: {levels_text(row)}"
        + ("" if row["has_prediction"] else "; no per-level prediction (no engine model for this config)"),
    ):
        lines += wrapped(said, width, indent=indent, hanging="    ")
    lines += [
        indent + "  " + line
        for line in levels_table(plan_levels(row, levels), width - len(indent) - 2, measured_ttft(scores))
    ]
    scored = score_text(scores)
    if scored is not None:
        lines += wrapped(scored, width, indent=indent, hanging="    ")
    return lines


def plan_folder_path(warehouse: Path, row: dict[str, Any]) -> str:
    """Where a plan's files are: the warehouse folder joined with the row's plan_folder, ending in `/`."""
    return f"{(warehouse / row['plan_folder']).as_posix().rstrip('/')}/"


def format_plan(profile: str, plans: PlanData, warehouse: Path, width: int | None = None) -> str:
    """The profile's whole plan as `benchbill plan` prints it, folded to `width` (default: the terminal's)."""
    width = width or terminal_width()
    rows = plans.rows.get(profile, [])
    count = f"{len(rows)} row{'s' if len(rows) != 1 else ''}"
    lines = wrapped(f"measurement plan for {profile} ({count}, what a measurement would change most first):", width)
    for row in rows:
        lines += [
            "",
            *plan_row_lines(
                row, plans.levels.get(row["plan_id"], []), plans.scores.get(row["plan_id"], []), warehouse, width
            ),
        ]
    for said, score in earlier_scores(plans, profile):
        lines += ["", *wrapped(f"measured: {said}: {score}", width, hanging="    ")]
    return "\n".join(lines)


def plan_heads(plans: PlanData, warehouse: Path, width: int | None = None) -> list[str]:
    """What `benchbill run` prints per profile with a plan: its first row (the config, why in short, the levels and
    the prediction nearest the predicted crossing) and where its files are; the row's whole `why` is
    `benchbill plan`'s."""
    width = width or terminal_width()
    lines = []
    for profile, rows in sorted(plans.rows.items()):
        first = rows[0]
        nearest = nearest_level(plan_levels(first, plans.levels.get(first["plan_id"], [])))
        lines += wrapped(
            f"measurement plan for {profile}, row 1 of {len(rows)}: {first['config_label']}: "
            f"{REASON_WORDS.get(first['reason'], first['reason'])}"
            f"; {levels_text(first)}; {prediction_text(nearest)}",
            width,
            hanging="    ",
        )
        lines += wrapped(
            f"files: {plan_folder_path(warehouse, first)} (the whole plan and why: benchbill plan --profile {profile})",
            width,
            indent="    ",
            hanging="    ",
        )
    return lines
