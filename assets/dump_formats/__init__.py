"""Benchmark dump formats: one pure module per tool, each recognising its files by content.

Every module exposes `FORMATS` (the names it recognises, as written in `audit.source_files`),
`recognise(dump) -> str | None` and `parse(dump, kind) -> Parsed`. `assets.dumps` holds the one
registry that tries them in order. A parser turns a file into `Measurement`s: one load level
measured once (one repeat), with the tool's own aggregates and, where the dump has them,
per-request records: a polars frame with the columns of `REQUEST_COLUMNS` for the JSON formats
(whose files are small; checked value by value by `checked_column`), or, for the formats that hold
millions of requests (the generic CSV/Parquet, AIPerf's JSON lines), a `RequestScan`: the SQL with
which DuckDB reads the file in place, so a large log is never loaded into Python at all; its values
are checked by the same rules, row by row, in SQL (`checked_scan_sql`).

Our metric definitions (DESIGN.md), whatever the tool: TTFT = request sent -> first output token;
E2E = request sent -> last token; TPOT = (E2E - TTFT) / (output tokens - 1), undefined (NULL) for
fewer than two output tokens; ITL = gap between consecutive tokens (all gaps pooled); all in ms.
A tool aggregate fills one of our columns only when the tool's definition is ours; everything the
tool reported is also kept, labelled with the tool's own definition, in `tool_metrics`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from assets.textinput import CUT_LINE_REASON
from assets.warehouse import quote_ident, sql_string_literal

PERCENTILES = ("p50", "p90", "p95", "p99")
MEASURES = ("ttft", "tpot", "itl", "e2e")
PHASES = ("measure", "warmup", "cooldown")
STATUSES = ("ok", "error", "incomplete", "cancelled")

# The per-request columns every parser yields (tpot_ms is added centrally, in SQL: assets.request_stats).
REQUEST_SCHEMA: dict[str, pl.DataType] = {
    "request_index": pl.Int64,
    "phase": pl.String,
    "status": pl.String,
    "start_offset_s": pl.Float64,
    "start_time_unix_s": pl.Float64,
    "input_tokens": pl.Int64,
    "output_tokens": pl.Int64,
    "ttft_ms": pl.Float64,
    "e2e_ms": pl.Float64,
    "error": pl.String,
}
REQUEST_COLUMNS = list(REQUEST_SCHEMA)
# Prompt and response texts, where a dump has them: kept apart from the request columns and stored
# (observed.request_texts) only when the run asks for it (`--store-texts`).
TEXT_COLUMNS = ("prompt_text", "response_text")

# Plausible per-request values: outside these a value is broken or written in another unit (a start
# time in ms or ns, a latency in us), never a measurement. Upper ends are exclusive.
REQUEST_RANGES: dict[str, tuple[float, float]] = {
    "start_offset_s": (0.0, 1e7),        # within ~116 days of the first request
    "start_time_unix_s": (0.0, 1e10),    # Unix seconds (1e12 would be ms, 1e18 ns)
    "input_tokens": (0, 1e8),
    "output_tokens": (0, 1e8),
    "ttft_ms": (0.0, 1e8),               # under ~28 hours
    "e2e_ms": (0.0, 1e8),
    "offered_rate_per_s": (0.0, 1e7),   # the load level a generic row was measured at
    "concurrency": (0.0, 1e7),
}
MAX_COUNT = 1e12  # a count of requests or tokens above this is a broken value


class FormatProblem(ValueError):
    """A file of a recognised format whose content cannot be used; the message is the reason."""


# What a RequestScan's SELECT yields, one row per request (the generic columns, numbers as the file has
# them: `checked_scan_sql` checks and types them).
SCAN_COLUMNS = ("ordinal", "phase", "status", "start_s", "input_tokens", "output_tokens", "ttft_ms", "e2e_ms",
                "error", "offered_rate_per_s", "concurrency")
# The scan's other numbers, in the order they are checked (after start_s): whether each is a count.
SCAN_NUMBERS = {"input_tokens": True, "output_tokens": True, "ttft_ms": False, "e2e_ms": False,
                "offered_rate_per_s": False, "concurrency": False}


@dataclass
class Dump:
    """One file as the registry hands it to recognisers: name, bytes, and the decoded content
    (a JSON value, a list of JSON values for JSON lines, or None). A file too large to hold
    (`partial`) carries only its first bytes (`data`), its last bytes (`tail`) and its `path`;
    for JSON lines, `payload` then holds the complete lines of that head."""

    name: str
    data: bytes
    payload: Any = None
    json_lines: bool = False
    path: str | None = None
    partial: bool = False
    tail: bytes | None = None

    @property
    def text_head(self) -> str:
        return self.data[:4096].decode("utf-8-sig", errors="replace")

    @property
    def last_bytes(self) -> bytes:
        return self.tail if self.tail is not None else self.data[-8:]


@dataclass(frozen=True)
class RequestScan:
    """Per-request records that DuckDB reads from a file where it lies (never as Python objects).

    `select` is a SELECT over the file yielding SCAN_COLUMNS; `tolerant_select` the same with every
    value read as text, for a file DuckDB cannot read with the types it inferred or was told (a word in
    a number column far down a CSV): its values are then checked row by row like any other.
    `level_columns` names the file's own load-level columns (generic files: rows are grouped into load
    levels by them). `data` holds the bytes of a file that is not on disk (an archive member; read from
    a temporary copy, then stored in the warehouse). `start_column` says what start_s is (Unix seconds,
    or seconds from any origin), `start_units_per_s` its unit (1e9: epoch ns). A row is named
    `row_word` `ordinal + row_offset` (a CSV's first row is line 2). `read_once`: a row equal to an earlier
    one in every column is a copy, quarantined and read once; `cut_last_row`: the file does not end with
    a newline, so its last row may be cut short and is quarantined. `text_select`: the prompt and
    response texts by ordinal, where the file has them (read only when a run stores texts)."""

    path: str
    select: str
    level_columns: tuple[str, ...] = ()
    data: bytes | None = None
    tolerant_select: str | None = None
    start_column: str = "start_time_unix_s"
    start_units_per_s: float = 1.0
    row_word: str = "row"
    row_offset: int = 0
    read_once: bool = False
    cut_last_row: bool = False
    text_select: str | None = None

    def row_name(self, ordinal: int) -> str:
        return f"{self.row_word} {ordinal + self.row_offset}"


@dataclass
class Measurement:
    """One load level measured once, as one file (or one entry of a file) reports it."""

    location: str
    load_kind: str | None = None  # "rate" | "concurrency"; None: take it from run.yaml
    offered_rate_per_s: float | None = None
    concurrency: float | None = None
    values: dict[str, Any] = field(default_factory=dict)  # load-point columns the tool reported
    tool_metrics: list[tuple[str, str, float, str]] = field(default_factory=list)  # metric, statistic, value, unit
    requests: pl.DataFrame | RequestScan | None = None
    merge_key: str | None = None  # same key in one folder = one measurement (stage file + its requests)


@dataclass
class Parsed:
    kind: str
    tool: str
    definitions: str
    measurements: list[Measurement] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)  # (location, reason): quarantined
    note: str = ""


# ---- small shared helpers -------------------------------------------------------------------

def number(value: Any, where: str, *, allow_none: bool = True, allow_string: bool = False) -> float | None:
    """A finite float; strings of numbers only when `allow_string` (LLMPerf, vLLM metadata)."""
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
    if got > MAX_COUNT:
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
        "sent_rate_per_s": None, "achieved_requests_per_s": None, "requests_sent": None, "requests_ok": None,
        "requests_failed": None, "duration_s": None, "input_tokens_per_s": None, "output_tokens_per_s": None,
        "total_tokens_per_s": None, "mean_input_tokens": None, "mean_output_tokens": None,
    }
    for m in MEASURES:
        for p in PERCENTILES:
            row[f"{m}_{p}_ms"] = None
    return row


def stats_metrics(metric: str, stats: dict, unit: str, scale: float = 1.0,
                  names: dict[str, str] | None = None) -> list[tuple[str, str, float, str]]:
    """Every numeric statistic of one tool metric as labelled rows (values scaled to `unit`)."""
    rows = []
    for key, value in stats.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            continue
        rows.append((metric, (names or {}).get(key, key), float(value) * scale, unit))
    return rows


def fill_ours(row: dict[str, Any], measure: str, stats: dict, keys: dict[str, tuple[str, ...]],
              scale: float, where: str) -> None:
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


def checked_column(name: str, values: Any, dtype: pl.DataType, row: Callable[[int], str] = _request, *,
                   plausible: bool = True) -> pl.Series:
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
            raw = pl.Series(name, [number(v, f"{name} of {row(i)}", allow_string=True) for i, v in enumerate(values)],
                            dtype=pl.Float64)
    if raw.dtype == pl.Boolean or not (raw.dtype.is_numeric() or raw.dtype in (pl.String, pl.Null)):
        bad = raw.drop_nulls()
        raise FormatProblem(f"{name} holds {raw.dtype} values (e.g. {bad[0] if bad.len() else None!r}), expected "
                            "numbers")
    numbers = (raw.str.strip_chars() if raw.dtype == pl.String else raw).cast(pl.Float64, strict=False)
    problems = [
        (raw.is_not_null() & numbers.is_null(), NOT_A_NUMBER),
        (numbers.is_nan() | numbers.is_infinite(), NOT_FINITE),
    ]
    if dtype.is_integer():
        problems.append((numbers.is_finite() & (numbers != numbers.floor()), NOT_WHOLE))
    low, high = REQUEST_RANGES.get(name, (None, None)) if plausible else (None, None)
    if low is not None:
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
    for name, dtype in [*REQUEST_SCHEMA.items(), *[(t, pl.String) for t in TEXT_COLUMNS if t in columns]]:
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


COPY_REASON = "the same request as an earlier line (every column equal): read once"
VALUE_PROBLEM = "a value failed its check"  # what an unexplained row keeps (the pass explains only what it quarantines)


def checked_scan_sql(scan: RequestScan, select: str, *, explain: bool = True, copies: str | None = None) -> str:
    """The SQL twin of `checked_column`, row by row: `select` (the scan's SELECT or its tolerant one) with
    its numbers checked by the same rules (not a number, not finite, not whole where a count is wanted,
    outside REQUEST_RANGES) and typed, start_time_unix_s added, and `problem`: NULL when the row can be
    used; else, with `explain`, the first reason, worded as `checked_column` words it and naming the row
    (without, VALUE_PROBLEM: cheaper, for a pass that explains only the rows it quarantines); the scan's
    own rules first and last (a last row that may be cut short; with `copies="find"`, a copy of an
    earlier row, COPY_REASON, found by a window over the file). `copies="hash"` gives `row_hash`, a hash
    of every column, so that a pass can count distinct rows cheaply and find copies only in files that
    have some. A row with a problem is quarantined, never read as NULL or as another number."""
    row = f"({sql_string_literal(scan.row_word + ' ')} || (ordinal + {scan.row_offset}))"
    unix = scan.start_column == "start_time_unix_s"
    numbers = [("start_s", scan.start_column, False, REQUEST_RANGES["start_time_unix_s"] if unix else None,
                scan.start_units_per_s)]
    numbers += [(column, column, whole, REQUEST_RANGES[column], 1.0) for column, whole in SCAN_NUMBERS.items()]
    converted, failures, typed = [], [], []
    for column, name, whole, bounds, units in numbers:
        raw, value = quote_ident(column), quote_ident("n_" + column)
        converted.append(f"TRY_CAST({raw} AS DOUBLE){f' / {units!r}' if units != 1.0 else ''} AS {value}")
        got = f"CASE WHEN typeof({raw}) = 'VARCHAR' THEN '''' || {raw} || '''' ELSE CAST({raw} AS VARCHAR) END"
        checks = [(f"{raw} IS NOT NULL AND {value} IS NULL", NOT_A_NUMBER), (f"NOT isfinite({value})", NOT_FINITE)]
        if whole:
            checks.append((f"{value} <> floor({value})", NOT_WHOLE))
        if bounds is not None:
            checks.append((f"{value} < {bounds[0]!r} OR {value} >= {bounds[1]!r}", outside(*bounds)))
        failures += [(condition, f"{sql_string_literal(name + ' of ')} || {row} || "
                                 f"{sql_string_literal(' ' + what + ' (got ')} || {got} || ')'")
                     for condition, what in checks]
        typed.append(f"CASE WHEN {value} = floor({value}) THEN TRY_CAST({value} AS BIGINT) END AS {quote_ident(column)}"
                     if whole else f"{value} AS {quote_ident(column)}")
    typed.append(f"{'n_start_s' if unix else 'NULL::DOUBLE'} AS start_time_unix_s")
    if explain:
        cases = [f"WHEN {condition} THEN {reason}" for condition, reason in failures]
    else:
        cases = [f"WHEN {' OR '.join(f'({condition})' for condition, _reason in failures)} "
                 f"THEN {sql_string_literal(VALUE_PROBLEM)}"]
    if scan.cut_last_row:
        cases.insert(0, f"WHEN ordinal = max(ordinal) OVER () THEN {sql_string_literal(CUT_LINE_REASON)}")
    every = ", ".join(quote_ident(c) for c in SCAN_COLUMNS if c != "ordinal")
    if copies == "find":
        cases.append(f"WHEN min(ordinal) OVER (PARTITION BY {every}) < ordinal THEN {sql_string_literal(COPY_REASON)}")
    row_hash = f"hash({every})" if copies == "hash" else "NULL::UBIGINT"
    return (f"SELECT ordinal, phase, status, error, {', '.join(typed)}, CASE {' '.join(cases)} END AS problem, "
            f"{row_hash} AS row_hash FROM (SELECT *, {', '.join(converted)} FROM ({select}))")


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
