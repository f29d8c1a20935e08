"""requirement.quality_bounds: the task quality each profile demands, per task and metric."""

import pandera.polars as pa

from schemas.vocab import QUALITY_BOUND_KINDS


class QualityBounds(pa.DataFrameModel):
    """One quality requirement of a profile (its `quality:` list in the profiles YAML): a bound on a task's
    metric, absolute (min, max) or relative to the best-evidenced result of the same base model on that task
    and metric (min_relative, max_relative)."""

    profile: str = pa.Field(description="Profile the requirement belongs to.")
    task: str = pa.Field(description="Task as the harness names it (gsm8k, mmlu_pro).")
    metric: str = pa.Field(description="Metric as observed.quality names it (acc, exact_match,strict-match).")
    bound_kind: str = pa.Field(
        isin=QUALITY_BOUND_KINDS,
        description=(
            "min / max: the value itself must be at least / at most `bound` (max for lower-is-better metrics "
            "such as perplexity); min_relative / max_relative: at least / at most `bound` times the reference "
            "(the same model's result at its widest precision evaluated)."
        ),
    )
    bound: float = pa.Field(description="The bound: a value (min, max) or a ratio (min_relative, max_relative).")
    tolerance: float = pa.Field(
        ge=0,
        description=(
            "Allowance in the metric's own unit added to the bound on its permissive side (a max bound plus it, a "
            "min bound minus it): run-to-run noise of a point value such as a perplexity; 0 when not stated."
        ),
    )
    source: str = pa.Field(description="Profiles YAML file the requirement was read from.")
    evidence: str = pa.Field(isin=["requirement"], description="Evidence class of the row: requirement.")

    class Config:
        strict = True
        coerce = True
        unique = ["profile", "task", "metric"]
