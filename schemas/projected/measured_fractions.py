"""projected.measured_fractions: per profile x delivered band of ours, the fraction of the MLPerf reference it
delivered, and whether projections learn from it."""

import pandera.polars as pa

from schemas.vocab import DELIVERED_SOURCES


class MeasuredFractions(pa.DataFrameModel):
    """The batching gap our runs measured: per profile x delivered band of ours (each run as measured, each config
    calibrated on our traffic), its delivered output tokens/s per
    accelerator / the MLPerf reference of the same accelerator and model (in the profile's scenario), and
    whether a config we never ran learns from it (projected.delivered_at_slo)."""

    profile: str = pa.Field(description="Profile whose SLO the delivered band is at.")
    source: str = pa.Field(
        isin=DELIVERED_SOURCES,
        description="Evidence class of the band: observed (our run's sweep, as measured) or calibrated (our traffic "
        "through the config's engine model, calibrated.delivered_at_slo).",
    )
    config_key: str = pa.Field(
        description="The band's config: the run_id of our run (observed), the engine model's config_key (calibrated)."
    )
    run_labels: str = pa.Field(description="Label(s) of the run(s) the band rests on, joined by ' + '.")
    model_id: str = pa.Field(
        description=(
            "The model's key (canonical.model_key): its canonical id, else the key of a model no alias table knows "
            "(which has no MLPerf reference: its rows measure no gap)."
        )
    )
    accelerator_id: str = pa.Field(nullable=True, description="Canonical accelerator id; empty when unknown.")
    accelerator_count: int = pa.Field(ge=1, description="Accelerators the band was delivered on.")
    mlperf_result_key: str = pa.Field(
        nullable=True,
        description="result_key of the MLPerf reference of the same accelerator and model in the profile's "
        "scenario; empty when there is none.",
    )
    reference_scenario: str = pa.Field(
        nullable=True, isin=["Server", "Interactive"], description="MLPerf scenario of that reference."
    )
    reference_tokens_per_s_per_accel: float = pa.Field(
        nullable=True, gt=0, description="The reference's tokens/s per accelerator: what the fraction divides by."
    )
    delivered_output_tokens_per_s_low: float = pa.Field(
        nullable=True, ge=0, description="Delivered output tokens/s of the band, low end (all its accelerators)."
    )
    delivered_output_tokens_per_s_high: float = pa.Field(
        nullable=True, ge=0, description="Delivered output tokens/s of the band, high end (all its accelerators)."
    )
    delivered_fraction_low: float = pa.Field(
        nullable=True,
        ge=0,
        description="delivered_output_tokens_per_s_low / accelerator_count / reference_tokens_per_s_per_accel.",
    )
    delivered_fraction_high: float = pa.Field(
        nullable=True,
        ge=0,
        description="delivered_output_tokens_per_s_high / accelerator_count / reference_tokens_per_s_per_accel.",
    )
    learnt_from: bool = pa.Field(
        description="True when projections learn from the row: a band that delivers (observed: feasible; calibrated: "
        "status delivered and the model bills) with both fractions in (0.001, 1.5]; a run's observed band is not "
        "learnt from where its config's calibrated band is."
    )
    not_learnt_reason: str = pa.Field(nullable=True, description="Why the row is not learnt from; empty when it is.")

    class Config:
        strict = True
        coerce = True
        unique = ["profile", "source", "config_key"]
