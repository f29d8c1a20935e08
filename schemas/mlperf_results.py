"""benchmark.mlperf_results: one canonical row per published MLPerf Inference result."""

import pandera.polars as pa

SCENARIOS = ["Offline", "Server", "Interactive", "SingleStream", "MultiStream"]
UNITS = ["tokens/s", "samples/s", "queries/s", "tasks/s", "streams", "ms", "s"]


class MlperfResults(pa.DataFrameModel):
    result_key: str = pa.Field(unique=True)
    round: str = pa.Field(str_matches=r"^v\d+\.\d+$")
    round_order: int = pa.Field(ge=0)
    mlperf_id: str = pa.Field(nullable=True)
    division: str = pa.Field(isin=["closed", "open", "network"])
    suite: str
    submitter: str
    availability: str = pa.Field(nullable=True)
    platform: str
    system_name: str = pa.Field(nullable=True)
    used_model: str
    mlperf_model: str
    model_id: str = pa.Field(nullable=True)
    model_known: bool
    accuracy_target: str = pa.Field(nullable=True, isin=["99", "99.9"])
    dataset: str = pa.Field(nullable=True)
    scenario: str = pa.Field(isin=SCENARIOS)
    result_value: float = pa.Field(gt=0, lt=1e12)
    result_unit: str = pa.Field(isin=UNITS)
    result_unit_raw: str = pa.Field(nullable=True)
    unit_corrected: bool
    unit_rule: str = pa.Field(nullable=True)
    result_field: str = pa.Field(nullable=True)
    metric_kind: str = pa.Field(isin=["throughput", "latency"])
    result_per_accelerator: float = pa.Field(nullable=True, gt=0)
    tokens_per_s: float = pa.Field(nullable=True, gt=0)
    tokens_per_s_per_accel: float = pa.Field(nullable=True, gt=0)
    accelerator_raw: str = pa.Field(nullable=True)
    accelerator_id: str = pa.Field(nullable=True)
    accelerator_known: bool
    is_cpu_only: bool
    accelerators_per_node: int = pa.Field(nullable=True, ge=0, le=100000)
    nodes: int = pa.Field(nullable=True, ge=1, le=100000)
    total_accelerators: int = pa.Field(nullable=True, ge=0, le=1000000)
    processor: str = pa.Field(nullable=True)
    software: str = pa.Field(nullable=True)
    runtime: str = pa.Field(nullable=True)
    runtime_version: str = pa.Field(nullable=True)
    operating_system: str = pa.Field(nullable=True)
    precision_raw: str = pa.Field(nullable=True)
    precision: str = pa.Field(nullable=True)
    accuracy_raw: str = pa.Field(nullable=True)
    accuracy_json: str = pa.Field(nullable=True)
    inferred: bool
    has_power: bool
    power_value: float = pa.Field(nullable=True, ge=0)
    power_unit: str = pa.Field(nullable=True)
    details_url: str = pa.Field(nullable=True)
    source_format: str
    source: str
    source_sha256: str = pa.Field(str_length={"min_value": 64, "max_value": 64})
    source_commit: str = pa.Field(nullable=True)
    source_row: int = pa.Field(ge=0)
    source_location: str
    evidence: str = pa.Field(isin=["benchmark"])

    class Config:
        strict = True
        coerce = True
