"""The decision per profile, from the capacity plan (marts.capacity_plan) and what to measure next
(analytics.measure_next): the recommended config, its monthly bill and utilisation at our volume, the saving
against the config we run today, the top configs; in sentences the terminal and the report both print."""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from typing import Any

from assets.config.profiles import slo_warnings
from assets.plan.ranking import config_name, ranked
from assets.report.textformat import number_text, range_text

TOP_CAPACITY_CONFIGS = 5  # configs whose capacity the report draws against our traffic


@dataclass
class Decision:
    """One profile's decision: `recommended`, `runner_up` and `top` are capacity plan rows (each config at its
    cheapest price, in the profile's one ranking: analytics.capacity_plan.rank_in_profile), `measure_next`
    analytics.measure_next rows; empty when the profile states no volume. `missed_at_lightest`: the runs of ours,
    where every one misses the SLO even at its lightest load (then no projection is recommended)."""

    profile: str
    recommended: dict[str, Any] | None = None
    top: list[dict[str, Any]] = field(default_factory=list)
    measure_next: list[dict[str, Any]] = field(default_factory=list)
    runner_up: dict[str, Any] | None = None
    measure_elsewhere: list[dict[str, Any]] = field(default_factory=list)
    missed_at_lightest: list[str] = field(default_factory=list)

    @property
    def projection_first(self) -> bool:
        """Whether a projection ranks first though every run of ours misses even at its lightest load: it is then
        not recommended, and the decision says why before naming it."""
        return bool(self.missed_at_lightest) and (self.recommended or {}).get("evidence") == "projected"


def missed_at_lightest_load(observed: list[dict[str, Any]]) -> list[str]:
    """The labels of a profile's runs (analytics.delivered_at_slo rows) when every one of them misses the SLO even
    at its lightest load (no load point meets it, every bound measured: a run whose files lack a bounded percentile
    has not missed it); empty otherwise, or when we ran nothing."""
    runs = [r for r in observed if r.get("evidence", "observed") == "observed"]
    if runs and all(not r["feasible"] and r.get("unmeasured_bounds") is None for r in runs):
        return sorted({str(r["run_label"]) for r in runs})
    return []


def lightest_load_text(runs: list[str]) -> str:
    """Why a projection that ranks first is not recommended: every run of ours misses even at its lightest load."""
    return (
        f"no config recommended: every config of ours measured for this profile ({', '.join(runs)}) misses the SLO "
        "even at its lightest load, so a projection from MLPerf is unlikely to do better (check the SLO's bounds and "
        "units, or measure lighter loads)"
    )


def decide(
    profile: str,
    capacity: list[dict[str, Any]],
    measure_next: list[dict[str, Any]],
    observed: list[dict[str, Any]] | None = None,
) -> Decision:
    """The recommended config: the first of the profile's capacity plan in its one ranking (rank_in_profile,
    marts.config_shortlist: our own runs before projections, then the lowest static monthly bill, high end then
    low, a tie going to the baseline), so that every surface shows it first. `top`: the first configs, each at
    its cheapest price; `runner_up` the next config after the recommended one, on like terms: at the recommended
    row's price class and provider where it has a price there, else at that class, else at its own first price.
    What to measure next at another price class than the recommended one's is kept apart (`measure_elsewhere`):
    its saving is against our best config at that class, not the recommended bill. `observed`: the profile's
    analytics.delivered_at_slo rows (whether every run of ours misses at its lightest load)."""
    order = ranked(capacity)
    recommended, runner_up, configs = order.recommended, order.runner_up, order.configs
    return Decision(
        profile,
        recommended,
        configs[:TOP_CAPACITY_CONFIGS],
        [m for m in measure_next if m.get("at_recommended_price_class") is not False],
        runner_up,
        [m for m in measure_next if m.get("at_recommended_price_class") is False],
        missed_at_lightest_load(observed or []),
    )


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


