"""benchmark.mlperf_run_conditions: the conditions an MLPerf result was measured under, from its
LoadGen logs: the limits it was held to, latency and (for LLMs) TTFT/TPOT percentiles, in ms."""

import pandera.polars as pa

from schemas.mlperf_results import SCENARIOS

_PERCENTILES = ["p50", "p90", "p95", "p97", "p99", "p999"]


class MlperfRunConditions(pa.DataFrameModel):
    result_key: str = pa.Field(unique=True)
    round: str = pa.Field(str_matches=r"^v\d+\.\d+$")
    log_scenario: str = pa.Field(nullable=True, isin=SCENARIOS)
    result_field: str
    test_mode: str = pa.Field(nullable=True)
    result_validity: str = pa.Field(nullable=True)
    loadgen_version: str = pa.Field(nullable=True)
    test_datetime: str = pa.Field(nullable=True)
    target_qps: float = pa.Field(nullable=True, ge=0)
    target_latency_ms: float = pa.Field(nullable=True, gt=0)
    target_latency_percentile: float = pa.Field(nullable=True, ge=0, le=1)
    ttft_limit_ms: float = pa.Field(nullable=True, gt=0)
    tpot_limit_ms: float = pa.Field(nullable=True, gt=0)
    min_duration_ms: float = pa.Field(nullable=True, ge=0)
    min_query_count: float = pa.Field(nullable=True, ge=0)
    samples_per_query: float = pa.Field(nullable=True, ge=0)
    query_count: float = pa.Field(nullable=True, ge=0)
    overlatency_query_count: float = pa.Field(nullable=True, ge=0)
    samples_per_s: float = pa.Field(nullable=True, ge=0)
    scheduled_samples_per_s: float = pa.Field(nullable=True, ge=0)
    completed_samples_per_s: float = pa.Field(nullable=True, ge=0)
    tokens_per_s: float = pa.Field(nullable=True, ge=0)
    latency_min_ms: float = pa.Field(nullable=True, ge=0)
    latency_mean_ms: float = pa.Field(nullable=True, ge=0)
    latency_max_ms: float = pa.Field(nullable=True, ge=0)
    latency_p50_ms: float = pa.Field(nullable=True, ge=0)
    latency_p90_ms: float = pa.Field(nullable=True, ge=0)
    latency_p95_ms: float = pa.Field(nullable=True, ge=0)
    latency_p97_ms: float = pa.Field(nullable=True, ge=0)
    latency_p99_ms: float = pa.Field(nullable=True, ge=0)
    latency_p999_ms: float = pa.Field(nullable=True, ge=0)
    per_query_latency_p99_ms: float = pa.Field(nullable=True, ge=0)
    ttft_mean_ms: float = pa.Field(nullable=True, ge=0)
    ttft_p50_ms: float = pa.Field(nullable=True, ge=0)
    ttft_p90_ms: float = pa.Field(nullable=True, ge=0)
    ttft_p95_ms: float = pa.Field(nullable=True, ge=0)
    ttft_p97_ms: float = pa.Field(nullable=True, ge=0)
    ttft_p99_ms: float = pa.Field(nullable=True, ge=0)
    ttft_p999_ms: float = pa.Field(nullable=True, ge=0)
    tpot_mean_ms: float = pa.Field(nullable=True, ge=0)
    tpot_p50_ms: float = pa.Field(nullable=True, ge=0)
    tpot_p90_ms: float = pa.Field(nullable=True, ge=0)
    tpot_p95_ms: float = pa.Field(nullable=True, ge=0)
    tpot_p97_ms: float = pa.Field(nullable=True, ge=0)
    tpot_p99_ms: float = pa.Field(nullable=True, ge=0)
    tpot_p999_ms: float = pa.Field(nullable=True, ge=0)
    power_begin: str = pa.Field(nullable=True)
    power_end: str = pa.Field(nullable=True)
    log_errors: int = pa.Field(ge=0)
    log_warnings: int = pa.Field(ge=0)
    source: str
    source_sha256: str = pa.Field(str_length={"min_value": 64, "max_value": 64})
    evidence: str = pa.Field(isin=["benchmark"])

    class Config:
        strict = True
        coerce = True
