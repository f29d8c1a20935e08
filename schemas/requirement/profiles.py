"""requirement.profiles: what we demand of a config, per workload profile."""

import pandera.polars as pa


class Profiles(pa.DataFrameModel):
    """One workload profile: the model served, the latency SLO, the delivered-fraction prior used
    for projections and our traffic's token mix, from the profiles YAML."""

    profile: str = pa.Field(unique=True, description="Profile name, as in the profiles YAML.")
    model_raw: str = pa.Field(description="Model as written in the profile (any alias).")
    model_id: str = pa.Field(
        nullable=True,
        description="Canonical model id; empty when unknown (then no MLPerf result joins: model_key pairs the rest).",
    )
    model_known: bool = pa.Field(description="True when model_raw matched a canonical model id.")
    model_key: str = pa.Field(
        description=(
            "What runs, calibrated configs, our traffic's projections and quality evidence pair on "
            "(canonical.model_key): the canonical model id, else the model's name without organisation and "
            "quantisation words (observed.quality.model of a model no alias table knows)."
        )
    )
    delivered_fraction_prior_low: float = pa.Field(
        gt=0,
        le=2,
        description=("Low end of the prior fraction of MLPerf Server throughput a config delivers at this SLO."),
    )
    delivered_fraction_prior_high: float = pa.Field(gt=0, le=2, description="High end of that prior fraction.")
    error_rate_max: float = pa.Field(ge=0, le=1, description="Largest acceptable fraction of failed requests.")
    input_tokens_stated: str = pa.Field(
        nullable=True,
        description=(
            "The prompt lengths the profile states (workload.input_tokens, or the old workload.input_tokens_mean), "
            "as JSON: kind fixed (mean), lognormal (mean, cv, cv_assumed) or percentiles (p50, p90, p99); empty: "
            "not stated. Resolved with the traffic log into requirement.workload, which every reader reads."
        ),
    )
    output_tokens_stated: str = pa.Field(
        nullable=True,
        description="The answer lengths the profile states (workload.output_tokens or output_tokens_mean), as JSON.",
    )
    lengths_file: str = pa.Field(
        nullable=True,
        description=(
            "A lengths-only file (workload.lengths_file: per-request input and output tokens, no timestamps), as "
            "an absolute path."
        ),
    )
    arrival_cv: float = pa.Field(
        nullable=True,
        ge=0,
        description=(
            "Our arrivals' inter-arrival coefficient of variation without a traffic log (workload.arrival_cv): 0 "
            "evenly spaced, 1 Poisson, above 1 bursty; empty: not stated (Poisson assumed where arrivals are "
            "simulated)."
        ),
    )
    traffic_log: str = pa.Field(
        nullable=True,
        description=("Production request log describing our traffic (workload.traffic_log), as an absolute path."),
    )
    requests_per_day: float = pa.Field(
        nullable=True,
        gt=0,
        description=(
            "Our daily volume (workload.requests_per_day): the traffic log's windows are scaled so that their mean "
            "is requests_per_day / 86400; without a log, the stated mean rate."
        ),
    )
    mean_requests_per_s: float = pa.Field(
        nullable=True,
        gt=0,
        description="Our stated mean rate without a traffic log (workload.mean_requests_per_s), requests/s.",
    )
    peak_to_mean: float = pa.Field(
        nullable=True,
        ge=1,
        description="Our stated peak-window rate / mean rate without a traffic log (workload.peak_to_mean).",
    )
    peak_window_s: float = pa.Field(
        gt=0,
        description="Length of the tumbling windows the peak and autoscaled replicas are taken over, s (default 60).",
    )
    min_replicas: int = pa.Field(
        ge=0, description="Fewest replicas kept running when autoscaling (workload.min_replicas, default 1)."
    )
    baseline_run_label: str = pa.Field(
        nullable=True, description="Run label of what we run today (the profile's `baseline`): savings are against it."
    )
    slo_text: str = pa.Field(description="The SLO in words, e.g. ttft_p95_ms <= 1000; tpot_p95_ms <= 50.")
    source: str = pa.Field(description="Profiles YAML file the profile was read from.")
    evidence: str = pa.Field(isin=["requirement"], description="Evidence class of the row: requirement.")

    class Config:
        strict = True
        coerce = True
