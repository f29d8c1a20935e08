"""observed.load_points: one row per run x load level (over its repeats), in ms, requests/s and tokens/s."""

import pandera.polars as pa

from schemas.columns import LatencyPercentiles, max_concurrency_field
from schemas.vocab import LOAD_KINDS


class LoadPoints(LatencyPercentiles):
    """One load level of one run, over its repeats: the offered and achieved rate, latency
    percentiles in ms (from observed.load_point_measures), tokens per second and errors."""

    run_id: str = pa.Field(description="Run the load level belongs to (observed.runs.run_id).")
    load_index: int = pa.Field(ge=0, description="Position of the level in the sweep, in increasing load (0-based).")
    load_kind: str = pa.Field(isin=LOAD_KINDS, description="Load set by request rate or by concurrency.")
    offered_rate_per_s: float = pa.Field(
        nullable=True,
        ge=0,
        lt=1e7,
        description=("Request rate the tool was asked for, requests/s (rate sweeps; mean over repeats)."),
    )
    concurrency: float = pa.Field(
        nullable=True, ge=0, lt=1e7, description=("Concurrent requests the tool was asked for (concurrency sweeps).")
    )
    max_concurrency: float = max_concurrency_field(", so each level has its own (the same for its repeats)")
    sent_requests_per_s: float = pa.Field(
        nullable=True, ge=0, lt=1e7, description=("Rate at which the tool actually sent requests, requests/s.")
    )
    achieved_requests_per_s: float = pa.Field(
        nullable=True,
        ge=0,
        lt=1e7,
        description=(
            "Successfully completed requests per second, mean over repeats: the throughput of the level. "
            "NULL when it cannot be computed (achieved_rate_missing_reason says why), never 0 unless none completed."
        ),
    )
    achieved_requests_per_s_min: float = pa.Field(
        nullable=True, ge=0, lt=1e7, description=("Lowest achieved requests/s among the level's repeats.")
    )
    achieved_requests_per_s_max: float = pa.Field(
        nullable=True, ge=0, lt=1e7, description=("Highest achieved requests/s among the level's repeats.")
    )
    achieved_rate_missing_reason: str = pa.Field(
        nullable=True,
        description=(
            "Why achieved_requests_per_s is NULL (no rate in the tool's file and no measured window in its "
            "per-request records); such a level never enters observed.delivered_at_slo."
        ),
    )
    requests_sent: int = pa.Field(ge=0, description="Measured requests sent at this level (all repeats).")
    requests_ok: int = pa.Field(ge=0, description="Measured requests that succeeded.")
    requests_failed: int = pa.Field(ge=0, description="Measured requests that failed (error, incomplete, cancelled).")
    requests_unusable: int = pa.Field(
        nullable=True,
        ge=0,
        description=(
            "Requests the tool called successful that are not latency samples (no output token, E2E <= 0 ms, "
            "TTFT > E2E), all repeats: counted in requests_failed; NULL without per-request records."
        ),
    )
    requests_warmup_excluded: int = pa.Field(
        nullable=True, ge=0, description=("Warm-up requests left out of the percentiles (where the dump marks them).")
    )
    requests_cooldown_excluded: int = pa.Field(
        nullable=True, ge=0, description=("Cool-down requests left out of the percentiles (where the dump marks them).")
    )
    error_rate: float = pa.Field(ge=0, le=1, description="requests_failed / (requests_ok + requests_failed).")
    duration_s: float = pa.Field(nullable=True, ge=0, description="Time spent sending requests, s (all repeats).")
    input_tokens_per_s: float = pa.Field(nullable=True, ge=0, lt=1e9, description="Input (prompt) tokens per second.")
    output_tokens_per_s: float = pa.Field(
        nullable=True, ge=0, lt=1e9, description="Output (generated) tokens per second."
    )
    total_tokens_per_s: float = pa.Field(
        nullable=True, ge=0, lt=1e9, description="Input plus output tokens per second."
    )
    input_tokens_mean: float = pa.Field(nullable=True, ge=0, description="Mean input tokens per request.")
    output_tokens_mean: float = pa.Field(nullable=True, ge=0, description="Mean output tokens per request.")
    percentile_source: str = pa.Field(
        isin=["tool_aggregate", "per_request"],
        description=(
            "per_request (percentiles recomputed from request records) or tool_aggregate (as the tool reported)."
        ),
    )
    percentile_estimator: str = pa.Field(description="How the percentiles were estimated, in words.")
    repeats: int = pa.Field(ge=1, description="Repeats of this load level that were measured.")
    tool_definitions: str = pa.Field(description="How the tool defines each latency, and how it was converted.")
    source: str = pa.Field(description="Dump files the level was read from (comma-separated).")
    source_sha256: str = pa.Field(description="SHA-256 over the checksums of those files.")
    evidence: str = pa.Field(isin=["observed"], description="Evidence class of the row: observed.")

    class Config:
        strict = True
        coerce = True
        unique = ["run_id", "load_index"]
