"""observed.delivered_at_slo and projected.delivered_at_slo: SLO-feasible throughput bands."""

import pandera.polars as pa


class DeliveredAtSlo(pa.DataFrameModel):
    """Observed: per run x profile, from the run's load points."""

    profile: str
    run_id: str
    run_label: str
    model_id: str
    accelerator_id: str = pa.Field(nullable=True)
    accelerator_count: int = pa.Field(ge=1)
    precision: str = pa.Field(nullable=True)
    runtime: str
    runtime_version: str = pa.Field(nullable=True)
    arrival: str
    load_kind: str
    load_points: int = pa.Field(ge=0)
    feasible: bool
    slo_crossed: bool
    low_load_index: int = pa.Field(nullable=True, ge=0)
    failing_load_index: int = pa.Field(nullable=True, ge=0)
    low_load_value: float = pa.Field(nullable=True, ge=0)
    failing_load_value: float = pa.Field(nullable=True, ge=0)
    binding_measure: str = pa.Field(nullable=True)
    delivered_requests_per_s_low: float = pa.Field(nullable=True, ge=0)
    delivered_requests_per_s_high: float = pa.Field(nullable=True, ge=0)
    delivered_output_tokens_per_s_low: float = pa.Field(nullable=True, ge=0)
    delivered_output_tokens_per_s_high: float = pa.Field(nullable=True, ge=0)
    delivered_input_tokens_per_s_low: float = pa.Field(nullable=True, ge=0)
    delivered_input_tokens_per_s_high: float = pa.Field(nullable=True, ge=0)
    delivered_total_tokens_per_s_low: float = pa.Field(nullable=True, ge=0)
    delivered_total_tokens_per_s_high: float = pa.Field(nullable=True, ge=0)
    mean_input_tokens: float = pa.Field(nullable=True, ge=0)
    mean_output_tokens: float = pa.Field(nullable=True, ge=0)
    repeats_max: int = pa.Field(ge=0)
    percentile_source: str = pa.Field(nullable=True, isin=["per_request", "tool_aggregate"])
    method: str
    evidence: str = pa.Field(isin=["observed"])

    class Config:
        strict = True
        coerce = True
        unique = ["profile", "run_id"]


class ProjectedDeliveredAtSlo(pa.DataFrameModel):
    """Projected: per profile x MLPerf reference without a run of ours, from the profile's prior."""

    profile: str
    model_id: str
    accelerator_id: str
    accelerator_count: int = pa.Field(ge=1)
    precision: str = pa.Field(nullable=True)
    runtime: str = pa.Field(nullable=True)
    runtime_version: str = pa.Field(nullable=True)
    mlperf_result_key: str
    server_tokens_per_s_per_accel: float = pa.Field(gt=0)
    delivered_fraction_prior_lo: float = pa.Field(gt=0)
    delivered_fraction_prior_hi: float = pa.Field(gt=0)
    output_tokens_per_request: float = pa.Field(nullable=True, gt=0)
    output_tokens_basis: str = pa.Field(nullable=True)
    delivered_requests_per_s_low: float = pa.Field(nullable=True, ge=0)
    delivered_requests_per_s_high: float = pa.Field(nullable=True, ge=0)
    delivered_output_tokens_per_s_low: float = pa.Field(ge=0)
    delivered_output_tokens_per_s_high: float = pa.Field(ge=0)
    method: str
    evidence: str = pa.Field(isin=["projected"])

    class Config:
        strict = True
        coerce = True
        unique = ["profile", "accelerator_id", "model_id"]
