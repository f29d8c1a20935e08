"""cost.cost_per_request: per config x profile x price, a low and a high cost."""

import datetime

import pandera.polars as pa


class CostPerRequest(pa.DataFrameModel):
    profile: str
    evidence: str = pa.Field(isin=["observed", "projected"])
    config_key: str
    run_label: str = pa.Field(nullable=True)
    model_id: str
    accelerator_id: str
    accelerator_count: int = pa.Field(ge=1)
    precision: str = pa.Field(nullable=True)
    runtime: str = pa.Field(nullable=True)
    runtime_version: str = pa.Field(nullable=True)
    price_class: str
    price_provider: str
    usd_per_accelerator_hour: float = pa.Field(gt=0)
    price_as_of: datetime.date
    price_source: str
    delivered_requests_per_s_low: float = pa.Field(nullable=True, ge=0)
    delivered_requests_per_s_high: float = pa.Field(nullable=True, ge=0)
    delivered_output_tokens_per_s_low: float = pa.Field(nullable=True, ge=0)
    delivered_output_tokens_per_s_high: float = pa.Field(nullable=True, ge=0)
    cost_per_request_usd_low: float = pa.Field(nullable=True, gt=0)
    cost_per_request_usd_high: float = pa.Field(nullable=True, gt=0)
    cost_per_million_output_tokens_usd_low: float = pa.Field(nullable=True, gt=0)
    cost_per_million_output_tokens_usd_high: float = pa.Field(nullable=True, gt=0)
    cost_per_million_input_tokens_usd_low: float = pa.Field(nullable=True, gt=0)
    cost_per_million_input_tokens_usd_high: float = pa.Field(nullable=True, gt=0)
    cost_per_million_total_tokens_usd_low: float = pa.Field(nullable=True, gt=0)
    cost_per_million_total_tokens_usd_high: float = pa.Field(nullable=True, gt=0)
    token_cost_basis: str

    class Config:
        strict = True
        coerce = True
        unique = ["profile", "config_key", "price_class", "price_provider"]