def _change_text(low: float, high: float) -> str:
    """A monthly saving band in words: saves, costs more, or changes the bill either way."""
    if high < 0:
        return f"costs {range_text(-high, -low, 'usd_per_month', ' to ')} USD a month more"
    if low < 0:
        return (
            f"changes the bill by {range_text(low, high, 'usd_per_month', ' to ')} USD a month (negative: costs more)"
        )
    return f"saves {range_text(low, high, 'usd_per_month', ' to ')} USD a month"


def is_baseline(row: dict[str, Any]) -> bool:
    """Whether a capacity plan row is the config we run today (the profile's `baseline:`; marts.capacity_plan)."""
    return bool(row.get("is_baseline"))


def keep_text(row: dict[str, Any], runner_up: dict[str, Any] | None) -> str:
    """The baseline ranks first: keep it, and what the next best config would cost more."""
    keep = f"keep {row['run_label'] or row['baseline_run_label']}: no config saves money at this volume"
    if runner_up is None:
        return f"{keep} (no other config serves this profile)"
    low, high = runner_up.get("monthly_saving_usd_low"), runner_up.get("monthly_saving_usd_high")
    if low is None or high is None:
        return f"{keep}; the next best is {config_name(runner_up)}"
    if low == 0 and high == 0:
        return f"{keep}; the next best, {config_name(runner_up)}, costs the same"
    costs = range_text(-high, -low, "usd_per_month", " to ") if high <= 0 else None
    more = f"costs {costs} USD a month more" if costs else _change_text(low, high)
    return f"{keep}; the next best, {config_name(runner_up)}, {more}"


def error_text(row: dict[str, Any]) -> str:
    """A calibrated band's error in words: the band's own (calibrated_band_rel_error, the band_rel_error it is
    widened by) first, then the engine model's held-out median and worst."""
    own = row.get("calibrated_band_rel_error")
    median = number_text(row.get("calibrated_heldout_rel_error_median"), "percent")
    worst = number_text(row.get("calibrated_heldout_rel_error_worst"), "percent")
    band = f"band error +-{100 * own:.1f}%; " if own is not None else ""
    return f"{band}engine model held-out error median {median}%, worst {worst}%"


def basis_text(row: dict[str, Any]) -> str:
    """The band the bill rests on (billed_requests_per_s, its billed_basis decided in cost.cost_per_request:
    measured as run / calibrated on our traffic, with its error / projected from MLPerf); beside a calibrated one
    the band measured as run where there is one, beside a measured one the config's calibrated band, where one
    may bill."""
    band = _band(row, "billed_requests_per_s", "rate")
    basis = row.get("billed_basis") or ("measured" if row["evidence"] == "observed" else "projected")
    if basis == "projected":
        return f"billed on the band projected from MLPerf ({band} requests/s, MLPerf x a delivered fraction)"
    if basis == "calibrated":
        why = str(row.get("billed_basis_reason") or "").partition("): ")[2]
        measured = _band(row, "measured_requests_per_s", "rate")
        instead = f", not the {measured} requests/s measured as run" if measured != "-" else ""
        return f"billed on the band calibrated on our traffic, {band} requests/s ({error_text(row)}){instead}" + (
            f": {why}" if why else ""
        )
    text = f"billed on the band measured as run ({band} requests/s)"
    if row.get("calibrated_requests_per_s_low") is not None:
        text += (
            f"; calibrated on our traffic: {_band(row, 'calibrated_requests_per_s', 'rate')} requests/s "
            f"({error_text(row)})"
        )
    return text


