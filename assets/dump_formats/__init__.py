"""Benchmark dump formats: one pure module per tool, each recognising its files by content.

Every module exposes `FORMATS` (the names it recognises, as written in `audit.source_files`),
`recognise(dump) -> str | None` and `parse(dump, kind) -> Parsed`. `assets.dumps` holds the one
registry that tries them in order. A parser turns a file into `Measurement`s: one load level
measured once (one repeat), with the tool's own aggregates and, where the dump has them,
per-request records: a polars frame with the columns of `REQUEST_COLUMNS` for the JSON formats
(whose files are small), or, for the formats that hold millions of requests (the generic
CSV/Parquet, AIPerf's JSON lines), a `RequestScan`: the SQL with which DuckDB reads the file in
place, so a large log is never loaded into Python at all.

Our metric definitions (DESIGN.md), whatever the tool: TTFT = request sent -> first output token;
E2E = request sent -> last token; TPOT = (E2E - TTFT) / (output tokens - 1), undefined (NULL) for
fewer than two output tokens; ITL = gap between consecutive tokens (all gaps pooled); all in ms.
A tool aggregate fills one of our columns only when the tool's definition is ours; everything the
tool reported is also kept, labelled with the tool's own definition, in `tool_metrics`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import polars as pl

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


class FormatProblem(ValueError):
    """A file of a recognised format whose content cannot be used; the message is the reason."""


# What a RequestScan's SELECT yields, one row per request (the generic columns, read as they are).
SCAN_COLUMNS = ("ordinal", "phase", "status", "start_s", "start_time_unix_s", "input_tokens", "output_tokens",
                "ttft_ms", "e2e_ms", "error", "offered_rate_per_s", "concurrency")


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

    `select` is a SELECT over the file yielding SCAN_COLUMNS; `level_columns` names the file's own
    load-level columns (generic files: rows are grouped into load levels by them). `data` holds the
    bytes of a file that is not on disk (read from a temporary copy, then stored in the warehouse)."""

    path: str
    select: str
    level_columns: tuple[str, ...] = ()
    data: bytes | None = None


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


def requests_frame(columns: dict[str, Any]) -> pl.DataFrame:
    """A per-request frame with exactly REQUEST_COLUMNS (missing ones NULL), typed."""
    height = max((len(v) for v in columns.values() if isinstance(v, (list, pl.Series))), default=0)
    data = {}
    for name, dtype in REQUEST_SCHEMA.items():
        value = columns.get(name)
        if value is None:
            data[name] = pl.Series(name, [None] * height, dtype=dtype)
        elif isinstance(value, (list, pl.Series)):
            data[name] = pl.Series(name, value, dtype=dtype, strict=False)
        else:
            data[name] = pl.Series(name, [value] * height, dtype=dtype, strict=False)
    return pl.DataFrame(data)


def json_text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)
