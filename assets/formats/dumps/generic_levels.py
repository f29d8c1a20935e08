"""The generic per-level summary format, for a tool benchbill does not read: one row per load level.

A CSV file (comma-separated, one header row) or a Parquet file; recognised by its header (any file name): it holds
`achieved_requests_per_s` and `offered_rate_per_s` or `concurrency`. Columns (names carry their units):

| column | required | meaning |
| --- | --- | --- |
| `offered_rate_per_s` or `concurrency` | one per row | the level: an open-loop rate, or a closed-loop concurrency |
| `achieved_requests_per_s` | yes | successful requests completed per second |
| `duration_s` | no | the measured window |
| `requests_ok`, `requests_failed` | no | whole counts |
| `input_tokens_mean`, `output_tokens_mean` | no | tokens per successful request |
| `ttft_p50_ms` ... `e2e_p99_ms` | no | `<ttft, tpot, itl, e2e>_<p50, p90, p95, p99>_ms`, any subset |

A cell left empty, or a column the file lacks, stays NULL (never 0). Other columns are ignored and named in the
file's note. Each row is checked on its own and quarantined with its line (CSV: `line 2` is the first row under the
header) or row (Parquet: `row 1` is the first) and the reason: a value that is not a number, not finite, negative,
outside its plausible range, or a fractional count; no level, or both a rate and a concurrency; no achieved rate; a
percentile below a lower one of its measure; a copy of an earlier row; a CSV row of more or fewer cells than the
header, and the last line of a CSV that does not end with a newline (it may be cut short). The percentiles are the
tool's, taken as ours: the file's tool must define TPOT as (E2E - TTFT) / (output tokens - 1).
"""

from __future__ import annotations

import csv
import io
from typing import Any

import polars as pl

from assets.core.errors import IngestError
from assets.formats.dumps.exchange import (
    MEASURES,
    PERCENTILE_LABELS,
    REQUEST_RANGES,
    Dump,
    FormatProblem,
    Measurement,
    Parsed,
)
from assets.formats.dumps.generic import TOOL, cut_csv_line
from assets.formats.dumps.tabular import header_columns, is_parquet
from assets.formats.dumps.values import empty_point, number, outside
from assets.inputs.textinput import CUT_LINE_REASON, decode_text

LEVELS_CSV = "generic per-level summary CSV"
LEVELS_PARQUET = "generic per-level summary Parquet"
FORMATS = (LEVELS_CSV, LEVELS_PARQUET)
SKIPPED: dict[str, str] = {}
READ_IN_PLACE = frozenset[str]()

LEVEL_COLUMNS = ("offered_rate_per_s", "concurrency")
# column -> (load-point column it fills, a whole count, plausible range [low, high))
VALUE_COLUMNS: dict[str, tuple[str, bool, tuple[float, float]]] = {
    "achieved_requests_per_s": ("achieved_requests_per_s", False, REQUEST_RANGES["offered_rate_per_s"]),
    "duration_s": ("duration_s", False, (0.0, 1e7)),
    "requests_ok": ("requests_ok", True, (0, 1e12)),
    "requests_failed": ("requests_failed", True, (0, 1e12)),
    "input_tokens_mean": ("input_tokens_mean", False, REQUEST_RANGES["input_tokens"]),
    "output_tokens_mean": ("output_tokens_mean", False, REQUEST_RANGES["output_tokens"]),
    **{f"{m}_{p}_ms": (f"{m}_{p}_ms", False, REQUEST_RANGES["ttft_ms"]) for m in MEASURES for p in PERCENTILE_LABELS},
}
KNOWN_COLUMNS = (*LEVEL_COLUMNS, *VALUE_COLUMNS)

DEFINITIONS = (
    "generic per-level summary: one row per load level; percentiles, achieved rate and token means as the file "
    "states them (TTFT, TPOT = (E2E - TTFT) / (output tokens - 1), ITL, E2E in ms, by the file's own tool)"
)


def recognise(dump: Dump) -> str | None:
    columns = header_columns(dump)
    if not columns or "achieved_requests_per_s" not in columns or not set(LEVEL_COLUMNS) & set(columns):
        return None
    return LEVELS_PARQUET if is_parquet(dump) else LEVELS_CSV


