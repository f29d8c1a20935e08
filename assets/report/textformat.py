"""Numbers as text: the shortlist's columns and cell formats (the terminal table and the HTML
report show the same text), and plain aligned tables for query results."""

from __future__ import annotations

import datetime
import json
import math
from collections.abc import Sequence
from typing import Any

# (title, column or (columns of a range / label), format, evidence class of the number).
# "delivered" means the row's own evidence (observed or projected).
SHORTLIST_COLUMNS: list[tuple[str, str | tuple[str, ...], str, str | None]] = [
    ("profile", "profile", "{}", None),
    ("accelerator", "accelerator", "{}", None),
    ("n", "accelerator_count", "{}", None),
    ("evidence", "evidence", "{}", None),
    ("run", "run_label", "{}", None),
    ("prec", "precision", "{}", None),
    ("MLPerf srv tok/s/acc", "mlperf_server_tokens_per_s_per_accel", "{:,.2f}", "benchmark"),
    ("MLPerf off tok/s/acc", "mlperf_offline_tokens_per_s_per_accel", "{:,.2f}", "benchmark"),
    ("delivered req/s", ("delivered_requests_per_s_low", "delivered_requests_per_s_high"), "{:,.2f}", "delivered"),
    (
        "delivered out tok/s",
        ("delivered_output_tokens_per_s_low", "delivered_output_tokens_per_s_high"),
        "{:,.1f}",
        "delivered",
    ),
    ("fraction", ("delivered_fraction_low", "delivered_fraction_high"), "{:.2f}", "delivered"),
    ("price", ("price_class", "price_provider"), "{}", None),
    ("$/acc-h", "usd_per_accelerator_hour", "{:.2f}", "benchmark"),
    ("$/request", ("cost_per_request_usd_low", "cost_per_request_usd_high"), "{:.3g}", "cost"),
    (
        "$/1M out tok",
        ("cost_per_million_output_tokens_usd_low", "cost_per_million_output_tokens_usd_high"),
        "{:.3g}",
        "cost",
    ),
    # our own task quality at the row's model and precision under the profile's requirement (marts.quality_gate)
    ("quality", "quality_status", "{}", None),
]


def shortlist_cell(row: dict, source: str | tuple[str, ...], fmt: str) -> str:
    """One shortlist cell as text: a number, a `low - high` range, or words joined by spaces."""
    if isinstance(source, tuple):
        values = [row.get(s) for s in source]
        if all(v is None for v in values):
            return "-"
        if fmt == "{}":
            return " ".join(str(v) for v in values if v is not None)
        return " - ".join("?" if v is None else fmt.format(v) for v in values)
    value = row.get(source)
    return "-" if value is None else fmt.format(value)


def align_rows(header: Sequence[str], body: Sequence[Sequence[str]]) -> list[str]:
    """Columns padded to their widest cell, with a dashed rule under the header."""
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in [header, *body]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines


def format_shortlist(rows: list[dict]) -> str:
    """The shortlist as a plain-text table, caveats listed under it by row number."""
    if not rows:
        return "(the shortlist is empty: no run of ours and no priced MLPerf reference matches a profile)"
    header = ["#"] + [title for title, _s, _f, _e in SHORTLIST_COLUMNS]
    body = [
        [str(i + 1)] + [shortlist_cell(row, source, fmt) for _t, source, fmt, _e in SHORTLIST_COLUMNS]
        for i, row in enumerate(rows)
    ]
    lines = align_rows(header, body)
    lines.append("")
    lines.append("caveats:")
    for i, row in enumerate(rows):
        if row.get("caveats"):
            lines.append(f"  {i + 1}. {row['caveats']}")
    return "\n".join(lines)


def value_text(value: Any) -> str:
    """A query result value for a terminal table: NULL, numbers to 6 significant digits."""
    if value is None:
        return "NULL"
    if isinstance(value, float):
        return "NaN" if math.isnan(value) else f"{value:.6g}"
    return str(value)


def json_value(value: Any) -> Any:
    """A query result value as JSON can hold it (dates as ISO text, NaN as null)."""
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    if isinstance(value, (datetime.date, datetime.datetime, datetime.time)):
        return value.isoformat()
    if isinstance(value, (int, float, str, bool)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    return str(value)


def to_json(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    return json.dumps([{c: json_value(v) for c, v in zip(columns, row)} for row in rows], indent=2, ensure_ascii=False)
