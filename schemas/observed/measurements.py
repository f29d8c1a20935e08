"""observed.measurements: one row per run x load level x repeat, as the tool reported it (ms, /s)."""

import pandera.polars as pa

from schemas.columns import LatencyPercentiles, max_concurrency_field
from schemas.vocab import LOAD_KINDS


class Measurements(LatencyPercentiles):
    """One repeat of one load level of a run, as the tool reported it (converted to ms and /s)."""

    run_id: str = pa.Field(description="Run the measurement belongs to (observed.runs.run_id).")
    load_index: int = pa.Field(ge=0, description="Position of the level in the sweep (0-based).")
    repeat_index: int = pa.Field(ge=0, description="Which repeat of the level (0-based).")
    load_kind: str = pa.Field(isin=LOAD_KINDS, description="Load set by request rate or by concurrency.")
    offered_rate_per_s: float = pa.Field(nullable=True, ge=0, lt=1e7, description="Request rate asked for, requests/s.")
    concurrency: float = pa.Field(nullable=True, ge=0, lt=1e7, description="Concurrent requests asked for.")
    max_concurrency: float = max_concurrency_field()
    sent_requests_per_s: float = pa.Field(
        nullable=True, ge=0, lt=1e7, description="Rate the tool actually sent at, requests/s."
    )
    achieved_requests_per_s: float = pa.Field(
        nullable=True, ge=0, lt=1e7, description=("Successfully completed requests per second.")
    )
    requests_sent: int = pa.Field(nullable=True, ge=0, description="Requests sent, as the tool counted them.")
    requests_ok: int = pa.Field(nullable=True, ge=0, description="Requests that succeeded, as the tool counted them.")
    requests_failed: int = pa.Field(nullable=True, ge=0, description="Requests that failed, as the tool counted them.")
    duration_s: float = pa.Field(nullable=True, ge=0, description="Time spent sending requests, s.")
    input_tokens_per_s: float = pa.Field(nullable=True, ge=0, lt=1e9, description="Input (prompt) tokens per second.")
    output_tokens_per_s: float = pa.Field(nullable=True, ge=0, lt=1e9, description="Output tokens per second.")
    total_tokens_per_s: float = pa.Field(
        nullable=True, ge=0, lt=1e9, description="Input plus output tokens per second."
    )
    input_tokens_mean: float = pa.Field(nullable=True, ge=0, description="Mean input tokens per request.")
    output_tokens_mean: float = pa.Field(nullable=True, ge=0, description="Mean output tokens per request.")
    has_requests: bool = pa.Field(description="True when the dump also holds per-request records for this repeat.")
    source: str = pa.Field(description="Dump file the measurement was read from.")
    source_sha256: str = pa.Field(description="SHA-256 of the dump file's bytes.")
    location: str = pa.Field(description="Where in the file (e.g. a stage or a benchmark entry).")
    tool_definitions: str = pa.Field(description="How the tool defines each latency, and how it was converted.")
    evidence: str = pa.Field(isin=["observed"], description="Evidence class of the row: observed.")

    class Config:
        strict = True
        coerce = True
        unique = ["run_id", "load_index", "repeat_index"]