def _rows(dump: Dump, kind: str) -> tuple[list[str], list[tuple[str, list[Any]]]]:
    """The header and each row with where it is (`line N` / `row N`), cells as the file holds them."""
    if kind == LEVELS_PARQUET:
        try:
            frame = pl.read_parquet(dump.path if dump.path else io.BytesIO(dump.data))
        except (pl.exceptions.PolarsError, OSError) as exc:
            raise FormatProblem(f"cannot read as Parquet: {str(exc).splitlines()[0]}") from None
        return frame.columns, [(f"row {i + 1}", list(row)) for i, row in enumerate(frame.iter_rows())]
    lines = list(csv.reader(io.StringIO(decode_text(dump.data, dump.name), newline="")))
    if not lines:
        raise FormatProblem("no header row")
    header = [c.strip() for c in lines[0]]
    return header, [(f"line {n}", cells) for n, cells in enumerate(lines[1:], 2) if any(c.strip() for c in cells)]


def _cell(columns: list[str], cells: list[Any], name: str, low_high: tuple[float, float], whole: bool) -> Any:
    if name not in columns:
        return None
    raw = cells[columns.index(name)]
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    value = number(raw, name, allow_none=False, allow_string=True)
    low, high = low_high
    if not low <= value < high:
        raise FormatProblem(f"{name} {outside(low, high)} (got {raw!r})")
    if whole and value != int(value):
        raise FormatProblem(f"{name} is not a whole count (got {raw!r})")
    return int(value) if whole else value


def row_measurement(columns: list[str], cells: list[Any], where: str) -> Measurement:
    """One row as a load level; FormatProblem says what is wrong with it."""
    if len(cells) != len(columns):
        raise FormatProblem(f"has {len(cells)} cells, the header has {len(columns)}")
    rate = _cell(columns, cells, "offered_rate_per_s", REQUEST_RANGES["offered_rate_per_s"], False)
    concurrency = _cell(columns, cells, "concurrency", REQUEST_RANGES["concurrency"], False)
    if (rate is None) == (concurrency is None):
        raise FormatProblem(
            "states no load level (offered_rate_per_s and concurrency are empty)"
            if rate is None
            else "states both offered_rate_per_s and concurrency: give one (the level)"
        )
    level = rate if rate is not None else concurrency
    if level is None or level <= 0:
        raise FormatProblem("the load level must be above 0")
    row = empty_point()
    for name, (column, whole, low_high) in VALUE_COLUMNS.items():
        row[column] = _cell(columns, cells, name, low_high, whole)
    if row["achieved_requests_per_s"] is None:
        raise FormatProblem("achieved_requests_per_s is empty (required)")
    for m in MEASURES:
        stated = [(p, row[f"{m}_{p}_ms"]) for p in PERCENTILE_LABELS if row[f"{m}_{p}_ms"] is not None]
        for (lower, a), (higher, b) in zip(stated, stated[1:]):
            if b < a:
                raise FormatProblem(f"{m}_{higher}_ms ({b:g}) is below {m}_{lower}_ms ({a:g})")
    if row["requests_ok"] is not None and row["requests_failed"] is not None:
        row["requests_sent"] = row["requests_ok"] + row["requests_failed"]
    return Measurement(
        location=where,
        load_kind="rate" if rate is not None else "concurrency",
        offered_rate_per_s=rate,
        concurrency=concurrency,
        values=row,
    )


def parse(dump: Dump, kind: str) -> Parsed:
    parsed = Parsed(kind=kind, tool=TOOL, definitions=DEFINITIONS)
    try:
        columns, rows = _rows(dump, kind)
    except (FormatProblem, IngestError, ValueError) as problem:
        parsed.problems.append(("file", str(problem)))
        return parsed
    ignored = [c for c in columns if c not in KNOWN_COLUMNS]
    if ignored:
        parsed.note = "columns not read: " + ", ".join(ignored)
    first: dict[tuple, str] = {}
    cut = cut_csv_line(dump) and kind == LEVELS_CSV
    for i, (where, cells) in enumerate(rows):
        if cut and i == len(rows) - 1:
            parsed.problems.append((where, CUT_LINE_REASON))
            continue
        key = tuple(str(c).strip() if c is not None else "" for c in cells)
        if key in first:
            parsed.problems.append((where, f"a copy of {first[key]}: read once"))
            continue
        first[key] = where
        try:
            parsed.measurements.append(row_measurement(columns, cells, where))
        except FormatProblem as problem:
            parsed.problems.append((where, str(problem)))
    if not rows:
        parsed.problems.append(("file", "no rows under the header"))
    return parsed
