"""marts.measurement_plan: what to measure next per profile, ranked by what the measurement would change."""

import datetime

import pandera.polars as pa

from schemas.vocab import PLAN_REASONS, PLAN_STATUSES


class MeasurementPlan(pa.DataFrameModel):
    """One row per profile x config to measure on our traffic, most decisive first (plan_rank): the recommended
    config where its billed band is wide or overlaps the next config's (the decision is at risk), each projected
    config that might beat it (analytics.measure_next's projected_may_beat), and a config billed on a calibrated
    band whose engine model is unreliable or was fitted on another workload than ours. Each row names a stored plan
    (plans/<plan_id>/ in the warehouse: the levels to run, the prediction made now per level in
    calibrated.plan_predictions, the files the team's load-test tools run and the run.yaml that brings the results
    back)."""

    profile: str = pa.Field(description="Profile (model, SLO and traffic) the plan answers for.")
    plan_rank: int = pa.Field(ge=1, description="Place in the profile's plan: 1 = measure first.")
    plan_id: str = pa.Field(
        description="The stored plan (plans/<plan_id>/plan.json): a digest of the profile, config, engine model and "
        "traffic the prediction rests on; the run.yaml key `plan` names it."
    )
    reason: str = pa.Field(
        isin=PLAN_REASONS,
        description="Why it is measured: decision_at_risk (the recommended config's band), may_beat_recommended (a "
        "projected config), model_unreliable or workload_differs (a calibrated band's model).",
    )
    why: str = pa.Field(description="What the measurement would change, in words (with the figures it rests on).")
    stake_monthly_usd: float = pa.Field(
        nullable=True,
        ge=0,
        description="USD a month the measurement could move the decision by (what the rank rests on): the possible "
        "saving, or the recommended bill's band width; empty where no price applies.",
    )
    config_key: str = pa.Field(description="The config (marts.capacity_plan.config_key).")
    config_label: str = pa.Field(description="The config in words: model, count x accelerator, precision, runtime.")
    evidence: str = pa.Field(description="Evidence class the config is billed on today: observed or projected.")
    billed_basis: str = pa.Field(
        nullable=True, description="The band its bill rests on today (marts.capacity_plan.billed_basis)."
    )
    model_id: str = pa.Field(description="Canonical model id.")
    accelerator_id: str = pa.Field(description="Canonical accelerator id.")
    accelerator_count: int = pa.Field(ge=1, description="Accelerators in one replica.")
    precision: str = pa.Field(nullable=True, description="Weight precision (empty: not known).")
    runtime: str = pa.Field(nullable=True, description="Serving runtime (empty: not known).")
    runtime_version: str = pa.Field(nullable=True, description="Runtime version (empty: not known).")
    run_yaml: str = pa.Field(
        description="The run.yaml keys the plan fills (JSON): only what is known, and `plan`; never a price or a tool "
        "version."
    )
    billed_requests_per_s_low: float = pa.Field(nullable=True, ge=0, description="Billed band today, low end, req/s.")
    billed_requests_per_s_high: float = pa.Field(nullable=True, ge=0, description="Billed band today, high end, req/s.")
    has_prediction: bool = pa.Field(
        description="Whether each level carries a prediction (an engine model with a measured error); false: wide "
        "levels around the billed band, no per-level prediction (said in why)."
    )
    predicted_delivered_requests_per_s: float = pa.Field(
        nullable=True,
        gt=0,
        description="The engine model's delivered rate at the SLO on our traffic, before widening: what the levels "
        "bracket (empty: no engine model).",
    )
    levels: int = pa.Field(ge=1, description="Load levels to run.")
    level_rates_per_s: str = pa.Field(description="The levels' rates, requests/s, comma separated, lightest first.")
    rate_multiples: str = pa.Field(
        description="Each level's rate as a multiple of the rate it brackets (the predicted delivered rate, else the "
        "billed band's middle), comma separated."
    )
    requests_per_level_min: int = pa.Field(ge=1, description="Fewest requests of a level (docs/plan.md: why).")
    traffic_basis: str = pa.Field(description="Our traffic the levels replay, in words (requirement.workload).")
    plan_folder: str = pa.Field(description="Where the plan's files are, relative to the warehouse folder.")
    plan_created_at: datetime.datetime = pa.Field(description="When the plan was first made (UTC).")
    plan_status: str = pa.Field(
        isin=PLAN_STATUSES, description="open: no run names the plan yet; measured: a run whose run.yaml names it."
    )

    class Config:
        coerce = True
