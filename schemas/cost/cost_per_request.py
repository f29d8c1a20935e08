"""cost.cost_per_request: per config x profile x price, a low and a high cost."""

import datetime

import pandera.polars as pa

from schemas.columns import (
    billed_band_field,
    billed_basis_field,
    billed_basis_reason_field,
    calibrated_band_error_field,
    measured_band_field,
)


def _cost(per: str, end: str):
    throughput = "high" if end == "low" else "low"
    return pa.Field(
        nullable=True,
        gt=0,
        description=(f"US dollars per {per}, {end} end (from the {throughput} end of the billed band)."),
    )


class CostPerRequest(pa.DataFrameModel):
    """Per config x profile x price (the newest per accelerator, class and provider): cost per
    request and per million output, input and total tokens, low and high."""

    profile: str = pa.Field(description="Profile whose SLO the throughput was delivered at.")
    evidence: str = pa.Field(
        isin=["observed", "projected"],
        description=("Evidence class of the throughput costed: observed (our run) or projected (MLPerf x prior)."),
    )
    config_key: str = pa.Field(description="run_id for observed configs, mlperf:<result_key> for projected ones.")
    run_label: str = pa.Field(nullable=True, description="Human name of the run (observed configs).")
    model_id: str = pa.Field(description="Canonical model id.")
    accelerator_id: str = pa.Field(description="Canonical accelerator id.")
    accelerator_count: int = pa.Field(ge=1, description="Accelerators paid for.")
    precision: str = pa.Field(nullable=True, description="Normalised weight precision of the config.")
    runtime: str = pa.Field(nullable=True, description="Serving runtime of the config.")
    runtime_version: str = pa.Field(nullable=True, description="Version of the serving runtime.")
    price_class: str = pa.Field(description="Price class of the price applied.")
    price_provider: str = pa.Field(description="Provider of the price applied.")
    usd_per_accelerator_hour: float = pa.Field(gt=0, description="US dollars per accelerator-hour.")
    price_as_of: datetime.date = pa.Field(description="Date of the price.")
    price_source: str = pa.Field(description="Where the price was published.")
    measured_requests_per_s_low: float = measured_band_field("low")
    measured_requests_per_s_high: float = measured_band_field("high")
    billed_requests_per_s_low: float = billed_band_field("low")
    billed_requests_per_s_high: float = billed_band_field("high")
    billed_output_tokens_per_s_low: float = billed_band_field("low", "Output tokens/s")
    billed_output_tokens_per_s_high: float = billed_band_field("high", "Output tokens/s")
    billed_basis: str = billed_basis_field()
    billed_basis_reason: str = billed_basis_reason_field()
    calibrated_band_rel_error: float = calibrated_band_error_field()
    cost_per_request_usd_low: float = _cost("request", "low")
    cost_per_request_usd_high: float = _cost("request", "high")
    cost_per_million_output_tokens_usd_low: float = _cost("million output tokens", "low")
    cost_per_million_output_tokens_usd_high: float = _cost("million output tokens", "high")
    cost_per_million_input_tokens_usd_low: float = _cost("million input tokens", "low")
    cost_per_million_input_tokens_usd_high: float = _cost("million input tokens", "high")
    cost_per_million_total_tokens_usd_low: float = _cost("million total tokens", "low")
    cost_per_million_total_tokens_usd_high: float = _cost("million total tokens", "high")
    token_cost_basis: str = pa.Field(
        description=(
            "How the per-token costs relate: each carries the whole accelerator-hour, so they are alternatives."
        )
    )

    class Config:
        strict = True
        coerce = True
        unique = ["profile", "config_key", "price_class", "price_provider"]
