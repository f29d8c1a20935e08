"""marts.quality_to_measure: the task-quality evaluations to run before deciding, per profile x precision."""

import pandera.polars as pa

from schemas.vocab import QUALITY_STATUSES


class QualityToMeasure(pa.DataFrameModel):
    """A model at a precision the shortlist offers for a profile whose quality requirement our evaluations do
    not settle (untested or inconclusive): "evaluate quality at fp8 before deciding", and why."""

    profile: str = pa.Field(description="Profile whose quality requirement is not settled.")
    model_id: str = pa.Field(description="Canonical model id of the config (marts.config_shortlist.model_id).")
    precision: str = pa.Field(nullable=True, description="Precision to evaluate (the served one).")
    quality_status: str = pa.Field(isin=QUALITY_STATUSES, description="untested or inconclusive.")
    action: str = pa.Field(description="What to do: evaluate quality at <precision> before deciding.")
    reason: str = pa.Field(description="Why: no evaluation at this precision, or one whose interval straddles a bound.")

    class Config:
        strict = True
        coerce = True
        unique = ["profile", "model_id", "precision"]
