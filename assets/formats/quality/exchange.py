"""What a quality reader gives: the file's figures per task and metric (`QualityResult`), what the file says
about the model and its precision, and the problems it found (`QualityParsed`)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from assets.core.ranges import Range

# Metrics with no sampling error by construction: a corpus statistic over the whole test set, not a sample mean
# (lm-evaluation-harness writes their stderr "N/A"). Judged on their point value.
POINT_VALUE_METRICS = frozenset({"perplexity", "word_perplexity", "byte_perplexity", "bits_per_byte"})
POINT_VALUE_NOTE = "point value: the harness reports no sampling error for this metric"


# Plausible counts of a quality file: outside these a count is broken (1e300 shots), never a measurement.
SHOTS = Range(0, 1000, whole=True)  # few-shot examples per prompt
DOCUMENTS = Range(1, 1e9, whole=True)  # documents a figure rests on (the largest benchmarks hold ~1e7)


# The range a figure's value must lie in, by its metric's name without the filter. Fractions in [0, 1]: accuracy
# (acc, acc_norm, truthfulqa's mc1 and mc2), exact match, pass@k, mean average precision (map, map_2...). F1, BLEU,
# chrF and ROUGE in [0, 100]: lm-evaluation-harness writes some as fractions (DROP's f1) and others in percent
# (SQuAD v2's f1 and exact, the translation tasks' bleu and chrf, truthfulqa's rouge1_max), so only a value
# outside both scales is wrong. A perplexity is at least 1, bits per byte at least 0. Other metrics (mcc lies in
# [-1, 1], ter has no upper bound, a team's own metric) are not range-checked.
FRACTION = Range(0, 1)
FRACTION_OR_PERCENT = Range(0, 100)
VALUE_RANGES: dict[str, Range] = {
    **dict.fromkeys(("acc", "acc_norm", "mc1", "mc2", "exact_match", "em", "map"), FRACTION),
    **dict.fromkeys(("f1", "exact", "bleu", "chrf", "rouge1", "rouge2", "rougeL", "rougeLsum"), FRACTION_OR_PERCENT),
    **dict.fromkeys(("perplexity", "word_perplexity", "byte_perplexity"), Range(1, math.inf)),
    "bits_per_byte": Range(0, math.inf),
}
# Families of metric names: pass@1, pass_at_10, map_2, rouge1_max, bleu_acc...; each with its family's range.
_FAMILIES = (
    (re.compile(r"pass(@|_at_)\d+|map_\d+|(bleu|rouge\w*)_acc"), FRACTION),
    (re.compile(r"(bleu|rouge\w*)_max"), FRACTION_OR_PERCENT),
)


def value_range(metric: str) -> Range | None:
    """The range a metric's value must lie in (VALUE_RANGES), by its name with or without its filter; None when
    the metric is not range-checked."""
    base = metric.partition(",")[0]
    if base in VALUE_RANGES:
        return VALUE_RANGES[base]
    return next((allowed for family, allowed in _FAMILIES if family.fullmatch(base)), None)


def value_problem(metric: str, value: float) -> str | None:
    """Why a figure's value cannot be that metric's (outside its range, VALUE_RANGES); None when it can."""
    allowed = value_range(metric)
    if allowed is None or allowed.holds(value):
        return None
    must = f"at least {allowed.low:g}" if math.isinf(allowed.high) else allowed.text()
    return f"value {value:g} is outside the range of {metric.partition(',')[0]}: it must be {must}"


def count_or_problem(raw: object, allowed: Range, name: str) -> int | str:
    """`raw` as a whole count within `allowed`, or the problem (a text naming `name` and the range)."""
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        if math.isfinite(raw) and float(raw).is_integer() and allowed.holds(raw):
            return int(raw)
    return f"{name} must be {allowed.text()} (got {raw!r})"


def stderr_problem(value: float, stderr: float) -> str | None:
    """Why a standard error is implausible: not finite, negative, or larger than the value's range (1 for a
    figure in [0, 1], a fraction; else the value's own size); None when it is plausible."""
    if not math.isfinite(stderr) or stderr < 0:
        return f"stderr is not a finite non-negative number (got {stderr!r})"
    limit, what = (1.0, "a fraction's range, 1") if 0 <= value <= 1 else (abs(value), f"the value itself, {value:g}")
    if stderr > limit:
        return f"stderr {stderr:g} is larger than {what}: no sampling error is that wide"
    return None


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
