"""benchmark.mlperf_run_conditions: the conditions an MLPerf result was measured under, from its
LoadGen logs: the limits it was held to, latency and (for LLMs) TTFT/TPOT percentiles, in ms."""

import pandera.polars as pa

from schemas.vocab import SCENARIOS

_PERCENTILES = ["p50", "p90", "p95", "p97", "p99", "p999"]


class MlperfRunConditions(pa.DataFrameModel):
    """The conditions one MLPerf result was measured under, from its LoadGen logs: the limits it
    was held to, what it achieved, latency and (for LLMs) TTFT/TPOT percentiles in ms."""

    result_key: str = pa.Field(unique=True, description="The result (benchmark.mlperf_results.result_key).")
    round: str = pa.Field(str_matches=r"^v\d+\.\d+$", description="MLPerf round.")
    log_scenario: str = pa.Field(
        nullable=True,
        isin=SCENARIOS,
        description="Scenario as the LoadGen log names it (Interactive runs log as Server).",
    )
    result_field: str = pa.Field(
        description="LoadGen log field the result was taken from, chosen as MLCommons' checker does."
    )
    test_mode: str = pa.Field(nullable=True, description="LoadGen test mode (e.g. PerformanceOnly).")
    result_validity: str = pa.Field(nullable=True, description="VALID or INVALID, as LoadGen judged the run.")
    loadgen_version: str = pa.Field(nullable=True, description="LoadGen version that ran the test.")
    test_datetime: str = pa.Field(nullable=True, description="When the test ran, as logged.")
    target_qps: float = pa.Field(
        nullable=True, ge=0, description="Query rate the run was set to (Server: the Poisson arrival rate), queries/s."
    )
    target_latency_ms: float = pa.Field(nullable=True, gt=0, description="Latency bound the run was held to, ms.")
    target_latency_percentile: float = pa.Field(
        nullable=True, ge=0, le=1, description="Percentile at which the latency bound applies (e.g. 0.99)."
    )
    ttft_limit_ms: float = pa.Field(
        nullable=True, gt=0, description="Time-to-first-token limit the LLM run was held to, ms."
    )
    tpot_limit_ms: float = pa.Field(
        nullable=True, gt=0, description="Time-per-output-token limit the LLM run was held to, ms."
    )
    min_duration_ms: float = pa.Field(nullable=True, ge=0, description="Minimum test duration required, ms.")
    min_query_count: float = pa.Field(nullable=True, ge=0, description="Minimum number of queries required.")
    samples_per_query: float = pa.Field(nullable=True, ge=0, description="Samples per query.")
    query_count: float = pa.Field(nullable=True, ge=0, description="Queries issued.")
    overlatency_query_count: float = pa.Field(
        nullable=True, ge=0, description="Queries that exceeded the latency bound."
    )
    samples_per_s: float = pa.Field(nullable=True, ge=0, description="Samples per second, as logged.")
    scheduled_samples_per_s: float = pa.Field(nullable=True, ge=0, description="Scheduled samples per second (Server).")
    completed_samples_per_s: float = pa.Field(nullable=True, ge=0, description="Completed samples per second (Server).")
    tokens_per_s: float = pa.Field(nullable=True, ge=0, description="Tokens per second, as logged (LLMs).")
    latency_min_ms: float = pa.Field(nullable=True, ge=0, description="Minimum of the query latency in the run, ms.")
    latency_mean_ms: float = pa.Field(nullable=True, ge=0, description="Mean of the query latency in the run, ms.")
    latency_max_ms: float = pa.Field(nullable=True, ge=0, description="Maximum of the query latency in the run, ms.")
    latency_p50_ms: float = pa.Field(nullable=True, ge=0, description="p50 of the query latency in the run, ms.")
    latency_p90_ms: float = pa.Field(nullable=True, ge=0, description="p90 of the query latency in the run, ms.")
    latency_p95_ms: float = pa.Field(nullable=True, ge=0, description="p95 of the query latency in the run, ms.")
    latency_p97_ms: float = pa.Field(nullable=True, ge=0, description="p97 of the query latency in the run, ms.")
    latency_p99_ms: float = pa.Field(nullable=True, ge=0, description="p99 of the query latency in the run, ms.")
    latency_p999_ms: float = pa.Field(nullable=True, ge=0, description="p99.9 of the query latency in the run, ms.")
    per_query_latency_p99_ms: float = pa.Field(
        nullable=True, ge=0, description="p99 of the per-query latency (MultiStream), ms."
    )
    ttft_mean_ms: float = pa.Field(nullable=True, ge=0, description="Mean of the time to first token in the run, ms.")
    ttft_p50_ms: float = pa.Field(nullable=True, ge=0, description="p50 of the time to first token in the run, ms.")
    ttft_p90_ms: float = pa.Field(nullable=True, ge=0, description="p90 of the time to first token in the run, ms.")
    ttft_p95_ms: float = pa.Field(nullable=True, ge=0, description="p95 of the time to first token in the run, ms.")
    ttft_p97_ms: float = pa.Field(nullable=True, ge=0, description="p97 of the time to first token in the run, ms.")
    ttft_p99_ms: float = pa.Field(nullable=True, ge=0, description="p99 of the time to first token in the run, ms.")
    ttft_p999_ms: float = pa.Field(nullable=True, ge=0, description="p99.9 of the time to first token in the run, ms.")
    tpot_mean_ms: float = pa.Field(nullable=True, ge=0, description="Mean of the time per output token in the run, ms.")
    tpot_p50_ms: float = pa.Field(nullable=True, ge=0, description="p50 of the time per output token in the run, ms.")
    tpot_p90_ms: float = pa.Field(nullable=True, ge=0, description="p90 of the time per output token in the run, ms.")
    tpot_p95_ms: float = pa.Field(nullable=True, ge=0, description="p95 of the time per output token in the run, ms.")
    tpot_p97_ms: float = pa.Field(nullable=True, ge=0, description="p97 of the time per output token in the run, ms.")
    tpot_p99_ms: float = pa.Field(nullable=True, ge=0, description="p99 of the time per output token in the run, ms.")
    tpot_p999_ms: float = pa.Field(
        nullable=True, ge=0, description="p99.9 of the time per output token in the run, ms."
    )
    power_begin: str = pa.Field(nullable=True, description="Start of the power measurement window, as logged.")
    power_end: str = pa.Field(nullable=True, description="End of the power measurement window, as logged.")
    log_errors: int = pa.Field(ge=0, description="Errors LoadGen logged.")
    log_warnings: int = pa.Field(ge=0, description="Warnings LoadGen logged.")
    source: str = pa.Field(description="LoadGen log file the conditions were read from.")
    source_sha256: str = pa.Field(
        str_length={"min_value": 64, "max_value": 64}, description="SHA-256 of that file's bytes."
    )
    evidence: str = pa.Field(isin=["benchmark"], description="Evidence class of the row: benchmark.")

    class Config:
        strict = True
        coerce = True
