"""calibrated.prospective_validation: each measurement plan's prediction, made before measuring, against the runs
that came back naming it."""

import datetime

import pandera.polars as pa

from schemas.vocab import PREDICTION_BASES


class ProspectiveValidation(pa.DataFrameModel):
    """One row per stored plan x measured load level of a run whose run.yaml names the plan x metric the level
    measured (calibrated.plan_predictions' metrics), and one row per plan x run for the delivered rate at the
    profile's SLO (load 'sweep'). The prediction comes only from plans/<plan_id>/plan.json: the plan level's stored
    prediction where the level ran within 5% of a plan level's rate, else the plan's frozen engine parameters
    simulating the level as measured; the config's later refit never changes it. A run naming a plan the warehouse
    does not hold is quarantined (audit.quarantine), with the reason."""

    plan_id: str = pa.Field(description="The stored plan (marts.measurement_plan.plan_id) the run names.")
    profile: str = pa.Field(description="Profile the plan answers for (its SLO judges the delivered rate).")
    config_key: str = pa.Field(description="The config planned (calibrated.engine_models.config_key).")
    plan_created_at: datetime.datetime = pa.Field(description="When the plan, and its prediction, were made (UTC).")
    run_id: str = pa.Field(description="The run that measured it (observed.runs.run_id; its run.yaml's `plan`).")
    run_label: str = pa.Field(description="Human name of the run.")
    load_index: int = pa.Field(
        nullable=True, ge=0, description="The run's load level (observed.load_points.load_index); empty for 'sweep'."
    )
    load: str = pa.Field(
        description="The level's load as calibrated.validation spells it: r=<req/s> [cap=<clients>], or c=<clients>; "
        "'sweep' for the delivered rate of the run's whole sweep."
    )
    offered_requests_per_s: float = pa.Field(
        nullable=True, ge=0, description="The rate the level offered, requests/s; empty for a concurrency level."
    )
    concurrency: float = pa.Field(
        nullable=True, ge=0, description="The clients the level kept in flight; empty for a rate level."
    )
    plan_level: int = pa.Field(
        nullable=True,
        ge=1,
        description="The plan level the measured level ran (its offered rate within 5% of the plan level's); empty "
        "when none did.",
    )
    prediction_basis: str = pa.Field(
        nullable=True,
        isin=PREDICTION_BASES,
        description="Where the prediction comes from: 'plan level' (that level's stored prediction) or 'frozen "
        "model' (the plan's stored engine parameters simulating the level as measured: its load and token lengths, "
        "as the held-out validation does); empty for the delivered-rate row (the plan's own prediction) and where "
        "nothing was predicted.",
    )
    metric: str = pa.Field(
        description="What is compared: ttft_p50_ms ... e2e_p99_ms, achieved_requests_per_s, or "
        "delivered_at_slo_requests_per_s (load 'sweep')."
    )
    predicted: float = pa.Field(
        nullable=True, ge=0, description="The prediction made before measuring, in the metric's unit; empty: none."
    )
    measured: float = pa.Field(
        nullable=True,
        gt=0,
        description="What the run measured, in the metric's unit (the level as the engine model reads it, "
        "observed.load_points after its data rules; the delivered rate: the middle of observed.delivered_at_slo's "
        "band, or its low end for a lower bound); empty where the sweep has none (note says why).",
    )
    relative_error: float = pa.Field(
        nullable=True, ge=0, description="|predicted / measured - 1|; empty when either is."
    )
    signed_relative_error: float = pa.Field(nullable=True, description="predicted / measured - 1.")
    band_rel_error: float = pa.Field(
        nullable=True,
        ge=0,
        description="The plan's band: the config's held-out error the prediction is widened by (empty: the plan has "
        "none).",
    )
    within_band: bool = pa.Field(
        nullable=True,
        description="measured within [predicted / (1 + band_rel_error), predicted x (1 + band_rel_error)]; empty "
        "without a prediction, a measurement or a band.",
    )
    scored: bool = pa.Field(
        description="Counted in the plan's score: false for a level the engine model leaves out (not served, more "
        "than 5% failed requests), a delivered rate whose sweep never crosses the SLO, and rows without a prediction "
        "or a measurement (note says which)."
    )
    note: str = pa.Field(nullable=True, description="Why a row is unjudged, and what else was noticed, in words.")
    evidence: str = pa.Field(isin=["calibrated"], description="Evidence class of the row: calibrated.")

    class Config:
        strict = True
        coerce = True
