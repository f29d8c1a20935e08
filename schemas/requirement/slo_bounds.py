"""requirement.slo_bounds: one row per profile and bounded measure."""

import pandera.polars as pa


class SloBounds(pa.DataFrameModel):
    """One bound of a profile's SLO: a latency percentile in ms, or the error rate."""

    profile: str = pa.Field(description="Profile name.")
    measure: str = pa.Field(
        str_matches=r"^((ttft|tpot|itl|e2e)_p(50|90|95|99)_ms|error_rate)$",
        description=("Bounded measure: <ttft|tpot|itl|e2e>_<p50|p90|p95|p99>_ms, or error_rate."),
    )
    bound: float = pa.Field(ge=0, description="Largest acceptable value of the measure (ms, or a fraction).")

    class Config:
        strict = True
        coerce = True
        unique = ["profile", "measure"]
