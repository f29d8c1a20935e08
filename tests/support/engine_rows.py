"""The calibrated.engine_models columns of a hand-built engine (the inverse of our_traffic.params_of, for tests)."""

from __future__ import annotations

import math
from typing import Any

from assets.calibrate.engine import EngineParams


def engine_columns(p: EngineParams) -> dict[str, Any]:
    """The engine-parameter columns of a calibrated.engine_models row holding `p`."""
    return {
        "step_b0_ms": p.b0_ms,
        "step_b1_ms_per_prefill_token": p.b1_ms,
        "step_b2_ms_per_decode_token": p.b2_ms,
        "step_b3_ms_per_prefill_token_per_1k_context": p.b3_ms,
        "request_overhead_ms": p.ttft_overhead_ms,
        "max_running_sequences": float(p.max_num_seqs),
        "token_budget_per_step": float(p.max_batched_tokens),
        "kv_cache_tokens": p.kv_tokens if math.isfinite(p.kv_tokens) else None,
        "scheduling": "mixed" if p.mixed else "separate",
        "chunked_prefill": p.chunked,
        "replicas": p.replicas,
    }
