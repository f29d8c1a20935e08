"""projected.delivered_at_slo: MLPerf Server x a delivered fraction (measured on our runs, else the profile's prior),
for accelerators we have not measured."""

import pandera.polars as pa


class ProjectedDeliveredAtSlo(pa.DataFrameModel):
    """Projected: per profile x MLPerf reference on an accelerator we have no run for, the MLPerf
    throughput scaled by a delivered fraction: the one our runs measured (projected.measured_fractions),
    else the profile's delivered-fraction prior."""

    profile: str = pa.Field(description="Profile whose SLO and fraction are applied.")
    model_id: str = pa.Field(description="Canonical model id.")
    accelerator_id: str = pa.Field(description="Canonical accelerator id of the MLPerf reference system.")
    accelerator_count: int = pa.Field(ge=1, description="Accelerators in the MLPerf reference system.")
    precision: str = pa.Field(nullable=True, description="Normalised weight precision of the reference system.")
    runtime: str = pa.Field(nullable=True, description="Inference runtime of the reference system.")
    runtime_version: str = pa.Field(nullable=True, description="Version of that runtime.")
    mlperf_result_key: str = pa.Field(
        description="result_key of the MLPerf result projected from (its scenario: reference_scenario)."
    )
    reference_scenario: str = pa.Field(
        isin=["Server", "Interactive"],
        description="MLPerf scenario projected from: the profile's match (benchmark.mlperf_profile_reference).",
    )
    reference_tokens_per_s_per_accel: float = pa.Field(
        gt=0, description="MLPerf tokens/s per accelerator of that scenario's result: what the fraction multiplies."
    )
    server_tokens_per_s_per_accel: float = pa.Field(gt=0, description="MLPerf Server tokens/s per accelerator.")
    delivered_fraction_prior_low: float = pa.Field(
        gt=0, description="Low end of the profile's prior fraction (the fallback)."
    )
    delivered_fraction_prior_high: float = pa.Field(
        gt=0, description="High end of the profile's prior fraction (the fallback)."
    )
    delivered_fraction_low: float = pa.Field(
        gt=0,
        le=1.5,
        description="Low end of the fraction applied: the least low fraction our runs measured, else the prior's low.",
    )
    delivered_fraction_high: float = pa.Field(
        gt=0,
        le=1.5,
        description="High end of the fraction applied: the greatest high fraction our runs measured, else the "
        "prior's high.",
    )
    delivered_fraction_runs: int = pa.Field(
        ge=0,
        description="How many of our bands (runs as measured, configs calibrated) the fraction was learnt from; "
        "0: the prior.",
    )
    delivered_fraction_basis: str = pa.Field(
        description="Which fraction was applied, measured (on which runs, each with its fraction) or the prior, "
        "and which bands were not learnt from and why."
    )
    output_tokens_per_request: float = pa.Field(
        nullable=True, gt=0, description=("Output tokens per request used to turn tokens/s into requests/s.")
    )
    output_tokens_basis: str = pa.Field(nullable=True, description="Where output_tokens_per_request comes from.")
    delivered_requests_per_s_low: float = pa.Field(
        nullable=True, ge=0, description=("Projected requests/s of the whole system, low end (fraction low).")
    )
    delivered_requests_per_s_high: float = pa.Field(
        nullable=True, ge=0, description=("Projected requests/s of the whole system, high end (fraction high).")
    )
    delivered_output_tokens_per_s_low: float = pa.Field(
        ge=0,
        description=("Projected output tokens/s of the whole system, low end (MLPerf x accelerators x fraction low)."),
    )
    delivered_output_tokens_per_s_high: float = pa.Field(
        ge=0,
        description=(
            "Projected output tokens/s of the whole system, high end (MLPerf x accelerators x fraction high)."
        ),
    )
    method: str = pa.Field(description="How the band was computed, in words.")
    evidence: str = pa.Field(isin=["projected"], description="Evidence class of the row: projected.")

    class Config:
        strict = True
        coerce = True
        unique = ["profile", "accelerator_id", "model_id"]
