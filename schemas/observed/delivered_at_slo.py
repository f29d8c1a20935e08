"""observed.delivered_at_slo: per run x profile, the SLO-feasible request-rate band."""

import pandera.polars as pa

from schemas.columns import band_field


class DeliveredAtSlo(pa.DataFrameModel):
    """Observed: per run x profile of the same model, the request rate (and tokens/s) the run
    delivered within every bound of the profile's SLO, as a low-high band."""

    profile: str = pa.Field(description="Profile whose SLO is applied.")
    run_id: str = pa.Field(description="Run measured (observed.runs.run_id).")
    run_label: str = pa.Field(description="Human name of the run.")
    model_id: str = pa.Field(
        description="Canonical model id; for a model no alias table knows, its key (observed.runs.model_key)."
    )
    accelerator_id: str = pa.Field(nullable=True, description="Canonical accelerator id; empty when unknown.")
    accelerator_count: int = pa.Field(ge=1, description="Accelerators serving the model.")
    precision: str = pa.Field(nullable=True, description="Normalised weight precision of the run.")
    precision_scheme: str = pa.Field(
        nullable=True, description="The run's quantisation scheme (observed.runs.precision_scheme)."
    )
    runtime: str = pa.Field(description="Serving runtime.")
    runtime_version: str = pa.Field(nullable=True, description="Version of the serving runtime.")
    arrival: str = pa.Field(description="Arrival pattern of the run.")
    load_kind: str = pa.Field(description="Load set by request rate or by concurrency.")
    load_points: int = pa.Field(ge=0, description="Load levels in the run.")
    feasible: bool = pa.Field(description="True when at least one load level meets every bound.")
    slo_crossed: bool = pa.Field(
        description=("True when a later load level fails a bound (else the band is a lower bound: high = low).")
    )
    low_load_index: int = pa.Field(nullable=True, ge=0, description="load_index of the low end's load point.")
    failing_load_index: int = pa.Field(nullable=True, ge=0, description="load_index of the first failing load point.")
    low_load_value: float = pa.Field(
        nullable=True, ge=0, description=("Offered load (rate or concurrency) of the low end's load point.")
    )
    failing_load_value: float = pa.Field(
        nullable=True, ge=0, description=("Offered load (rate or concurrency) of the first failing load point.")
    )
    binding_measure: str = pa.Field(nullable=True, description="Bound crossed first between the two points.")
    delivered_requests_per_s_low: float = band_field("low", "Requests/s")
    delivered_requests_per_s_high: float = band_field("high", "Requests/s")
    delivered_output_tokens_per_s_low: float = band_field("low", "Output tokens/s")
    delivered_output_tokens_per_s_high: float = band_field("high", "Output tokens/s")
    delivered_input_tokens_per_s_low: float = band_field("low", "Input tokens/s")
    delivered_input_tokens_per_s_high: float = band_field("high", "Input tokens/s")
    delivered_total_tokens_per_s_low: float = band_field("low", "Total tokens/s")
    delivered_total_tokens_per_s_high: float = band_field("high", "Total tokens/s")
    input_tokens_mean: float = pa.Field(
        nullable=True, ge=0, description="Mean input tokens per request at the low point."
    )
    output_tokens_mean: float = pa.Field(
        nullable=True, ge=0, description="Mean output tokens per request at the low point."
    )
    repeats_max: int = pa.Field(ge=0, description="Most repeats of any load level of the run.")
    percentile_source: str = pa.Field(
        nullable=True,
        isin=["per_request", "tool_aggregate"],
        description=("Where the low point's percentiles come from: per_request records or the tool's aggregates."),
    )
    unmeasured_bounds: str = pa.Field(
        nullable=True,
        description=(
            "The profile's bounded measures (e.g. ttft_p95_ms) that the run's files state at none of its load points "
            "(a per-level summary without that percentile): each fails at every point. NULL when all are measured."
        ),
    )
    unmeasured_bounds_note: str = pa.Field(
        nullable=True,
        description=(
            "unmeasured_bounds in words, each with the percentiles of its metric the files state and the nearest above "
            "it, e.g. 'tpot_p95_ms (they have tpot_p50_ms, tpot_p99_ms: set the SLO on tpot_p99_ms, or measure p95)'."
        ),
    )
    method: str = pa.Field(description="How the band was computed, in words.")
    evidence: str = pa.Field(isin=["observed"], description="Evidence class of the row: observed.")

    class Config:
        strict = True
        coerce = True
        unique = ["profile", "run_id"]
