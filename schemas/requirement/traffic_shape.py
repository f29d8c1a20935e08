"""requirement.traffic_shape: our traffic's arrival pattern and token mix, from a production request log."""

import pandera.polars as pa


class TrafficShape(pa.DataFrameModel):
    """Per profile with a traffic log: our traffic's arrival pattern (rate, peaks, burstiness) and
    token mix, from the production request log."""

    profile: str = pa.Field(unique=True, description="Profile whose workload.traffic_log this is.")
    traffic_log: str = pa.Field(description="The request log read.")
    requests: int = pa.Field(ge=3, description="Requests in the log.")
    span_s: float = pa.Field(ge=0, description="Time from the first to the last request, s.")
    mean_rate_per_s: float = pa.Field(
        nullable=True,
        ge=0,
        description="(requests - 1) / span_s: the log's own mean rate between its ends, requests/s.",
    )
    window_s: float = pa.Field(
        gt=0, description="Window length for the rate over time and the peak: the profile's peak_window_s, s."
    )
    windows: int = pa.Field(ge=1, description="Whole windows in the log (a last, shorter window is left out).")
    window_mean_rate_per_s: float = pa.Field(
        gt=0, description="Mean of the windows' rates (requests in whole windows / their time), requests/s."
    )
    peak_rate_per_s: float = pa.Field(ge=0, description="Highest window rate of the log, requests/s.")
    peak_to_mean: float = pa.Field(nullable=True, ge=0, description="peak_rate_per_s / window_mean_rate_per_s.")
    requests_per_day: float = pa.Field(
        nullable=True, gt=0, description="Our daily volume the windows are scaled to (workload.requests_per_day)."
    )
    volume_scale: float = pa.Field(
        gt=0,
        description="requests_per_day / 86400 / window_mean_rate_per_s; 1 without requests_per_day.",
    )
    mean_requests_per_s: float = pa.Field(
        gt=0, description="Mean scaled window rate: our mean volume, requests/s (requests_per_day / 86400)."
    )
    peak_requests_per_s: float = pa.Field(gt=0, description="Highest scaled window rate: our peak, requests/s.")
    interarrival_cv: float = pa.Field(
        nullable=True,
        ge=0,
        description=("Coefficient of variation of the gaps between requests (1 = Poisson; above 1 = burstier)."),
    )
    gamma_shape: float = pa.Field(
        nullable=True,
        gt=0,
        description=("Shape of a gamma distribution fitted to the gaps (1 = Poisson; below 1 = burstier)."),
    )
    input_tokens_mean: float = pa.Field(nullable=True, ge=0, description="Mean input tokens per request.")
    input_tokens_p50: float = pa.Field(nullable=True, ge=0, description="Median input tokens per request.")
    input_tokens_p90: float = pa.Field(nullable=True, ge=0, description="p90 of input tokens per request.")
    input_tokens_p95: float = pa.Field(nullable=True, ge=0, description="p95 of input tokens per request.")
    input_tokens_p99: float = pa.Field(nullable=True, ge=0, description="p99 of input tokens per request.")
    input_tokens_cv: float = pa.Field(
        nullable=True, ge=0, description="Coefficient of variation of input tokens per request (std / mean)."
    )
    input_tokens_max: float = pa.Field(nullable=True, ge=0, description="Largest input tokens of a request.")
    output_tokens_mean: float = pa.Field(nullable=True, ge=0, description="Mean output tokens per request.")
    output_tokens_p50: float = pa.Field(nullable=True, ge=0, description="Median output tokens per request.")
    output_tokens_p90: float = pa.Field(nullable=True, ge=0, description="p90 of output tokens per request.")
    output_tokens_p95: float = pa.Field(nullable=True, ge=0, description="p95 of output tokens per request.")
    output_tokens_p99: float = pa.Field(nullable=True, ge=0, description="p99 of output tokens per request.")
    output_tokens_cv: float = pa.Field(
        nullable=True, ge=0, description="Coefficient of variation of output tokens per request (std / mean)."
    )
    output_tokens_max: float = pa.Field(nullable=True, ge=0, description="Largest output tokens of a request.")
    source_sha256: str = pa.Field(description="SHA-256 of the log file's bytes.")
    evidence: str = pa.Field(isin=["requirement"], description="Evidence class of the row: requirement.")

    class Config:
        strict = True
        coerce = True
