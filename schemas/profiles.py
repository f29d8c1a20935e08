"""requirement.profiles and requirement.slo_bounds: what we demand of a config."""

import pandera.polars as pa


class Profiles(pa.DataFrameModel):
    profile: str = pa.Field(unique=True)
    model_raw: str
    model_id: str = pa.Field(nullable=True)
    model_known: bool
    delivered_fraction_prior_lo: float = pa.Field(gt=0, le=2)
    delivered_fraction_prior_hi: float = pa.Field(gt=0, le=2)
    error_rate_max: float = pa.Field(ge=0, le=1)
    input_tokens_mean: float = pa.Field(nullable=True, gt=0)
    output_tokens_mean: float = pa.Field(nullable=True, gt=0)
    traffic_log: str = pa.Field(nullable=True)
    slo_text: str
    source: str
    evidence: str = pa.Field(isin=["requirement"])

    class Config:
        strict = True
        coerce = True


class SloBounds(pa.DataFrameModel):
    profile: str
    measure: str = pa.Field(str_matches=r"^((ttft|tpot|itl|e2e)_p(50|90|95|99)_ms|error_rate)$")
    bound: float = pa.Field(ge=0)

    class Config:
        strict = True
        coerce = True
        unique = ["profile", "measure"]
