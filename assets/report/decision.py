"""The decision per profile, from the capacity plan (marts.capacity_plan) and what to measure next
(analytics.measure_next): the recommended config, its monthly bill and utilisation at our volume, the saving
against the config we run today, the top configs; in sentences the terminal and the report both print."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from assets.report.textformat import number_text, range_text

TOP_CAPACITY_CONFIGS = 5  # configs whose capacity the report draws against our traffic


@dataclass
class Decision:
    """One profile's decision: `recommended` and `top` are capacity plan rows (each config at its cheapest
    price), `measure_next` analytics.measure_next rows; empty when the profile states no volume."""

    profile: str
    recommended: dict[str, Any] | None = None
    top: list[dict[str, Any]] = field(default_factory=list)
    measure_next: list[dict[str, Any]] = field(default_factory=list)


def _bill_order(row: dict[str, Any]) -> tuple:
    return (row["monthly_usd_high"], row["monthly_usd_low"], row["config_key"], row["price_class"])


def decide(profile: str, capacity: list[dict[str, Any]], measure_next: list[dict[str, Any]]) -> Decision:
    """The recommended config: the one with the lowest static monthly bill (high end, then low) among our own
    measurements (observed); a projected config is recommended only when no run of ours serves the profile, and
    a projected one that may beat it is listed under what to measure next. `top`: the cheapest configs, each at
    its cheapest price, observed or projected."""
    billed = sorted((r for r in capacity if r["monthly_usd_high"] is not None), key=_bill_order)
    cheapest: dict[str, dict[str, Any]] = {}
    for row in billed:
        cheapest.setdefault(row["config_key"], row)
    configs = list(cheapest.values())
    observed = [r for r in configs if r["evidence"] == "observed"]
    recommended = (observed or configs)[0] if configs else None
    return Decision(profile, recommended, configs[:TOP_CAPACITY_CONFIGS], measure_next)


def config_name(row: dict[str, Any]) -> str:
    """`vllm on 1x nvidia-h100-sxm-80gb` (our run), or `8x amd-mi300x-192gb (projected from MLPerf)`."""
    hardware = f"{row['accelerator_count']}x {row['accelerator']}"
    return f"{row['run_label']} on {hardware}" if row.get("run_label") else f"{hardware} (projected from MLPerf)"


def _band(row: dict[str, Any], column: str, kind: str) -> str:
    """`<column>_low to <column>_high` of a row, written as `kind`."""
    return range_text(row.get(f"{column}_low"), row.get(f"{column}_high"), kind, " to ")


def bill_text(row: dict[str, Any]) -> str:
    """The recommended config's bill at our volume, in one sentence."""
    autoscaled = (
        f" ({_band(row, 'autoscaled_monthly_usd', 'usd_per_month')} autoscaled)"
        if row.get("autoscaled_monthly_usd_high") is not None
        else ""
    )
    replicas = "replica" if row["replicas_high"] == 1 else "replicas"
    unmeasured = (
        " (no run of ours serves this profile: measure it before buying)" if row["evidence"] != "observed" else ""
    )
    return (
        f"{config_name(row)}{unmeasured} at {row['price_class']} {row['price_provider']} "
        f"{number_text(row['usd_per_accelerator_hour'], 'usd_per_hour')} USD per accelerator-hour: "
        f"{_band(row, 'replicas', 'count')} {replicas} for our peak of "
        f"{number_text(row['peak_requests_per_s'], 'rate')} requests/s "
        f"(mean {number_text(row['mean_requests_per_s'], 'rate')}), "
        f"{_band(row, 'monthly_usd', 'usd_per_month')} USD a month{autoscaled}, "
        f"utilisation {_band(row, 'utilisation', 'percent')}%, "
        f"{_band(row, 'effective_cost_per_request_usd', 'usd_per_1k_requests')} USD per 1,000 requests; "
        f"{basis_text(row)}"
    )


def basis_text(row: dict[str, Any]) -> str:
    """The evidence class of the band the bill rests on (delivered_basis, decided in cost.cost_per_request: measured
    as run / calibrated on our traffic, with the engine model's held-out error / projected from MLPerf), and beside a
    measured one the config's band calibrated on our traffic, where one may bill."""
    band = _band(row, "delivered_requests_per_s", "rate")
    median = number_text(row.get("calibrated_heldout_rel_error_median"), "percent")
    worst = number_text(row.get("calibrated_heldout_rel_error_worst"), "percent")
    basis = row.get("delivered_basis") or ("measured" if row["evidence"] == "observed" else "projected")
    if basis == "projected":
        return f"billed on the band projected from MLPerf ({band} requests/s, MLPerf x a delivered fraction)"
    if basis == "calibrated":
        differs = str(row.get("delivered_basis_reason") or "").partition("differs from ours: ")[2]
        why = f"; the run's workload differs from ours: {differs}" if differs else ""
        return (
            f"billed on the band calibrated on our traffic: model error median {median}%, worst {worst}% "
            f"({band} requests/s{why})"
        )
    text = f"billed on the band measured as run ({band} requests/s)"
    if row.get("calibrated_requests_per_s_low") is not None:
        text += (
            f"; calibrated on our traffic: {_band(row, 'calibrated_requests_per_s', 'rate')} requests/s "
            f"(model error median {median}%, worst {worst}%)"
        )
    return text


