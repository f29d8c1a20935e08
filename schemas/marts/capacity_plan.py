"""marts.capacity_plan: what each config costs a month at our volume, its replicas and utilisation."""

import datetime
from typing import Any

import pandera.polars as pa

from schemas.columns import (
    billed_basis_field,
    billed_basis_reason_field,
    calibrated_band_error_field,
    calibrated_band_field,
    calibrated_error_field,
    measured_band_field,
)
from schemas.vocab import QUALITY_STATUSES

MONTH = "a month is 730 hours"


def _band(what: str, end: str, formula: str, ge: float | None = 0) -> Any:
    return pa.Field(nullable=True, ge=ge, description=f"{what}, {end} end: {formula}.")


class CapacityPlan(pa.DataFrameModel):
    """Per profile x config x price (as cost.cost_per_request), for each profile with a volume (a traffic
    log, scaled to workload.requests_per_day, or a stated mean rate and peak-to-mean): the replicas our peak
    needs, the monthly bill static and autoscaled, the utilisation sustained, the effective cost per request
    and the monthly saving against the profile's baseline. A replica is one config; a month is 730 hours."""

    profile: str = pa.Field(description="Profile (model, SLO and traffic) the row answers for.")
    model_id: str = pa.Field(description="Canonical model id.")
    accelerator_id: str = pa.Field(description="Canonical accelerator id.")
    accelerator_count: int = pa.Field(ge=1, description="Accelerators in one replica (the config).")
    precision: str = pa.Field(nullable=True, description="Normalised weight precision of the config.")
    runtime: str = pa.Field(nullable=True, description="Serving runtime of the config.")
    runtime_version: str = pa.Field(nullable=True, description="Version of the serving runtime.")
    run_label: str = pa.Field(nullable=True, description="Our run measured (observed rows); empty for projected rows.")
    evidence: str = pa.Field(
        isin=["observed", "projected"],
        description="Evidence class of the delivered throughput: observed (our run) or projected (MLPerf x prior).",
    )
    config_key: str = pa.Field(
        description="run_id (observed) or mlperf:<result_key> (projected), as cost.cost_per_request."
    )
    price_class: str = pa.Field(description="Price class of the price applied.")
    price_provider: str = pa.Field(description="Provider of the price applied.")
    usd_per_accelerator_hour: float = pa.Field(gt=0, description="US dollars per accelerator-hour.")
    price_as_of: datetime.date = pa.Field(description="Date of the price.")
    measured_requests_per_s_low: float = measured_band_field("low")
    measured_requests_per_s_high: float = measured_band_field("high")
    billed_requests_per_s_low: float = pa.Field(
        nullable=True,
        ge=0,
        description=(
            "delivered_low: requests/s one replica delivers at the SLO, the band the bill rests on (billed_basis), "
            "low end."
        ),
    )
    billed_requests_per_s_high: float = pa.Field(nullable=True, ge=0, description="delivered_high: the same, high end.")
    billed_basis: str = billed_basis_field()
    billed_basis_reason: str = billed_basis_reason_field()
    delivered_fraction_basis: str = pa.Field(
        nullable=True,
        description="Projected rows: which fraction of the MLPerf reference the band applies, measured on our runs "
        "(which) or the profile's prior (projected.delivered_at_slo); empty on observed rows.",
    )
    calibrated_requests_per_s_low: float = calibrated_band_field("low")
    calibrated_requests_per_s_high: float = calibrated_band_field("high")
    calibrated_band_rel_error: float = calibrated_band_error_field("where no calibrated band may bill")
    calibrated_heldout_rel_error_median: float = calibrated_error_field("median")
    calibrated_heldout_rel_error_worst: float = calibrated_error_field("worst")
    traffic_basis: str = pa.Field(
        description="Where mean and peak come from: the traffic log (scaled or not) or stated."
    )
    mean_requests_per_s: float = pa.Field(
        gt=0, description="mean: our mean rate, the mean scaled window rate (requests_per_day / 86400), requests/s."
    )
    peak_requests_per_s: float = pa.Field(gt=0, description="peak: our highest scaled window rate, requests/s.")
    peak_window_s: float = pa.Field(gt=0, description="Window length the peak is taken over, s.")
    min_replicas: int = pa.Field(ge=0, description="Fewest replicas kept when autoscaling (workload.min_replicas).")
    replicas_low: int = pa.Field(
        nullable=True, ge=0, description="ceil(peak / delivered_high): replicas at the peak, low end."
    )
    replicas_high: int = pa.Field(
        nullable=True, ge=0, description="ceil(peak / delivered_low): replicas at the peak, high end."
    )
    monthly_usd_low: float = _band(
        "US dollars a month, static (replicas for the peak all month)",
        "low",
        f"replicas_low x accelerator_count x usd_per_accelerator_hour x 730 ({MONTH})",
    )
    monthly_usd_high: float = _band(
        "US dollars a month, static", "high", "replicas_high x accelerator_count x usd_per_accelerator_hour x 730"
    )
    utilisation_low: float = _band(
        "Share of the static capacity our mean traffic uses",
        "low",
        "the smaller of mean / (replicas_high x delivered_low) and mean / (replicas_low x delivered_high)",
    )
    utilisation_high: float = _band(
        "Share of the static capacity our mean traffic uses", "high", "the larger of the two"
    )
    effective_cost_per_request_usd_low: float = _band(
        "US dollars per request actually served, static", "low", "monthly_usd_low / (mean x 730 x 3600)"
    )
    effective_cost_per_request_usd_high: float = _band(
        "US dollars per request actually served, static", "high", "monthly_usd_high / (mean x 730 x 3600)"
    )
    autoscaled_replicas_mean_low: float = _band(
        "Replicas running on average when autoscaling per window",
        "low",
        "mean over the windows of max(min_replicas, ceil(rate_w / delivered_high)); empty without a traffic log",
    )
    autoscaled_replicas_mean_high: float = _band(
        "Replicas running on average when autoscaling per window",
        "high",
        "mean over the windows of max(min_replicas, ceil(rate_w / delivered_low))",
    )
    autoscaled_monthly_usd_low: float = _band(
        "US dollars a month, autoscaled per window",
        "low",
        "autoscaled_replicas_mean_low x accelerator_count x usd_per_accelerator_hour x 730",
    )
    autoscaled_monthly_usd_high: float = _band(
        "US dollars a month, autoscaled per window",
        "high",
        "autoscaled_replicas_mean_high x accelerator_count x usd_per_accelerator_hour x 730",
    )
    baseline_run_label: str = pa.Field(
        nullable=True, description="Run label of what we run today (the profile's baseline)."
    )
    baseline_monthly_usd_low: float = _band(
        "The baseline's static monthly bill at this price class",
        "low",
        "the lowest monthly_usd_low of the baseline's rows (observed, same profile) at the same price class and "
        "provider, else at the same price class",
    )
    baseline_monthly_usd_high: float = _band(
        "The baseline's static monthly bill at this price class", "high", "the highest monthly_usd_high of its rows"
    )
    monthly_saving_usd_low: float = _band(
        "US dollars a month saved by moving from the baseline to this config (negative: it costs more)",
        "low",
        "baseline_monthly_usd_low - monthly_usd_high",
        ge=None,
    )
    monthly_saving_usd_high: float = _band(
        "US dollars a month saved against the baseline", "high", "baseline_monthly_usd_high - monthly_usd_low", ge=None
    )
    autoscaled_monthly_saving_usd_low: float = _band(
        "US dollars a month saved against the baseline when both autoscale (a traffic log only; negative: costs more)",
        "low",
        "the baseline's lowest autoscaled_monthly_usd_low - autoscaled_monthly_usd_high",
        ge=None,
    )
    autoscaled_monthly_saving_usd_high: float = _band(
        "US dollars a month saved against the baseline when both autoscale",
        "high",
        "the baseline's highest autoscaled_monthly_usd_high - autoscaled_monthly_usd_low",
        ge=None,
    )
    baseline_note: str = pa.Field(
        nullable=True,
        description=(
            "What the saving is against (the baseline's parts, when a run.yaml label was split), or why there is "
            "none (the baseline has no such row, or matches no run: the closest run labels)."
        ),
    )
    is_baseline: bool = pa.Field(
        description=(
            "Whether the row is what we run today: an observed run whose label is the profile's baseline, or whose "
            "run.yaml stated it before a split into parts (`label [key=value]`), or whose config_key it is."
        )
    )
    quality_status: str = pa.Field(
        isin=QUALITY_STATUSES,
        description="Our own task quality at this model and precision under the profile's quality requirement "
        "(marts.quality_gate): meets, fails (ranked last), inconclusive, untested, not_required.",
    )
    quality_evidence: str = pa.Field(description="The figures the quality status rests on (marts.quality_gate).")

    class Config:
        strict = True
        coerce = True
        unique = ["profile", "config_key", "price_class", "price_provider"]
