"""benchmark.mlperf_reference: per accelerator and model, the MLPerf result a config is compared with."""

import pandera.polars as pa


class MlperfReference(pa.DataFrameModel):
    """Per accelerator and model, the MLPerf reference: the highest per-accelerator closed-division
    Server result in the newest round that has one, with the same system's Offline and Interactive."""

    accelerator_id: str = pa.Field(description="Canonical accelerator id.")
    model_id: str = pa.Field(description="Canonical model id.")
    round: str = pa.Field(description="MLPerf round of the reference result.")
    division: str = pa.Field(description="Division of the reference result (always closed).")
    submitter: str = pa.Field(description="Organisation that submitted the reference result.")
    platform: str = pa.Field(description="Submitter's system id of the reference result.")
    system_name: str = pa.Field(nullable=True, description="System description of the reference result.")
    mlperf_model: str = pa.Field(description="MLPerf benchmark model name of the reference result.")
    accuracy_target: str = pa.Field(nullable=True, description="Accuracy target (99 or 99.9) of the reference result.")
    availability: str = pa.Field(nullable=True, description="available, preview or rdi, as published.")
    precision: str = pa.Field(nullable=True, description="Normalised weight precision of the reference system.")
    software: str = pa.Field(nullable=True, description="Software stack of the reference system, as published.")
    runtime: str = pa.Field(nullable=True, description="Inference runtime recognised in software.")
    runtime_version: str = pa.Field(nullable=True, description="Version of the runtime.")
    accelerator_count: int = pa.Field(ge=1, description="Accelerators in the reference system.")
    server_result_key: str = pa.Field(description="result_key of the Server result in benchmark.mlperf_results.")
    server_tokens_per_s_per_accel: float = pa.Field(
        gt=0, description=("MLPerf Server tokens per second per accelerator: the reference number.")
    )
    offline_result_key: str = pa.Field(
        nullable=True, description=("result_key of the same system's Offline result, if published.")
    )
    offline_tokens_per_s_per_accel: float = pa.Field(
        nullable=True,
        gt=0,
        description=("Same system's Offline tokens per second per accelerator: an upper bound, never a capacity plan."),
    )
    interactive_result_key: str = pa.Field(
        nullable=True,
        description=(
            "result_key of the same system's Interactive result (v5.1 scenario, or v5.0 <model>-interactive), "
            "if published."
        ),
    )
    interactive_tokens_per_s_per_accel: float = pa.Field(
        nullable=True, gt=0, description=("Same system's Interactive tokens per second per accelerator, if published.")
    )
    output_tokens_per_sample: float = pa.Field(
        nullable=True,
        gt=0,
        description=("Mean output tokens per sample reported with the Server result's accuracy (TOKENS_PER_SAMPLE)."),
    )
    dataset: str = pa.Field(nullable=True, description="Data set the benchmark runs.")
    source: str = pa.Field(description="File path or URL the Server result was read from.")
    details_url: str = pa.Field(nullable=True, description="MLCommons page with the Server result's details.")
    evidence: str = pa.Field(isin=["benchmark"], description="Evidence class of the row: benchmark.")

    class Config:
        strict = True
        coerce = True
        unique = ["accelerator_id", "model_id"]
