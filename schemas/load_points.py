"""observed.load_points: one row per run x load level (over its repeats), in ms, requests/s and tokens/s."""

import pandera.polars as pa

LATENCY_COLUMNS = [f"{m}_{p}_ms" for m in ("ttft", "tpot", "itl", "e2e") for p in ("p50", "p90", "p95", "p99")]


class LatencyPercentiles(pa.DataFrameModel):
    """Our p50-p99 TTFT, TPOT, ITL and E2E in ms (shared by observed.measurements and load_points)."""

    ttft_p50_ms: float = pa.Field(nullable=True, ge=0, lt=1e8)
    ttft_p90_ms: float = pa.Field(nullable=True, ge=0, lt=1e8)
    ttft_p95_ms: float = pa.Field(nullable=True, ge=0, lt=1e8)
    ttft_p99_ms: float = pa.Field(nullable=True, ge=0, lt=1e8)
    tpot_p50_ms: float = pa.Field(nullable=True, ge=0, lt=1e8)
    tpot_p90_ms: float = pa.Field(nullable=True, ge=0, lt=1e8)
    tpot_p95_ms: float = pa.Field(nullable=True, ge=0, lt=1e8)
    tpot_p99_ms: float = pa.Field(nullable=True, ge=0, lt=1e8)
    itl_p50_ms: float = pa.Field(nullable=True, ge=0, lt=1e8)
    itl_p90_ms: float = pa.Field(nullable=True, ge=0, lt=1e8)
    itl_p95_ms: float = pa.Field(nullable=True, ge=0, lt=1e8)
    itl_p99_ms: float = pa.Field(nullable=True, ge=0, lt=1e8)
    e2e_p50_ms: float = pa.Field(nullable=True, ge=0, lt=1e8)
    e2e_p90_ms: float = pa.Field(nullable=True, ge=0, lt=1e8)
    e2e_p95_ms: float = pa.Field(nullable=True, ge=0, lt=1e8)
    e2e_p99_ms: float = pa.Field(nullable=True, ge=0, lt=1e8)


class LoadPoints(LatencyPercentiles):
    run_id: str
    load_index: int = pa.Field(ge=0)
    load_kind: str = pa.Field(isin=["rate", "concurrency"])
    offered_rate_per_s: float = pa.Field(nullable=True, ge=0, lt=1e7)
    concurrency: float = pa.Field(nullable=True, ge=0, lt=1e7)
    sent_rate_per_s: float = pa.Field(nullable=True, ge=0, lt=1e7)
    achieved_requests_per_s: float = pa.Field(ge=0, lt=1e7)
    achieved_requests_per_s_min: float = pa.Field(ge=0, lt=1e7)
    achieved_requests_per_s_max: float = pa.Field(ge=0, lt=1e7)
    requests_sent: int = pa.Field(ge=0)
    requests_ok: int = pa.Field(ge=0)
    requests_failed: int = pa.Field(ge=0)
    requests_warmup_excluded: int = pa.Field(nullable=True, ge=0)
    requests_cooldown_excluded: int = pa.Field(nullable=True, ge=0)
    error_rate: float = pa.Field(ge=0, le=1)
    duration_s: float = pa.Field(nullable=True, ge=0)
    input_tokens_per_s: float = pa.Field(nullable=True, ge=0, lt=1e9)
    output_tokens_per_s: float = pa.Field(nullable=True, ge=0, lt=1e9)
    total_tokens_per_s: float = pa.Field(nullable=True, ge=0, lt=1e9)
    mean_input_tokens: float = pa.Field(nullable=True, ge=0)
    mean_output_tokens: float = pa.Field(nullable=True, ge=0)
    percentile_source: str = pa.Field(isin=["tool_aggregate", "per_request"])
    percentile_estimator: str
    repeats: int = pa.Field(ge=1)
    tool_definitions: str
    source: str
    source_sha256: str
    evidence: str = pa.Field(isin=["observed"])

    class Config:
        strict = True
        coerce = True
        unique = ["run_id", "load_index"]
