"""calibrated.delivered_at_slo: per profile x config, the rate our traffic is delivered at within the SLO."""

import pandera.polars as pa

from schemas.columns import calibrated_model_id_field, model_key_field
from schemas.vocab import CALIBRATED_DELIVERY_STATUSES, CALIBRATION_STATUSES


class DeliveredAtSlo(pa.DataFrameModel):
    """One row per profile x config of the profile's model (calibrated.engine_models): the highest rate at which
    every SLO bound of the profile (requirement.slo_bounds) holds on our traffic through the config's engine model
    (calibrated.latency_curve), as a band carrying the config's measured held-out error (calibrated.validation),
    never a point; or, in status and status_reason, what cannot be done and why."""

    profile: str = pa.Field(description="The workload profile (requirement.profiles).")
    model_id: str = calibrated_model_id_field()
    model_key: str = model_key_field()
    config_key: str = pa.Field(description="The config (calibrated.engine_models.config_key).")
    config_label: str = pa.Field(description="The config in words: model, count x accelerator, precision, runtime.")
    accelerator_id: str = pa.Field(description="Canonical accelerator id (as written where unknown).")
    accelerator_count: int = pa.Field(ge=1, description="Accelerators serving the model.")
    precision: str = pa.Field(nullable=True, description="Canonical weight precision; empty when unknown.")
    runtime: str = pa.Field(description="Serving runtime (e.g. vLLM).")
    runtime_version: str = pa.Field(nullable=True, description="Version of the serving runtime.")
    run_labels: str = pa.Field(description="The runs the config's model was fitted on (observed.runs.run_label), JSON.")
    config_status: str = pa.Field(
        isin=CALIBRATION_STATUSES, description="The engine model's status (calibrated.engine_models.status)."
    )
    status: str = pa.Field(
        isin=CALIBRATED_DELIVERY_STATUSES,
        description=(
            "delivered: the band below; lower_bound: the rate is at least delivered_requests_per_s_low (the levels "
            "never saturated and the model puts the SLO beyond what was measured, or every point of the curve meets "
            "it); misses_slo: even the lightest load misses; not_judged: a bound on a percentile the config's runs "
            "never measured; no_traffic: the profile gives no token mix; not_calibrated: the config has no engine "
            "model with a measured error (status_reason says why)."
        ),
    )
    status_reason: str = pa.Field(nullable=True, description="What could not be done and why, in words.")
    bills: bool = pa.Field(
        description=(
            "The band may bill: status delivered or lower_bound and the engine model fitted (an unreliable model "
            "never bills)."
        )
    )
    slo_text: str = pa.Field(description="The bounds judged, e.g. 'ttft_p95_ms <= 1000; error_rate <= 0.01'.")
    binding_measure: str = pa.Field(nullable=True, description="The bound that stops the rate (or the achieved rate).")
    delivered_requests_per_s_low: float = pa.Field(
        nullable=True, ge=0, description="Low end of the delivered rate at the SLO: the model's / (1 + band_rel_error)."
    )
    delivered_requests_per_s_high: float = pa.Field(
        nullable=True,
        ge=0,
        description="High end: the model's rate x (1 + band_rel_error); empty for a lower bound.",
    )
    band_rel_error: float = pa.Field(
        nullable=True,
        ge=0,
        description="The config's held-out relative error the band carries (band_basis says which).",
    )
    band_basis: str = pa.Field(nullable=True, description="Which held-out error the band carries, in words.")
    heldout_rel_error_median: float = pa.Field(
        nullable=True, ge=0, description="The config's median held-out |relative error| (calibrated.engine_models)."
    )
    heldout_rel_error_worst: float = pa.Field(nullable=True, ge=0, description="Its worst held-out |relative error|.")
    saturation_requests_per_s: float = pa.Field(
        nullable=True, ge=0, description="The most requests/s the model completes on our token mix."
    )
    traffic_requests_per_s: float = pa.Field(
        nullable=True, description="Our mean rate where the profile states one (its log or workload volume)."
    )
    traffic_interarrival_cv: float = pa.Field(
        nullable=True, ge=0, description="Inter-arrival CV of the replayed traffic (0 even, 1 Poisson, above 1 bursty)."
    )
    input_tokens_mean: float = pa.Field(nullable=True, description="Mean prompt tokens of the replayed traffic.")
    output_tokens_mean: float = pa.Field(nullable=True, description="Mean answer tokens of the replayed traffic.")
    traffic_basis: str = pa.Field(nullable=True, description="Where the replayed traffic comes from, in words.")
    traffic_sample: str = pa.Field(nullable=True, description="Which requests were replayed per point of the curve.")
    evidence: str = pa.Field(isin=["calibrated"], description="Evidence class of the row: calibrated.")

    class Config:
        strict = True
        coerce = True
        unique = ["profile", "config_key"]
