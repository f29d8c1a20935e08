"""marts.quality_gate: whether a model at a precision meets a profile's quality requirement, on our own evals."""

import pandera.polars as pa

from schemas.vocab import QUALITY_BOUND_KINDS, QUALITY_STATUSES


class QualityGate(pa.DataFrameModel):
    """Per profile x model x scheme (those of the profile's configs and those its model was evaluated at):
    the quality status under the profile's `quality:` requirements, judged on our own task-quality evaluations
    (observed.quality) by their 95% interval, and the figures of the requirement that decided it (the worst)."""

    profile: str = pa.Field(description="Profile whose quality requirement is applied.")
    model: str = pa.Field(
        description=(
            "Base model: its canonical id (model_id) where an alias table knows it, else its key "
            "(requirement.profiles.model_key), as observed.quality.model."
        )
    )
    precision: str = pa.Field(nullable=True, description="Precision judged; empty when the config's is unknown.")
    scheme: str = pa.Field(
        nullable=True,
        description=(
            "Scheme judged: the precision with its activations and method as far as known (int4-w4a16-awq, int4; "
            "observed.quality.scheme); empty when the config's precision is unknown."
        ),
    )
    quality_status: str = pa.Field(
        isin=QUALITY_STATUSES,
        description=(
            "meets (every requirement's 95% interval on the right side of its bound), fails (one entirely on the "
            "wrong side), inconclusive (an interval straddles its bound, or a figure has no stderr), untested (no "
            "evaluation at this model and precision), not_required (the profile states no quality requirement)."
        ),
    )
    requirements: int = pa.Field(ge=0, description="Quality requirements the profile states.")
    requirements_met: int = pa.Field(ge=0, description="Of them, those met.")
    task: str = pa.Field(nullable=True, description="Task of the requirement that decided the status (the worst).")
    metric: str = pa.Field(nullable=True, description="Its metric.")
    bound_kind: str = pa.Field(nullable=True, isin=QUALITY_BOUND_KINDS, description="Its kind of bound.")
    threshold: float = pa.Field(
        nullable=True, description="Its bound as a value (a relative bound times the reference's value)."
    )
    value: float = pa.Field(nullable=True, description="Our figure at this model and precision (observed).")
    stderr: float = pa.Field(nullable=True, ge=0, description="Its standard error; empty when the file gives none.")
    interval_low: float = pa.Field(nullable=True, description="value - 1.96 stderr.")
    interval_high: float = pa.Field(nullable=True, description="value + 1.96 stderr.")
    samples: int = pa.Field(nullable=True, ge=1, description="Documents the figure rests on.")
    ratio_low: float = pa.Field(
        nullable=True,
        description=(
            "A relative bound where the reference has a stderr too: the low end of the ratio value / reference's "
            "95% interval carrying both uncertainties (delta method); empty otherwise."
        ),
    )
    ratio_high: float = pa.Field(nullable=True, description="The high end of that ratio's 95% interval.")
    reference_precision: str = pa.Field(
        nullable=True, description="Scheme of the reference a relative bound is taken against (widest evaluated)."
    )
    evidence_scheme: str = pa.Field(
        nullable=True,
        description="Scheme of the deciding figure: the scheme judged, or the one evaluated scheme a scheme known "
        "in part agrees with.",
    )
    quality_source: str = pa.Field(nullable=True, description="File the deciding figure was read from.")
    quality_evidence: str = pa.Field(
        description="Every requirement in words: figure, interval, bound, status, harness and file; worst first."
    )

    class Config:
        strict = True
        coerce = True
        unique = ["profile", "model", "scheme"]
