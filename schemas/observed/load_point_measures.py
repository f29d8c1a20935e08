"""observed.load_point_measures: per run x load level x measure, an estimate and its 95% interval."""

import pandera.polars as pa


class LoadPointMeasures(pa.DataFrameModel):
    """One measure (a latency percentile or the error rate) of one load level: its estimate, a 95%
    interval, and where both came from (per-request records or the tool's aggregates)."""

    run_id: str = pa.Field(description="Run the load level belongs to (observed.runs.run_id).")
    load_index: int = pa.Field(ge=0, description="Position of the level in the sweep (0-based).")
    measure: str = pa.Field(
        str_matches=r"^((ttft|tpot|itl|e2e)_p(50|90|95|99)_ms|error_rate)$",
        description=("<ttft|tpot|itl|e2e>_<p50|p90|p95|p99>_ms, or error_rate."),
    )
    value: float = pa.Field(nullable=True, ge=0, description="The estimate (ms, or a fraction for error_rate).")
    ci_low: float = pa.Field(nullable=True, ge=0, description="Low end of the 95% interval of the estimate.")
    ci_high: float = pa.Field(nullable=True, ge=0, description="High end of the 95% interval of the estimate.")
    source: str = pa.Field(
        isin=["per_request", "tool_aggregate"],
        description=("per_request (recomputed from request records) or tool_aggregate (the tool's own number)."),
    )
    requests_used: int = pa.Field(nullable=True, ge=0, description="Request records the estimate was computed from.")
    repeats: int = pa.Field(ge=1, description="Repeats of the level pooled into the estimate.")
    interval_method: str = pa.Field(
        description=(
            "How the interval was computed (order statistics of the request records, widened to the range of the "
            "repeats; or the range of the repeats' tool aggregates)."
        )
    )

    class Config:
        strict = True
        coerce = True
        unique = ["run_id", "load_index", "measure"]
