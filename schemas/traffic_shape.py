"""requirement.traffic_shape and requirement.traffic_rate: our traffic, from a production request log."""

import pandera.polars as pa


class TrafficShape(pa.DataFrameModel):
    profile: str = pa.Field(unique=True)
    traffic_log: str
    requests: int = pa.Field(ge=3)
    span_s: float = pa.Field(ge=0)
    mean_rate_per_s: float = pa.Field(nullable=True, ge=0)
    window_s: float = pa.Field(gt=0)
    peak_rate_per_s: float = pa.Field(ge=0)
    peak_to_mean: float = pa.Field(nullable=True, ge=0)
    interarrival_cv: float = pa.Field(nullable=True, ge=0)
    gamma_shape: float = pa.Field(nullable=True, gt=0)
    input_tokens_mean: float = pa.Field(nullable=True, ge=0)
    input_tokens_p50: float = pa.Field(nullable=True, ge=0)
    input_tokens_p95: float = pa.Field(nullable=True, ge=0)
    output_tokens_mean: float = pa.Field(nullable=True, ge=0)
    output_tokens_p50: float = pa.Field(nullable=True, ge=0)
    output_tokens_p95: float = pa.Field(nullable=True, ge=0)
    source_sha256: str
    evidence: str = pa.Field(isin=["requirement"])

    class Config:
        strict = True
        coerce = True


class TrafficRate(pa.DataFrameModel):
    """Requests per window over the log (the rate over time)."""

    profile: str
    window_start_s: float = pa.Field(ge=0)
    requests: int = pa.Field(ge=0)
    rate_per_s: float = pa.Field(ge=0)

    class Config:
        strict = True
        coerce = True
        unique = ["profile", "window_start_s"]
