"""marts.config_shortlist: the decision table, MLPerf reference and delivered numbers side by side."""

import datetime

import pandera.polars as pa


class ConfigShortlist(pa.DataFrameModel):
    profile: str
    model: str
    accelerator: str = pa.Field(nullable=True)
    accelerator_count: int = pa.Field(ge=1)
    precision: str = pa.Field(nullable=True)
    runtime: str = pa.Field(nullable=True)
    runtime_version: str = pa.Field(nullable=True)
    run_label: str = pa.Field(nullable=True)
    evidence: str = pa.Field(isin=["observed", "projected"])
    mlperf_round: str = pa.Field(nullable=True)
    mlperf_submitter: str = pa.Field(nullable=True)
    mlperf_system: str = pa.Field(nullable=True)
    mlperf_precision: str = pa.Field(nullable=True)
    mlperf_server_tokens_per_s_per_accel: float = pa.Field(nullable=True, gt=0)
    mlperf_offline_tokens_per_s_per_accel: float = pa.Field(nullable=True, gt=0)
    delivered_requests_per_s_low: float = pa.Field(nullable=True, ge=0)
    delivered_requests_per_s_high: float = pa.Field(nullable=True, ge=0)
    delivered_output_tokens_per_s_low: float = pa.Field(nullable=True, ge=0)
    delivered_output_tokens_per_s_high: float = pa.Field(nullable=True, ge=0)
    delivered_fraction_low: float = pa.Field(nullable=True, ge=0)
    delivered_fraction_high: float = pa.Field(nullable=True, ge=0)
    price_class: str = pa.Field(nullable=True)
    price_provider: str = pa.Field(nullable=True)
    usd_per_accelerator_hour: float = pa.Field(nullable=True, gt=0)
    price_as_of: datetime.date = pa.Field(nullable=True)
    cost_per_request_usd_low: float = pa.Field(nullable=True, gt=0)
    cost_per_request_usd_high: float = pa.Field(nullable=True, gt=0)
    cost_per_million_output_tokens_usd_low: float = pa.Field(nullable=True, gt=0)
    cost_per_million_output_tokens_usd_high: float = pa.Field(nullable=True, gt=0)
    method: str
    mlperf_source: str = pa.Field(nullable=True)
    caveats: str

    class Config:
        strict = True
        coerce = True
