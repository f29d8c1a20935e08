"""calibrated.validation: every held-out prediction of the engine models against what was measured."""

import pandera.polars as pa

from schemas.columns import model_key_field
from schemas.vocab import HELD_OUT_KINDS


class Validation(pa.DataFrameModel):
    """One row per config x held-out level or workload x load level x metric: the engine model fitted without
    that level (or workload), its prediction for it, and what the config's run measured (observed.load_points)."""

    config_key: str = pa.Field(description="The config (calibrated.engine_models.config_key).")
    model_key: str = model_key_field()
    heldout_kind: str = pa.Field(
        isin=HELD_OUT_KINDS, description="level: one load level left out of the fit; workload: one workload."
    )
    heldout: str = pa.Field(description="The level (its load) or the workload left out.")
    workload: str = pa.Field(description="The workload of the predicted level (settings and token means).")
    load: str = pa.Field(description="The load of the predicted level: r=<req/s> [cap=<clients>], or c=<clients>.")
    metric: str = pa.Field(
        description=(
            "What is predicted: ttft_p50_ms ... e2e_p50_ms, achieved_requests_per_s, or "
            "delivered_at_slo_requests_per_s (a held-out workload's whole sweep, load 'sweep')."
        )
    )
    measured: float = pa.Field(description="The measured value, in the metric's unit.")
    predicted: float = pa.Field(nullable=True, description="The model's prediction, in the metric's unit.")
    relative_error: float = pa.Field(
        nullable=True, ge=0, description="|predicted / measured - 1|; empty when nothing was predicted."
    )
    signed_relative_error: float = pa.Field(nullable=True, description="predicted / measured - 1.")
    below_knee: bool = pa.Field(
        description="The level's p50 TTFT is at most twice its workload's lightest level's (before queueing)."
    )
    scored: bool = pa.Field(
        description=(
            "Counted in the error figures: false for p95/p99 TTFT above the knee, levels with more than 5% failed "
            "requests, a delivered-at-SLO whose measured sweep never crosses the SLO, and a held-out workload's levels "
            "of fewer than 100 requests (not a steady state: reported, unjudged, said in note)."
        )
    )
    note: str = pa.Field(nullable=True, description="What was noticed about the level or the SLO used.")
    evidence: str = pa.Field(isin=["calibrated"], description="Evidence class of the row: calibrated.")

    class Config:
        strict = True
        coerce = True
