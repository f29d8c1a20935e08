"""Numbers as dump readers take them: checked one by one (`number`, `count`) or a column at a time
(`checked_column`, `requests_frame`); a broken value never turns silently into NULL or another number."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any, Literal, overload

import polars as pl

from assets.formats.dumps.exchange import (
    MAX_REQUEST_COUNT,
    MEASURES,
    PERCENTILE_LABELS,
    REQUEST_RANGES,
    REQUEST_SCHEMA,
    TEXT_COLUMNS,
    FormatProblem,
)

# ---- small shared helpers -------------------------------------------------------------------


@overload
def number(value: Any, where: str, *, allow_none: Literal[False], allow_string: bool = False) -> float: ...


@overload
def number(value: Any, where: str, *, allow_none: bool = True, allow_string: bool = False) -> float | None: ...


def number(value: Any, where: str, *, allow_none: bool = True, allow_string: bool = False) -> float | None:
    """A finite float (None stays None when `allow_none`); strings of numbers only when `allow_string` (LLMPerf,
    vLLM metadata)."""
    if value is None and allow_none:
        return None
    if allow_string and isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise FormatProblem(f"{where} is not a number (got {value!r})") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise FormatProblem(f"{where} is not a number (got {value!r})")
    if math.isnan(value) or math.isinf(value):
        raise FormatProblem(f"{where} is not finite (got {value!r})")
    return float(value)


def count(value: Any, where: str, *, allow_string: bool = False) -> int:
    got = number(0 if value is None else value, where, allow_string=allow_string)
    if got is None or got < 0 or got != int(got):
        raise FormatProblem(f"{where} is not a whole non-negative count (got {value!r})")
    if got > MAX_REQUEST_COUNT:
        raise FormatProblem(f"{where} is absurdly large for a count (got {value!r})")
    return int(got)


def rate_or_inf(value: Any, where: str) -> float | None:
    """A request rate that may be written as the string "inf" (vLLM, SGLang): inf -> None."""
    if isinstance(value, str) and value.strip().lower() in ("inf", "infinity"):
        return None
    if isinstance(value, float) and math.isinf(value):
        return None
    return number(value, where, allow_string=True)


def section(payload: dict, key: str) -> dict:
    value = payload.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise FormatProblem(f"{key} is a {type(value).__name__}, expected an object")
    return value


def empty_point() -> dict[str, Any]:
    """The load-point values a parser fills in (None where the tool says nothing)."""
    row: dict[str, Any] = {
        "sent_requests_per_s": None,
        "achieved_requests_per_s": None,
        "requests_sent": None,
        "requests_ok": None,
        "requests_failed": None,
        "duration_s": None,
        "input_tokens_per_s": None,
        "output_tokens_per_s": None,
        "total_tokens_per_s": None,
        "input_tokens_mean": None,
        "output_tokens_mean": None,
    }
    for m in MEASURES:
        for p in PERCENTILE_LABELS:
            row[f"{m}_{p}_ms"] = None
    return row


def stats_metrics(
    metric: str, stats: dict, unit: str, scale: float = 1.0, names: dict[str, str] | None = None
) -> list[tuple[str, str, float, str]]:
    """Every numeric statistic of one tool metric as labelled rows (values scaled to `unit`)."""
    rows = []
    for key, value in stats.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            continue
        rows.append((metric, (names or {}).get(key, key), float(value) * scale, unit))
    return rows


def fill_ours(
    row: dict[str, Any], measure: str, stats: dict, keys: dict[str, tuple[str, ...]], scale: float, where: str
) -> None:
    """Copy a tool's percentiles into our `<measure>_<pNN>_ms` columns (only when the tool's
    definition of the measure is ours; the caller decides)."""
    for pct, candidates in keys.items():
        raw = next((stats[k] for k in candidates if k in stats), None)
        value = number(raw, f"{where}.{candidates[0]}", allow_string=True)
        row[f"{measure}_{pct}_ms"] = None if value is None else value * scale


def _request(i: int) -> str:
    return f"request {i}"


# How `checked_column` and `checked_scan_sql` say what is wrong with a value (one wording for both).
NOT_A_NUMBER, NOT_FINITE, NOT_WHOLE = "is not a number", "is not finite", "is not a whole number"


def outside(low: float, high: float) -> str:
    return f"is outside the plausible range [{low:g}, {high:g}) (broken, or in another unit)"


def checked_column(
    name: str, values: Any, dtype: pl.DataType, row: Callable[[int], str] = _request, *, plausible: bool = True
) -> pl.Series:
    """`values` (a list or a polars Series) as a numeric column of `dtype`. FormatProblem names the first
    request whose value is not a number (strings of numbers are numbers), not finite, not whole where
    a count is wanted, or outside `REQUEST_RANGES[name]`: a broken value never turns silently into NULL,
    into another number, or into a percentile."""
    if isinstance(values, pl.Series):
        raw = values.alias(name)
    else:
        try:
            raw = pl.Series(name, values, strict=True)
        except (TypeError, ValueError, OverflowError, pl.exceptions.PolarsError):
            # Mixed types: check each value, naming the first that is not a number.
            raw = pl.Series(
                name,
                [number(v, f"{name} of {row(i)}", allow_string=True) for i, v in enumerate(values)],
                dtype=pl.Float64,
            )
    if raw.dtype == pl.Boolean or not (raw.dtype.is_numeric() or raw.dtype in (pl.String, pl.Null)):
        bad = raw.drop_nulls()
        raise FormatProblem(
            f"{name} holds {raw.dtype} values (e.g. {bad[0] if bad.len() else None!r}), expected numbers"
        )
    numbers = (raw.str.strip_chars() if raw.dtype == pl.String else raw).cast(pl.Float64, strict=False)
    problems = [
        (raw.is_not_null() & numbers.is_null(), NOT_A_NUMBER),
        (numbers.is_nan() | numbers.is_infinite(), NOT_FINITE),
    ]
    if dtype.is_integer():
        problems.append((numbers.is_finite() & (numbers != numbers.floor()), NOT_WHOLE))
    bounds = REQUEST_RANGES.get(name) if plausible else None
    if bounds is not None:
        low, high = bounds
        problems.append((numbers.is_finite() & ((numbers < low) | (numbers >= high)), outside(low, high)))
    for mask, what in problems:
        hits = mask.fill_null(False)
        if hits.any():
            i = int(hits.arg_true()[0])
            raise FormatProblem(f"{name} of {row(i)} {what} (got {raw[i]!r})")
    return numbers.cast(dtype)


def requests_frame(columns: dict[str, Any], row: Callable[[int], str] = _request) -> pl.DataFrame:
    """A per-request frame with exactly REQUEST_COLUMNS (missing ones NULL), typed and checked
    (`checked_column`), plus the TEXT_COLUMNS given."""
    height = max((len(v) for v in columns.values() if isinstance(v, (list, pl.Series))), default=0)
    data = {}
    text_columns: list[tuple[str, pl.DataType]] = [(t, pl.String()) for t in TEXT_COLUMNS if t in columns]
    for name, dtype in [*REQUEST_SCHEMA.items(), *text_columns]:
        value = columns.get(name)
        if value is None:
            data[name] = pl.Series(name, [None] * height, dtype=dtype)
        elif isinstance(value, (list, pl.Series)):
            if len(value) != height:
                raise FormatProblem(f"{name} holds {len(value)} values for {height} requests")
            if dtype.is_numeric():
                data[name] = checked_column(name, value, dtype, row)
            elif isinstance(value, pl.Series):
                data[name] = value.cast(dtype).alias(name)
            else:
                data[name] = pl.Series(name, [None if v is None else str(v) for v in value], dtype=dtype)
        else:
            data[name] = pl.Series(name, [value] * height, dtype=dtype, strict=False)
    return pl.DataFrame(data)


def repeated(objects: list[Any]) -> dict[int, int]:
    """Position -> position of its first copy, for each object equal to an earlier one (a result line
    appended twice is one measurement, not two repeats)."""
    first: dict[str, int] = {}
    copies: dict[int, int] = {}
    for i, obj in enumerate(objects):
        key = json_text(obj)
        if key in first:
            copies[i] = first[key]
        else:
            first[key] = i
    return copies


def json_text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)
