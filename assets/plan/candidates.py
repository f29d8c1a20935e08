"""Which configs a profile's measurement plan holds, why, and what the measurement would change (in USD a month).

Read from the built warehouse: the profile's ranking (marts.capacity_plan joined to marts.config_shortlist, read
by `ranking.ranked`), the projected configs that might beat the best measured one (analytics.measure_next's
projected_may_beat rows: its own SELECT, sql/analytics/measure_next.sql, run here so that there is one definition
of "might beat"), and each observed config's calibrated row on our traffic (calibrated.delivered_at_slo, which
names the engine model: calibrated.engine_models)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import duckdb

from assets.plan.ranking import config_name, ranked
from assets.warehouse.frames import query_frame
from assets.warehouse.sqlfiles import read_sql

AT_RISK_WIDTH = 0.10  # a billed band wider than this (high / low - 1) puts the decision at risk
TOP_CONFIGS = 5  # configs of the ranking whose calibrated band or unreliable model is worth a measurement
REASON_ORDER = ("decision_at_risk", "may_beat_recommended", "model_unreliable", "workload_differs")


@dataclass
class Candidate:
    """One config to measure for a profile: `row` its capacity plan (or measure_next) row, `reason` and `why` in
    words, `stake_usd` what the measurement could move a month, `model` its engine model row and `delivered` its
    calibrated.delivered_at_slo row on our traffic (None: no engine model)."""

    profile: str
    reason: str
    why: str
    stake_usd: float | None
    row: dict[str, Any]
    model: dict[str, Any] | None = None
    delivered: dict[str, Any] | None = None
    also: list[str] = field(default_factory=list)


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _g(x: float | None) -> str:
    return "?" if x is None else f"{x:,.3g}"


def config_label_of(row: dict[str, Any]) -> str:
    """A capacity plan row's config in full: `<run label>: <model>, <n>x <accelerator>, <precision>, <runtime>`."""
    parts = [row["model_id"], f"{row['accelerator_count']}x {row['accelerator_id']}", row.get("precision")]
    runtime = " ".join(p for p in (row.get("runtime"), row.get("runtime_version")) if p)
    said = ", ".join(p for p in [*parts, runtime] if p)
    return f"{row['run_label']}: {said}" if row.get("run_label") else f"{said} (projected from MLPerf)"


def _usd_per_1k(row: dict[str, Any]) -> str:
    low, high = row["effective_cost_per_request_usd_low"], row["effective_cost_per_request_usd_high"]
    return f"{1000 * low:,.4g}-{1000 * high:,.4g} USD per 1,000 requests"


def at_risk(rec: dict[str, Any], runner_up: dict[str, Any] | None) -> Candidate | None:
    """The recommended config, where its billed band is wide or its cost overlaps the runner-up's."""
    low, high = rec["billed_requests_per_s_low"], rec["billed_requests_per_s_high"]
    width = high / low - 1 if low and high else math.inf
    cost_high = rec["effective_cost_per_request_usd_high"]
    other_low = runner_up["effective_cost_per_request_usd_low"] if runner_up else None
    overlaps = cost_high is not None and other_low is not None and other_low <= cost_high
    if not (width > AT_RISK_WIDTH or overlaps):
        return None
    said = (
        f"the recommended {config_name(rec)} bills on its {rec['billed_basis']} band {_g(low)}-{_g(high)} requests/s a "
        f"replica ({'open-ended' if not math.isfinite(width) else _pct(width) + ' wide'})"
    )
    stake = rec["monthly_usd_high"] - rec["monthly_usd_low"]
    if runner_up is not None and cost_high and other_low:
        ratio = cost_high / other_low
        said += f"; it costs {_usd_per_1k(rec)} against {_usd_per_1k(runner_up)} for {config_name(runner_up)}"
        if ratio >= 1:
            said += (
                f": the bands overlap (at its band's low end it costs {_pct(ratio - 1)} more per request than the "
                f"runner-up's best case), so a measurement on our traffic decides which is cheaper"
            )
        else:
            said += (
                f": its delivered rate would have to fall {_pct(1 - ratio)} below its band's low end (to "
                f"{_g(low * ratio)} requests/s) for the runner-up's best case to be cheaper"
            )
        stake = max(stake, rec["monthly_usd_high"] - runner_up["monthly_usd_low"])
    return Candidate(rec["profile"], "decision_at_risk", said, max(stake, 0.0), rec)


def _may_beat(row: dict[str, Any]) -> Candidate:
    saving = f"{row['possible_monthly_saving_usd_low']:,.0f} to {row['possible_monthly_saving_usd_high']:,.0f}"
    why = f"{row['what_to_measure']}: possible saving {saving} USD a month; it rests on {row['mlperf_result']}"
    return Candidate(row["profile"], "may_beat_recommended", why, row["possible_monthly_saving_usd_high"], row)


