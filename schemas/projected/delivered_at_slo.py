"""projected.delivered_at_slo: MLPerf Server x a profile's prior, for accelerators we have not measured."""

import pandera.polars as pa


class ProjectedDeliveredAtSlo(pa.DataFrameModel):
    """Projected: per profile x MLPerf reference on an accelerator we have no run for, the MLPerf
    Server throughput scaled by the profile's delivered-fraction prior."""

    profile: str = pa.Field(description="Profile whose prior is applied.")
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
        gt=0, description="MLPerf tokens/s per accelerator of that scenario's result: what the prior multiplies."
    )
    server_tokens_per_s_per_accel: float = pa.Field(gt=0, description="MLPerf Server tokens/s per accelerator.")
    delivered_fraction_prior_lo: float = pa.Field(gt=0, description="Low end of the profile's prior fraction.")
    delivered_fraction_prior_hi: float = pa.Field(gt=0, description="High end of the profile's prior fraction.")
    output_tokens_per_request: float = pa.Field(
        nullable=True, gt=0, description=("Output tokens per request used to turn tokens/s into requests/s.")
    )
    output_tokens_basis: str = pa.Field(nullable=True, description="Where output_tokens_per_request comes from.")
    delivered_requests_per_s_low: float = pa.Field(
        nullable=True, ge=0, description=("Projected requests/s of the whole system, low end (prior lo).")
    )
    delivered_requests_per_s_high: float = pa.Field(
        nullable=True, ge=0, description=("Projected requests/s of the whole system, high end (prior hi).")
    )
    delivered_output_tokens_per_s_low: float = pa.Field(
        ge=0, description=("Projected output tokens/s of the whole system, low end (Server x accelerators x prior lo).")
    )
    delivered_output_tokens_per_s_high: float = pa.Field(
        ge=0,
        description=("Projected output tokens/s of the whole system, high end (Server x accelerators x prior hi)."),
    )
    method: str = pa.Field(description="How the band was computed, in words.")
    evidence: str = pa.Field(isin=["projected"], description="Evidence class of the row: projected.")

    class Config:
        strict = True
        coerce = True
        unique = ["profile", "accelerator_id", "model_id"]
