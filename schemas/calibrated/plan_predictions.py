"""calibrated.plan_predictions: every stored measurement plan's levels and the prediction made before measuring."""

import datetime

import pandera.polars as pa

_PREDICTED = "Predicted {what} at this level on our traffic, when the plan was made{unit}."


def _predicted(what: str, unit: str = ", ms") -> float:
    return pa.Field(nullable=True, ge=0, description=_PREDICTED.format(what=what, unit=unit))


class PlanPredictions(pa.DataFrameModel):
    """One row per stored plan (plans/<plan_id>/plan.json, kept for as long as the warehouse is, also once the
    config's model is refitted) x load level: the rate and length of the level and what the config's engine model,
    frozen at plan time, predicted for it (empty for a plan without an engine model)."""

    plan_id: str = pa.Field(description="The stored plan (marts.measurement_plan.plan_id).")
    profile: str = pa.Field(description="Profile whose traffic the level replays.")
    config_key: str = pa.Field(
        description="The config planned: its engine model's (calibrated.engine_models.config_key) where it has one, "
        "which a run naming the plan must belong to; else marts.capacity_plan.config_key (a projected config)."
    )
    config_label: str = pa.Field(description="The config in words.")
    plan_created_at: datetime.datetime = pa.Field(description="When the plan was first made (UTC).")
    level: int = pa.Field(ge=1, description="The level, 1 = lightest.")
    rate_multiple: float = pa.Field(
        nullable=True, gt=0, description="The level's rate as a multiple of the rate it brackets."
    )
    requests_per_s: float = pa.Field(gt=0, description="The rate our traffic is sent at, requests/s.")
    requests: int = pa.Field(ge=1, description="Requests the level sends.")
    duration_s: float = pa.Field(ge=0, description="From the first request sent to the last, s.")
    ttft_p50_ms: float = _predicted("p50 time to first token")
    ttft_p95_ms: float = _predicted("p95 time to first token")
    ttft_p99_ms: float = _predicted("p99 time to first token")
    tpot_p50_ms: float = _predicted("p50 time per output token")
    tpot_p95_ms: float = _predicted("p95 time per output token")
    tpot_p99_ms: float = _predicted("p99 time per output token")
    e2e_p50_ms: float = _predicted("p50 E2E latency")
    e2e_p95_ms: float = _predicted("p95 E2E latency")
    e2e_p99_ms: float = _predicted("p99 E2E latency")
    achieved_requests_per_s: float = _predicted("completed requests per second", ", requests/s")

    class Config:
        coerce = True