def saving_text(row: dict[str, Any]) -> str:
    """Before / after: what moving from the baseline to the recommended config saves a month, as a band."""
    baseline = row.get("baseline_run_label")
    if baseline is None:
        return "no baseline stated: set the profile's `baseline:` to the run label of what we run today"
    if row["evidence"] == "observed" and row.get("run_label") == baseline:
        return f"we already run the recommended config ({baseline}): no move, no saving"
    low, high = row.get("monthly_saving_usd_low"), row.get("monthly_saving_usd_high")
    if low is None or high is None:
        return str(row.get("baseline_note") or f"no saving against {baseline}: it has no priced run at this price")
    if high < 0:
        verb = f"costs {range_text(-high, -low, 'usd_per_month', ' to ')} USD a month more"
    elif low < 0:
        verb = (
            f"changes the bill by {range_text(low, high, 'usd_per_month', ' to ')} USD a month (negative: costs more)"
        )
    else:
        verb = f"saves {range_text(low, high, 'usd_per_month', ' to ')} USD a month"
    autoscaled = ""
    if row.get("autoscaled_monthly_saving_usd_high") is not None:
        autoscaled = f" ({_band(row, 'autoscaled_monthly_saving_usd', 'usd_per_month')} USD a month autoscaled)"
    return (
        f"moving from {baseline} to {config_name(row)} {verb}{autoscaled} at our volume, "
        f"on this evidence ({row['evidence']})"
    )


def projected_text(top: list[dict[str, Any]]) -> str | None:
    """Where the band of a top config is projected, what fraction of the MLPerf reference it applies: measured on
    our runs (which) or the profile's prior (delivered_fraction_basis); None when every top config is measured."""
    projected = [r for r in top if r["evidence"] == "projected"]
    if not projected:
        return None
    names = ", ".join(f"{r['accelerator_count']}x {r['accelerator']}" for r in projected)
    bases = "; ".join(dict.fromkeys(str(r.get("delivered_fraction_basis") or "not stated") for r in projected))
    return (
        f"top configs projected from MLPerf ({names}): their delivered band is the MLPerf reference x a delivered "
        f"fraction, {bases}"
    )


def measure_text(row: dict[str, Any]) -> str:
    """One thing to measure next, with the saving it may bring and what it rests on."""
    text = str(row["what_to_measure"])
    if row.get("possible_monthly_saving_usd_high") is not None:
        band = range_text(
            row["possible_monthly_saving_usd_low"], row["possible_monthly_saving_usd_high"], "usd_per_month", " to "
        )
        text += f"; possible saving {band} USD a month"
    if row.get("mlperf_result"):
        text += f" (rests on MLPerf {row['mlperf_result']})"
    return text


_MIX_WORDS = (
    ("prompts_x2", "if prompts double"),
    ("prompts_x0.5", "if prompts halve"),
    ("answers_x2", "if answers double"),
    ("answers_x0.5", "if answers halve"),
)
_PRICED = ("priced", "lower_bound")


def _change(low: float | None, high: float | None) -> str:
    said = [f"{v * 100:+.0f}%" for v in (low, high) if v is not None]
    return " to ".join(said) if len(said) == 2 and said[0] != said[1] else (said[0] if said else "unknown")


def sensitivity_text(row: dict[str, Any], sensitivity: list[dict[str, Any]]) -> str | None:
    """What the token mix and the bursts cost a top config (a capacity plan row), from the
    analytics.cost_sensitivity rows of the calibrated config fitted on its run, at the same price; None when no
    calibrated config of the run is priced."""
    label = row.get("run_label")
    rows = [
        s
        for s in sensitivity
        if label
        and label in json.loads(s["run_labels"] or "[]")
        and (s["price_class"], s["price_provider"]) == (row["price_class"], row["price_provider"])
    ]
    by = {s["variant"]: s for s in rows if s["config_key"] == rows[0]["config_key"]} if rows else {}
    ours = by.get("our_mix")
    if ours is None or ours["status"] not in _PRICED:
        return None
    parts = []
    for variant, words in _MIX_WORDS:
        s = by.get(variant)
        if s is not None and s["status"] in _PRICED:
            change = _change(s["cost_per_request_change_low"], s["cost_per_request_change_high"])
            parts.append(f"{words}: {change} per request")
        elif s is not None:
            parts.append(f"{words}: the SLO is missed even at light load")
    parts.append(f"prefill is {number_text(ours['prefill_share'], 'percent')}% of accelerator time at our mix")
    poisson = by.get("poisson_arrivals") or next(
        (s for s in sensitivity if s["variant"] == "poisson_arrivals" and s["config_key"] == ours["config_key"]), None
    )
    if poisson is not None and poisson["status"] in _PRICED and poisson["bursts_monthly_usd_high"] is not None:
        parts.append(
            f"bursts cost {_band(poisson, 'bursts_monthly_usd', 'usd_per_month')} USD a month over Poisson arrivals"
        )
    elif poisson is not None and poisson["status"] == "same_arrivals":
        parts.append("our arrivals are Poisson already, so bursts cost nothing extra")
    error = (
        f" (calibrated on our traffic; the model's held-out error: median "
        f"{number_text(ours['heldout_rel_error_median'], 'percent')}%, worst "
        f"{number_text(ours['heldout_rel_error_worst'], 'percent')}%)"
    )
    return f"{config_name(row)}: " + "; ".join(parts) + error