def _over(row: dict[str, Any], more: dict[str, Any]) -> dict[str, Any]:
    """`row` with the values `more` has (its empty ones left out: a measure_next row has no model id)."""
    return {**row, **{k: v for k, v in more.items() if v is not None}}


def _calibrated(row: dict[str, Any], delivered: dict[str, Any] | None, recommended: dict[str, Any]) -> Candidate | None:
    """An observed config of the top of the ranking whose engine model is unreliable, or which bills on its
    calibrated band because its run's workload differs from ours. The stake: the recommended config's bill band
    width, or what another config could save against the recommended bill at best."""
    if row["config_key"] == recommended["config_key"]:
        stake = row["monthly_usd_high"] - row["monthly_usd_low"]
    else:
        stake = max(0.0, recommended["monthly_usd_high"] - row["monthly_usd_low"])
    if delivered is not None and delivered["config_status"] == "unreliable":
        why = (
            f"{config_name(row)} bills on its {row['billed_basis']} band; its engine model is unreliable "
            f"({delivered['status_reason'] or 'its held-out error is too large'}): measured on our traffic, its "
            "rate needs no model"
        )
        return Candidate(row["profile"], "model_unreliable", why, stake, row)
    if row["billed_basis"] == "calibrated" and "workload differs" in (row["billed_basis_reason"] or ""):
        why = (
            f"{config_name(row)} bills on its calibrated band ({_g(row['billed_requests_per_s_low'])}-"
            f"{_g(row['billed_requests_per_s_high'])} requests/s) because {row['billed_basis_reason']}: measured on "
            "our traffic, the band becomes a measurement"
        )
        return Candidate(row["profile"], "workload_differs", why, stake, row)
    return None


def _calibrated_rows(conn: duckdb.DuckDBPyConnection) -> dict[tuple[str, str], dict[str, Any]]:
    """(profile, run label) -> the calibrated.delivered_at_slo row of the run's config on that profile's traffic."""
    out = {}
    for row in query_frame(conn, "SELECT * FROM calibrated.delivered_at_slo ORDER BY profile, config_key").to_dicts():
        for label in json.loads(row["run_labels"] or "[]"):
            out[(row["profile"], label)] = row
    return out


def candidates(conn: duckdb.DuckDBPyConnection) -> dict[str, list[Candidate]]:
    """Every profile's plan candidates, most decisive first (the stake, then the reason), one per config."""
    capacity = query_frame(
        conn,
        "SELECT c.*, s.rank_in_profile FROM marts.capacity_plan AS c JOIN marts.config_shortlist AS s "
        "USING (profile, config_key, price_class, price_provider) ORDER BY c.profile, s.rank_in_profile",
    ).to_dicts()
    may_beat = query_frame(
        conn,
        f"SELECT * FROM ({read_sql('analytics/measure_next.sql')}) WHERE kind = 'projected_may_beat' "
        "AND at_recommended_price_class IS NOT false",
    ).to_dicts()
    calibrated = _calibrated_rows(conn)
    models = {m["config_key"]: m for m in query_frame(conn, "SELECT * FROM calibrated.engine_models").to_dicts()}
    by_profile: dict[str, list[dict[str, Any]]] = {}
    for row in capacity:
        by_profile.setdefault(row["profile"], []).append(row)
    out: dict[str, list[Candidate]] = {}
    for profile, rows in by_profile.items():
        order = ranked(rows)
        found: list[Candidate] = []
        if order.recommended is not None:
            risk = at_risk(order.recommended, order.runner_up)
            found += [risk] if risk else []
        first: dict[str, dict[str, Any]] = {}
        for row in rows:
            first.setdefault(row["config_key"], row)
        found += [_may_beat(_over(first[m["config_key"]], m)) for m in may_beat if m["profile"] == profile]
        for row in order.configs[:TOP_CONFIGS]:
            if row["evidence"] == "observed" and order.recommended is not None:
                mark = _calibrated(row, calibrated.get((profile, row["run_label"])), order.recommended)
                found += [mark] if mark else []
        kept: dict[str, Candidate] = {}
        for c in found:
            c.delivered = calibrated.get((profile, c.row["run_label"])) if c.row.get("run_label") else None
            key = c.delivered["config_key"] if c.delivered else None
            c.model = models.get(key) if key else None
            # runs one engine model stands for (one config, one band) are one measurement
            same = key or c.row["config_key"]
            if same in kept:
                kept[same].also.append(c.why)
                continue
            kept[same] = c
        out[profile] = sorted(
            kept.values(),
            key=lambda c: (c.stake_usd is None, -(c.stake_usd or 0.0), REASON_ORDER.index(c.reason)),
        )
    return out
