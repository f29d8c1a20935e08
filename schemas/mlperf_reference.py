"""benchmark.mlperf_reference: per accelerator and model, the MLPerf result a config is compared with."""

import pandera.polars as pa


class MlperfReference(pa.DataFrameModel):
    accelerator_id: str
    model_id: str
    round: str
    division: str
    submitter: str
    platform: str
    system_name: str = pa.Field(nullable=True)
    mlperf_model: str
    accuracy_target: str = pa.Field(nullable=True)
    availability: str = pa.Field(nullable=True)
    precision: str = pa.Field(nullable=True)
    software: str = pa.Field(nullable=True)
    runtime: str = pa.Field(nullable=True)
    runtime_version: str = pa.Field(nullable=True)
    total_accelerators: int = pa.Field(ge=1)
    server_result_key: str
    server_tokens_per_s_per_accel: float = pa.Field(gt=0)
    offline_result_key: str = pa.Field(nullable=True)
    offline_tokens_per_s_per_accel: float = pa.Field(nullable=True, gt=0)
    interactive_tokens_per_s_per_accel: float = pa.Field(nullable=True, gt=0)
    output_tokens_per_sample: float = pa.Field(nullable=True, gt=0)
    dataset: str = pa.Field(nullable=True)
    source: str
    details_url: str = pa.Field(nullable=True)
    evidence: str = pa.Field(isin=["benchmark"])

    class Config:
        strict = True
        coerce = True
        unique = ["accelerator_id", "model_id"]
