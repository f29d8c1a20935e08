"""What a quality reader gives: the file's figures per task and metric (`QualityResult`), what the file says
about the model and its precision, and the problems it found (`QualityParsed`)."""

from __future__ import annotations

from dataclasses import dataclass, field

# Metrics with no sampling error by construction: a corpus statistic over the whole test set, not a sample mean
# (lm-evaluation-harness writes their stderr "N/A"). Judged on their point value.
POINT_VALUE_METRICS = frozenset({"perplexity", "word_perplexity", "byte_perplexity", "bits_per_byte"})
POINT_VALUE_NOTE = "point value: the harness reports no sampling error for this metric"


def is_point_value(metric: str) -> bool:
    """Whether a metric (as the harness keys it, with or without its filter) is a corpus statistic."""
    return metric.partition(",")[0] in POINT_VALUE_METRICS


@dataclass(frozen=True)
class QualityResult:
    """One figure of one task: `metric` as the harness keys it without a `none` filter (`acc`,
    `exact_match,strict-match`); `stderr` None when the file gives none (`stderr_note` says why)."""

    task: str
    metric: str
    value: float
    stderr: float | None
    samples: int | None = None
    higher_is_better: bool | None = None
    task_version: str | None = None
    n_shot: int | None = None
    stderr_note: str | None = None
    point_value: bool = False  # no sampling error by construction: judged on its value (POINT_VALUE_NOTE)
    # Generic CSV rows name their model and precision themselves (None: the file's, below).
    model_raw: str | None = None
    precision_raw: str | None = None
    source_label: str | None = None
    location: str = ""


@dataclass
class QualityParsed:
    """A quality file: its format, harness and version, the model as it names it (`model_raw`), the precision
    words it states, its results and its problems
    (location, reason: each a quarantined row)."""

    kind: str
    harness: str
    harness_version: str | None = None
    model_raw: str | None = None
    model_field: str | None = None  # where model_raw was read (config.model_args.pretrained, model_name, ...)
    quantization: tuple[str, str] | None = None  # (where, spelling): a quantisation the arguments state
    dtype: tuple[str, str] | None = None  # (where, spelling): an explicit dtype (`auto` is none)
    loaded_dtype: str | None = None  # what the harness loaded the unquantised parts in (config.model_dtype)
    results: list[QualityResult] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)
