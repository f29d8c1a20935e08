"""observed.request_stats: per run x load level x repeat, what its per-request records say."""

import pandera.polars as pa

from schemas.columns import LATENCY_MEANINGS


def _own(metric: str, percentile: str):
    return pa.Field(
        nullable=True,
        ge=0,
        lt=1e8,
        description=(
            f"{percentile} of this repeat's {LATENCY_MEANINGS[metric]}, ms; NULL when the level has one repeat."
        ),
    )


class RequestStats(pa.DataFrameModel):
    """One repeat of one load level as its per-request records tell it (one DuckDB pass over the dump files):
    counts, the measured window, tokens, the arrival pattern, and its own latency percentiles where the
    level has several repeats (ms)."""

    run_id: str = pa.Field(description="Run the repeat belongs to (observed.runs.run_id).")
    load_index: int = pa.Field(ge=0, description="Load level (0-based).")
    repeat_index: int = pa.Field(ge=0, description="Repeat of the level (0-based).")
    source: str = pa.Field(description="Dump file the records were read from.")
    requests_sent: int = pa.Field(ge=0, description="Measured requests (phase measure), every status.")
    requests_ok: int = pa.Field(ge=0, description="Measured requests that succeeded: the percentiles use these.")
    requests_failed: int = pa.Field(
        ge=0,
        description="Measured requests that failed (error, incomplete, cancelled, or unusable: see requests_unusable).",
    )
    requests_unusable: int = pa.Field(
        ge=0,
        description=(
            "Measured requests the tool called successful that are not latency samples (no output token, E2E <= 0 "
            "ms, or TTFT > E2E): counted in requests_failed, left out of every percentile and throughput."
        ),
    )
    requests_warmup_excluded: int = pa.Field(ge=0, description="Warm-up requests, left out.")
    requests_cooldown_excluded: int = pa.Field(ge=0, description="Cool-down requests, left out.")
    rows_quarantined: int = pa.Field(ge=0, description="Rows that failed a check (audit.quarantine), left out.")
    duration_s: float = pa.Field(nullable=True, ge=0, description="First measured send to last measured completion, s.")
    input_tokens_sum: int = pa.Field(
        nullable=True, ge=0, description="Input tokens of the successful measured requests."
    )
    output_tokens_sum: int = pa.Field(
        nullable=True, ge=0, description="Output tokens of the successful measured requests."
    )
    input_tokens_mean: float = pa.Field(nullable=True, ge=0, description="Mean input tokens per successful request.")
    output_tokens_mean: float = pa.Field(nullable=True, ge=0, description="Mean output tokens per successful request.")
    interarrival_cv: float = pa.Field(
        nullable=True,
        ge=0,
        description=(
            "Coefficient of variation of the gaps between the first 5,000 measured sends (0 evenly spaced, 1 Poisson)."
        ),
    )
    ttft_p50_ms: float = _own("ttft", "p50")
    ttft_p90_ms: float = _own("ttft", "p90")
    ttft_p95_ms: float = _own("ttft", "p95")
    ttft_p99_ms: float = _own("ttft", "p99")
    tpot_p50_ms: float = _own("tpot", "p50")
    tpot_p90_ms: float = _own("tpot", "p90")
    tpot_p95_ms: float = _own("tpot", "p95")
    tpot_p99_ms: float = _own("tpot", "p99")
    e2e_p50_ms: float = _own("e2e", "p50")
    e2e_p90_ms: float = _own("e2e", "p90")
    e2e_p95_ms: float = _own("e2e", "p95")
    e2e_p99_ms: float = _own("e2e", "p99")
    evidence: str = pa.Field(isin=["observed"], description="Evidence class: observed.")

    class Config:
        strict = True
        coerce = True
        unique = ["run_id", "load_index", "repeat_index"]
