"""observed.requests: one row per request of a measured load level (where the dump has them)."""

import pandera.polars as pa

PHASES = ["measure", "warmup", "cooldown"]
STATUSES = ["ok", "error", "incomplete", "cancelled"]


class Requests(pa.DataFrameModel):
    run_id: str
    load_index: int = pa.Field(ge=0)
    repeat_index: int = pa.Field(ge=0)
    request_index: int = pa.Field(ge=0)
    phase: str = pa.Field(isin=PHASES)
    status: str = pa.Field(isin=STATUSES)
    start_offset_s: float = pa.Field(nullable=True, ge=0)
    start_time_unix_s: float = pa.Field(nullable=True, ge=0)
    input_tokens: int = pa.Field(nullable=True, ge=0)
    output_tokens: int = pa.Field(nullable=True, ge=0)
    ttft_ms: float = pa.Field(nullable=True, ge=0, lt=1e8)
    e2e_ms: float = pa.Field(nullable=True, ge=0, lt=1e8)
    tpot_ms: float = pa.Field(nullable=True, ge=0, lt=1e8)
    error: str = pa.Field(nullable=True)
    source: str

    class Config:
        strict = True
        coerce = True
