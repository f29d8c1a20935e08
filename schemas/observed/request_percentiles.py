"""observed.request_percentiles: per run x load level x measure, percentiles of the per-request records."""

import pandera.polars as pa


class RequestPercentiles(pa.DataFrameModel):
    """One latency percentile of one load level recomputed from its per-request records, pooled over its
    repeats, with a distribution-free 95% interval from order statistics (no resampling)."""

    run_id: str = pa.Field(description="Run the load level belongs to (observed.runs.run_id).")
    load_index: int = pa.Field(ge=0, description="Load level (0-based).")
    measure: str = pa.Field(
        str_matches=r"^(ttft|tpot|e2e)_p(50|90|95|99)_ms$", description=("<ttft|tpot|e2e>_<p50|p90|p95|p99>_ms.")
    )
    value: float = pa.Field(
        ge=0, description="The percentile: quantile_cont (type 7) over the successful requests, ms."
    )
    ci_low: float = pa.Field(ge=0, description="Low end of the 95% interval, ms.")
    ci_high: float = pa.Field(ge=0, description="High end of the 95% interval, ms.")
    requests_used: int = pa.Field(ge=1, description="Successful measured requests with this measure, over all repeats.")
    repeats: int = pa.Field(ge=1, description="Repeats pooled.")
    interval_method: str = pa.Field(description="Which order statistics bound the interval, and any caveat.")

    class Config:
        strict = True
        coerce = True
        unique = ["run_id", "load_index", "measure"]
