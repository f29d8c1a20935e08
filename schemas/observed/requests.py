"""observed.requests: one row per request of a measured load level (where the dump has them)."""

import pandera.polars as pa

from schemas.vocab import PHASES, STATUSES


class Requests(pa.DataFrameModel):
    """One request sent while measuring a load level, with its latencies (where the dump records
    requests one by one)."""

    run_id: str = pa.Field(description="Run the request belongs to (observed.runs.run_id).")
    load_index: int = pa.Field(ge=0, description="Load level of the request (0-based).")
    repeat_index: int = pa.Field(ge=0, description="Repeat of the level (0-based).")
    request_index: int = pa.Field(ge=0, description="Position of the request in its repeat (0-based).")
    phase: str = pa.Field(isin=PHASES, description="measure, warmup or cooldown (only measure counts).")
    status: str = pa.Field(isin=STATUSES, description="ok, error, incomplete or cancelled.")
    start_offset_s: float = pa.Field(nullable=True, ge=0, description="When the request was sent, s after the first.")
    start_time_unix_s: float = pa.Field(nullable=True, ge=0, description="When the request was sent, Unix seconds.")
    input_tokens: int = pa.Field(nullable=True, ge=0, description="Input (prompt) tokens of the request.")
    output_tokens: int = pa.Field(nullable=True, ge=0, description="Output tokens generated.")
    ttft_ms: float = pa.Field(nullable=True, ge=0, lt=1e8, description="Time to first token, ms.")
    e2e_ms: float = pa.Field(nullable=True, ge=0, lt=1e8, description="End-to-end latency, ms.")
    tpot_ms: float = pa.Field(
        nullable=True, ge=0, lt=1e8, description=("Time per output token, (E2E - TTFT) / (output tokens - 1), ms.")
    )
    error: str = pa.Field(nullable=True, description="The error the tool recorded, for failed requests.")
    source: str = pa.Field(description="Dump file the request was read from.")

    class Config:
        strict = True
        coerce = True