def saving_text(row: dict[str, Any], runner_up: dict[str, Any] | None = None) -> str:
    """Before / after: what moving from the baseline to the recommended config saves a month, as a band; when the
    baseline itself ranks first, to keep it and what the next best (`runner_up`) would cost more."""
    baseline = row.get("baseline_run_label")
    if baseline is None:
        return "no baseline stated: set the profile's `baseline:` to the run label of what we run today"
    if is_baseline(row):
        return keep_text(row, runner_up)
    low, high = row.get("monthly_saving_usd_low"), row.get("monthly_saving_usd_high")
    if low is None or high is None:
        return str(row.get("baseline_note") or f"no saving against {baseline}: it has no priced run at this price")
    autoscaled = ""
    if row.get("autoscaled_monthly_saving_usd_high") is not None:
        autoscaled = f" ({_band(row, 'autoscaled_monthly_saving_usd', 'usd_per_month')} USD a month autoscaled)"
    return (
        f"moving from {baseline} to {config_name(row)} {_change_text(low, high)}{autoscaled} at our volume, "
        f"on this evidence ({row['evidence']})"
    )


NO_VOLUME = (
    "no volume stated, so no monthly bill: set workload.requests_per_day (with a traffic_log) or "
    "mean_requests_per_s and peak_to_mean"
)


def no_bill_text(profile: dict[str, Any]) -> str:
    """Why a profile (an analytics.profiles row) has no monthly bill: it states no volume, or it does and no config
    has a bill at it (no run of ours meets the SLO at a price, and no projection is priced)."""
    if profile.get("traffic_log"):
        scale = profile.get("requests_per_day")
        volume = f"traffic log {profile['traffic_log']}" + (
            f" scaled to {number_text(scale, 'count')} requests a day" if scale is not None else " at its own volume"
        )
    elif profile.get("peak_to_mean") is not None:
        mean = profile.get("mean_requests_per_s")
        per_day = profile.get("requests_per_day")
        rate = number_text(mean if mean is not None else (per_day or 0) / 86400, "rate")
        volume = f"mean {rate} requests/s x peak_to_mean {profile['peak_to_mean']:g}"
    else:
        return NO_VOLUME
    return (
        f"volume stated ({volume}), but no config has a monthly bill at it: no run of ours meets the SLO at a "
        "price and no projection is priced (the caveats below say why for each config)"
    )


def model_hint(profile: dict[str, Any], served: dict[str, str]) -> str | None:
    """When a profile's model (an analytics.profiles row) matches no run of ours and no MLPerf result, a warning
    naming the closest names that do (`served`: each run's or result's model as written -> its key,
    canonical.model_key; an MLPerf result's is its canonical id)."""
    if profile.get("model_key") is not None and profile["model_key"] in served.values():
        return None
    raw = str(profile.get("model_raw") or "")
    by_lower = {name.lower(): name for name in served}
    close = [by_lower[n] for n in difflib.get_close_matches(raw.lower(), list(by_lower), n=3, cutoff=0.6)]
    guess = f": did you mean {', '.join(close)}?" if close else ": check its spelling"
    return f"warning: model {raw} matches no run of ours and no MLPerf result{guess}"


def profile_warnings(profile: dict[str, Any], bounds: list[dict[str, Any]], served: dict[str, str]) -> list[str]:
    """What the terminal warns about a profile (an analytics.profiles row, its analytics.slo_bounds rows), for the
    report too: a model that matches nothing (model_hint), an SLO bound outside its plausible range (slo_warnings)."""
    hint = model_hint(profile, served)
    source = str(profile.get("source") or "profiles")
    return ([hint] if hint else []) + [f"warning: {w}" for w in slo_warnings(bounds, source)]


ELSEWHERE_TITLE = (
    "at other price classes (each saving against our best measured config at that class, not the recommended bill)"
)


def projected_text(top: list[dict[str, Any]]) -> str | None:
    """Where the band of a top config is projected, what fraction of the MLPerf reference it applies: measured on
    our runs (which) or the profile's prior (delivered_fraction_basis); None when every top config is measured."""
    projected = [r for r in top if r["evidence"] == "projected"]
    if not projected:
        return None
    names = ", ".join(f"{r['accelerator_count']}x {r['accelerator_id']}" for r in projected)
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
