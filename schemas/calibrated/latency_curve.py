"""calibrated.latency_curve: our traffic through each config's engine model, from light load to saturation."""

import pandera.polars as pa

from schemas.columns import model_key_field
from schemas.vocab import CALIBRATION_STATUSES

_PERCENTILE = "Predicted {what} at the {pct} percentile on our traffic at this rate, ms."
_WHAT = {
    "ttft": "time to first token",
    "tpot": "time per output token",
    "itl": "inter-token latency",
    "e2e": "E2E latency",
}


class LatencyCurve(pa.DataFrameModel):
    """One row per profile x config x rate: the profile's traffic (its traffic log's arrivals and lengths, else its
    workload means and arrival CV) replayed through the config's calibrated engine model (calibrated.engine_models)
    at each of at least 20 rates from light load to past saturation, and the latency percentiles, achieved rate and
    error rate the model predicts. Configs whose model is fitted or unreliable (config_status says which: an
    unreliable config's curve never bills)."""

    profile: str = pa.Field(description="The workload profile (requirement.profiles) whose traffic is replayed.")
    config_key: str = pa.Field(description="The config (calibrated.engine_models.config_key).")
    config_label: str = pa.Field(description="The config in words: model, count x accelerator, precision, runtime.")
    model_key: str = model_key_field()
    run_labels: str = pa.Field(description="The runs the config's model was fitted on (observed.runs.run_label), JSON.")
    config_status: str = pa.Field(
        isin=CALIBRATION_STATUSES,
        description="The engine model's status (calibrated.engine_models.status): fitted, or unreliable (never bills).",
    )
    point_index: int = pa.Field(ge=0, description="The point's place on the curve, 0 = lightest load.")
    requests_per_s: float = pa.Field(gt=0, description="The rate our traffic is offered at, requests/s.")
    sent_requests_per_s: float = pa.Field(
        nullable=True, description="The rate the replayed requests were actually sent at (a log's window), requests/s."
    )
    achieved_requests_per_s: float = pa.Field(
        nullable=True, ge=0, description="Predicted completed requests / (last completion - first send), requests/s."
    )
    ttft_p50_ms: float = pa.Field(nullable=True, description=_PERCENTILE.format(what=_WHAT["ttft"], pct="50th"))
    ttft_p90_ms: float = pa.Field(nullable=True, description=_PERCENTILE.format(what=_WHAT["ttft"], pct="90th"))
    ttft_p95_ms: float = pa.Field(nullable=True, description=_PERCENTILE.format(what=_WHAT["ttft"], pct="95th"))
    ttft_p99_ms: float = pa.Field(nullable=True, description=_PERCENTILE.format(what=_WHAT["ttft"], pct="99th"))
    tpot_p50_ms: float = pa.Field(nullable=True, description=_PERCENTILE.format(what=_WHAT["tpot"], pct="50th"))
    tpot_p90_ms: float = pa.Field(nullable=True, description=_PERCENTILE.format(what=_WHAT["tpot"], pct="90th"))
    tpot_p95_ms: float = pa.Field(nullable=True, description=_PERCENTILE.format(what=_WHAT["tpot"], pct="95th"))
    tpot_p99_ms: float = pa.Field(nullable=True, description=_PERCENTILE.format(what=_WHAT["tpot"], pct="99th"))
    itl_p50_ms: float = pa.Field(nullable=True, description=_PERCENTILE.format(what=_WHAT["itl"], pct="50th"))
    itl_p90_ms: float = pa.Field(nullable=True, description=_PERCENTILE.format(what=_WHAT["itl"], pct="90th"))
    itl_p95_ms: float = pa.Field(nullable=True, description=_PERCENTILE.format(what=_WHAT["itl"], pct="95th"))
    itl_p99_ms: float = pa.Field(nullable=True, description=_PERCENTILE.format(what=_WHAT["itl"], pct="99th"))
    e2e_p50_ms: float = pa.Field(nullable=True, description=_PERCENTILE.format(what=_WHAT["e2e"], pct="50th"))
    e2e_p90_ms: float = pa.Field(nullable=True, description=_PERCENTILE.format(what=_WHAT["e2e"], pct="90th"))
    e2e_p95_ms: float = pa.Field(nullable=True, description=_PERCENTILE.format(what=_WHAT["e2e"], pct="95th"))
    e2e_p99_ms: float = pa.Field(nullable=True, description=_PERCENTILE.format(what=_WHAT["e2e"], pct="99th"))
    error_rate: float = pa.Field(
        nullable=True,
        ge=0,
        le=1,
        description="Predicted share of requests refused by the server (larger than the KV cache), 0 to 1.",
    )
    prefill_share: float = pa.Field(
        nullable=True, ge=0, le=1, description="Share of the engine's step time spent on prompt (prefill) tokens."
    )
    traffic_basis: str = pa.Field(
        description="Where the replayed traffic comes from, in words (log or workload means)."
    )
    traffic_sample: str = pa.Field(
        description="Which requests were replayed: the whole log, windows of it past 20,000 requests, or draws."
    )
    evidence: str = pa.Field(isin=["calibrated"], description="Evidence class of the row: calibrated.")

    class Config:
        strict = True
        coerce = True
        unique = ["profile", "config_key", "point_index"]
