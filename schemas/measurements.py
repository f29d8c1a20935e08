"""observed.measurements: one row per run x load level x repeat, as the tool reported it (ms, /s)."""

import pandera.polars as pa

from schemas.load_points import LatencyPercentiles


class Measurements(LatencyPercentiles):
    run_id: str
    load_index: int = pa.Field(ge=0)
    repeat_index: int = pa.Field(ge=0)
    load_kind: str = pa.Field(isin=["rate", "concurrency"])
    offered_rate_per_s: float = pa.Field(nullable=True, ge=0, lt=1e7)
    concurrency: float = pa.Field(nullable=True, ge=0, lt=1e7)
    sent_rate_per_s: float = pa.Field(nullable=True, ge=0, lt=1e7)
    achieved_requests_per_s: float = pa.Field(nullable=True, ge=0, lt=1e7)
    requests_sent: int = pa.Field(nullable=True, ge=0)
    requests_ok: int = pa.Field(nullable=True, ge=0)
    requests_failed: int = pa.Field(nullable=True, ge=0)
    duration_s: float = pa.Field(nullable=True, ge=0)
    input_tokens_per_s: float = pa.Field(nullable=True, ge=0, lt=1e9)
    output_tokens_per_s: float = pa.Field(nullable=True, ge=0, lt=1e9)
    total_tokens_per_s: float = pa.Field(nullable=True, ge=0, lt=1e9)
    mean_input_tokens: float = pa.Field(nullable=True, ge=0)
    mean_output_tokens: float = pa.Field(nullable=True, ge=0)
    has_requests: bool
    source: str
    source_sha256: str
    location: str
    tool_definitions: str
    evidence: str = pa.Field(isin=["observed"])

    class Config:
        strict = True
        coerce = True
        unique = ["run_id", "load_index", "repeat_index"]
