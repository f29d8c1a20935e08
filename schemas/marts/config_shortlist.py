"""marts.config_shortlist: the decision table, MLPerf reference and delivered numbers side by side."""

import datetime

import pandera.polars as pa

from schemas.columns import (
    billed_band_field,
    billed_basis_field,
    billed_basis_reason_field,
    calibrated_band_error_field,
    calibrated_band_field,
    calibrated_error_field,
    measured_band_field,
)
from schemas.vocab import QUALITY_STATUSES


class ConfigShortlist(pa.DataFrameModel):
    """The decision table: per profile x config x price, the MLPerf reference (benchmark) and what
    the config delivered at the profile's SLO (observed or projected) in separate columns, the cost
    range and every caveat of the comparison."""

    rank_in_profile: int = pa.Field(
        ge=1,
        description=(
            "Position of the row within its profile, the one ranking of every surface (1 = the recommended config "
            "at its cheapest price): rows failing the quality requirement last, rows without a cost after priced "
            "ones, our runs before projections, then the monthly bill at our volume (high end, then low; "
            "marts.capacity_plan) where the profile states one, a tie going to the baseline, then the cost per "
            "request (high end, then low)."
        ),
    )
    profile: str = pa.Field(description="Profile (model and SLO) the row answers for.")
    model_id: str = pa.Field(description="Canonical model id.")
    accelerator_id: str = pa.Field(nullable=True, description="Canonical accelerator id; empty when unknown.")
    accelerator_count: int = pa.Field(ge=1, description="Accelerators in the config.")
    precision: str = pa.Field(nullable=True, description="Normalised weight precision of the config.")
    runtime: str = pa.Field(nullable=True, description="Serving runtime of the config.")
    runtime_version: str = pa.Field(nullable=True, description="Version of the serving runtime.")
    run_label: str = pa.Field(nullable=True, description="Our run measured (observed rows); empty for projected rows.")
    evidence: str = pa.Field(
        isin=["observed", "projected"],
        description=(
            "Evidence class of the delivered and cost numbers: observed (our run) or projected (MLPerf x prior)."
        ),
    )
    config_key: str = pa.Field(
        description=(
            "The config's key: the run_id of our run (observed), or mlperf:<result_key> of the MLPerf Server "
            "result projected from (projected)."
        )
    )
    mlperf_round: str = pa.Field(nullable=True, description="Round of the MLPerf reference result (benchmark).")
    mlperf_submitter: str = pa.Field(nullable=True, description="Submitter of the MLPerf reference result.")
    mlperf_system: str = pa.Field(nullable=True, description="System of the MLPerf reference result.")
    mlperf_precision: str = pa.Field(nullable=True, description="Weight precision of the MLPerf reference system.")
    mlperf_server_tokens_per_s_per_accel: float = pa.Field(
        nullable=True,
        gt=0,
        description=(
            "MLPerf Server tokens/s per accelerator (benchmark): the reference number, under MLPerf's conditions."
        ),
    )
    mlperf_offline_tokens_per_s_per_accel: float = pa.Field(
        nullable=True,
        gt=0,
        description=("MLPerf Offline tokens/s per accelerator of the same system (benchmark): an upper bound only."),
    )
    mlperf_interactive_tokens_per_s_per_accel: float = pa.Field(
        nullable=True,
        gt=0,
        description="MLPerf Interactive tokens/s per accelerator of the same system (benchmark), when published.",
    )
    mlperf_reference_scenario: str = pa.Field(
        nullable=True,
        isin=["Server", "Interactive"],
        description=(
            "MLPerf scenario the config is compared with (delivered fraction, projection): the one whose p99 "
            "bounds are closest to the profile's SLO without being tighter (benchmark.mlperf_profile_reference)."
        ),
    )
    mlperf_reference_reason: str = pa.Field(
        nullable=True, description="Why that scenario: the profile's bounds against Interactive's, bound by bound."
    )
    measured_requests_per_s_low: float = measured_band_field("low")
    measured_requests_per_s_high: float = measured_band_field("high")
    billed_requests_per_s_low: float = billed_band_field("low")
    billed_requests_per_s_high: float = billed_band_field("high")
    billed_output_tokens_per_s_low: float = billed_band_field("low", "Output tokens/s of the whole config")
    billed_output_tokens_per_s_high: float = billed_band_field("high", "Output tokens/s of the whole config")
    billed_basis: str = billed_basis_field()
    billed_basis_reason: str = billed_basis_reason_field()
    calibrated_requests_per_s_low: float = calibrated_band_field("low")
    calibrated_requests_per_s_high: float = calibrated_band_field("high")
    calibrated_band_rel_error: float = calibrated_band_error_field("where no calibrated band may bill")
    calibrated_heldout_rel_error_median: float = calibrated_error_field("median")
    calibrated_heldout_rel_error_worst: float = calibrated_error_field("worst")
    delivered_fraction_low: float = pa.Field(
        nullable=True,
        ge=0,
        description=(
            "Output tokens/s per accelerator the config delivered (low; observed: as measured, projected: as "
            "projected) / MLPerf tokens/s per accelerator of the reference scenario (mlperf_reference_scenario): the "
            "gap."
        ),
    )
    delivered_fraction_high: float = pa.Field(
        nullable=True,
        ge=0,
        description="Delivered output tokens/s per accelerator (high) / MLPerf tokens/s per accelerator (reference).",
    )
    delivered_fraction_basis: str = pa.Field(
        nullable=True,
        description="Projected rows: which fraction the band applies, the one our runs measured (on which runs) "
        "or the profile's prior (projected.delivered_at_slo); empty on observed rows (their band is measured).",
    )
    price_class: str = pa.Field(nullable=True, description="Price class of the price applied (benchmark).")
    price_provider: str = pa.Field(nullable=True, description="Provider of the price applied.")
    usd_per_accelerator_hour: float = pa.Field(nullable=True, gt=0, description="US dollars per accelerator-hour.")
    price_as_of: datetime.date = pa.Field(nullable=True, description="Date of the price.")
    cost_per_request_usd_low: float = pa.Field(
        nullable=True,
        gt=0,
        description=("US dollars per request, low end (cost class; from the high end of the billed band)."),
    )
    cost_per_request_usd_high: float = pa.Field(
        nullable=True, gt=0, description=("US dollars per request, high end (from the low end of the billed band).")
    )
    cost_per_million_output_tokens_usd_low: float = pa.Field(
        nullable=True, gt=0, description=("US dollars per million output tokens, low end.")
    )
    cost_per_million_output_tokens_usd_high: float = pa.Field(
        nullable=True, gt=0, description=("US dollars per million output tokens, high end.")
    )
    baseline_run_label: str = pa.Field(
        nullable=True, description="Run label of what we run today (the profile's baseline), when it names one."
    )
    monthly_saving_usd_low: float = pa.Field(
        nullable=True,
        description=(
            "US dollars a month saved at our volume by moving from the baseline to this config, low end "
            "(marts.capacity_plan; negative: it costs more)."
        ),
    )
    monthly_saving_usd_high: float = pa.Field(
        nullable=True, description="US dollars a month saved against the baseline, high end (marts.capacity_plan)."
    )
    method: str = pa.Field(description="How the delivered band was computed, in words.")
    mlperf_source: str = pa.Field(
        nullable=True,
        description=("The MLPerf reference result in words: round, division, submitter, system, model, and its file."),
    )
    quality_status: str = pa.Field(
        isin=QUALITY_STATUSES,
        description=(
            "Our own task quality at this model and precision under the profile's quality requirement "
            "(marts.quality_gate): meets, fails (ranked after every other row), inconclusive, untested, not_required."
        ),
    )
    quality_evidence: str = pa.Field(
        description="The figures the quality status rests on (observed evals: value, 95% interval, bound, file)."
    )
    mlperf_accuracy: str = pa.Field(
        nullable=True,
        description=(
            "The MLPerf reference result's own accuracy (benchmark.mlperf_accuracy): each metric, its value and "
            "the bound MLPerf's checker set (99% / 99.9% of the reference). MLPerf's task, not ours: different "
            "evidence from quality_status."
        ),
    )
    caveats: str = pa.Field(
        description="Every difference between the reference and the config, and the band the costs rest on where it is "
        "not the measured one, separated by ';'."
    )

    class Config:
        strict = True
        coerce = True
