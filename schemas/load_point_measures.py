"""observed.load_point_measures: per run x load level x measure, an estimate and its 95% interval."""

import pandera.polars as pa


class LoadPointMeasures(pa.DataFrameModel):
    run_id: str
    load_index: int = pa.Field(ge=0)
    measure: str = pa.Field(str_matches=r"^((ttft|tpot|itl|e2e)_p(50|90|95|99)_ms|error_rate)$")
    value: float = pa.Field(nullable=True, ge=0)
    ci_low: float = pa.Field(nullable=True, ge=0)
    ci_high: float = pa.Field(nullable=True, ge=0)
    source: str = pa.Field(isin=["per_request", "tool_aggregate"])
    requests_used: int = pa.Field(nullable=True, ge=0)
    repeats: int = pa.Field(ge=1)
    interval_method: str

    class Config:
        strict = True
        coerce = True
        unique = ["run_id", "load_index", "measure"]
