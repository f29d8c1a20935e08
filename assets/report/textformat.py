"""Numbers as text, one definition each (never scientific notation): money as USD per 1,000 requests, per 1M
tokens and per month, rates, fractions, plain decimals for query tables; the shortlist's columns and cells (the
terminal table and the HTML report show the same text); the terminal's width, prose folded to it and tables cut to
it; plain aligned tables for query results (the terminal shortlist: `assets/report/terminal_shortlist.py`)."""

from __future__ import annotations

import datetime
import html
import json
import math
import shutil
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from assets.core.inert import inert

PIPE_WIDTH = 80  # the width of a pipe or a file (no terminal to ask): the width most terminals open at
NARROWEST = 40  # prose is never folded narrower than this, whatever COLUMNS says


@dataclass(frozen=True)
class NumberFormat:
    """How one kind of number is written: multiplied by `scale`, to `significant` digits of the smallest
    value shown together (a range shares its decimals), never fewer than `least` decimals nor more than
    `most`, thousands separated by commas."""

    scale: float
    significant: int
    least: int
    most: int


NUMBER_FORMATS: dict[str, NumberFormat] = {
    "rate": NumberFormat(1, 4, 0, 3),  # requests/s: 91.36, 1,006
    "tokens": NumberFormat(1, 4, 0, 2),  # tokens/s: 5,104, 64,397
    "fraction": NumberFormat(1, 1, 2, 2),  # delivered / MLPerf: 1.12
    "usd_per_hour": NumberFormat(1, 3, 2, 4),  # USD per accelerator-hour: 1.30, 12.29
    "usd_per_1k_requests": NumberFormat(1000, 3, 2, 8),  # cost per request x 1,000: 0.00324
    "usd_per_1m_tokens": NumberFormat(1, 3, 2, 8),  # already per 1M tokens: 0.0519
    "usd_per_month": NumberFormat(1, 1, 0, 0),  # 12,345
    "count": NumberFormat(1, 1, 0, 0),  # replicas: 3
    "percent": NumberFormat(100, 2, 0, 1),  # utilisation 0.456 -> 46
}
TEXT = "text"  # a cell of words: the values joined by spaces


def _decimals(values: Sequence[float], fmt: NumberFormat) -> int:
    magnitudes = [abs(v) for v in values if v and math.isfinite(v)]
    if not magnitudes:
        return fmt.least
    wanted = fmt.significant - 1 - math.floor(math.log10(min(magnitudes)))
    return min(max(wanted, fmt.least), fmt.most)


def number_texts(values: Sequence[float | None], kind: str) -> list[str]:
    """Values of one kind written together (one range, one cell): scaled, with shared decimals; None as '?'."""
    fmt = NUMBER_FORMATS[kind]
    scaled = [None if v is None else v * fmt.scale for v in values]
    decimals = _decimals([v for v in scaled if v is not None], fmt)
    return ["?" if v is None else f"{v:,.{decimals}f}" for v in scaled]


def number_text(value: float | None, kind: str) -> str:
    """One value of a kind as text ('-' when there is none)."""
    return "-" if value is None else number_texts([value], kind)[0]


def range_text(low: float | None, high: float | None, kind: str, dash: str = " - ") -> str:
    """`low - high` with shared decimals; one value when both read the same; '-' when neither is known."""
    if low is None and high is None:
        return "-"
    low_text, high_text = number_texts([low, high], kind)
    return low_text if low_text == high_text else f"{low_text}{dash}{high_text}"


def plain_number(value: float, significant: int = 6) -> str:
    """A float in positional notation to `significant` digits, thousands separated, trailing zeros dropped:
    0.0000128, 5,103.99, 1,234,568 (query tables and chart ticks: never 1.28e-05)."""
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else str(value)
    decimals = max(0, significant - 1 - math.floor(math.log10(abs(value))))
    text = f"{value:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


# The report's detail table, one row per config x price: (title, column or (columns of a range / words), number
# kind or TEXT, evidence class of the number). "delivered" means the row's own evidence (observed or projected).
# The band measured as run and the band billed (billed_basis: measured, calibrated or projected) are two columns,
# the billed one beside the costs it rests on.
SHORTLIST_COLUMNS: list[tuple[str, str | tuple[str, ...], str, str | None]] = [
    ("profile", "profile", TEXT, None),
    ("accelerator", "accelerator_id", TEXT, None),
    ("n", "accelerator_count", TEXT, None),
    ("evidence", "evidence", TEXT, None),
    ("run", "run_label", TEXT, None),
    ("prec", "precision", TEXT, None),
    ("MLPerf srv tok/s/acc", "mlperf_server_tokens_per_s_per_accel", "tokens", "benchmark"),
    ("MLPerf off tok/s/acc", "mlperf_offline_tokens_per_s_per_accel", "tokens", "benchmark"),
    ("measured req/s", ("measured_requests_per_s_low", "measured_requests_per_s_high"), "rate", "observed"),
    ("fraction", ("delivered_fraction_low", "delivered_fraction_high"), "fraction", "delivered"),
    ("price", ("price_class", "price_provider"), TEXT, None),
    ("$/acc-h", "usd_per_accelerator_hour", "usd_per_hour", "benchmark"),
    ("billed req/s", ("billed_requests_per_s_low", "billed_requests_per_s_high"), "rate", "delivered"),
    ("billed out tok/s", ("billed_output_tokens_per_s_low", "billed_output_tokens_per_s_high"), "tokens", "delivered"),
    ("$ per 1k requests", ("cost_per_request_usd_low", "cost_per_request_usd_high"), "usd_per_1k_requests", "cost"),
    (
        "$ per 1M out tokens",
        ("cost_per_million_output_tokens_usd_low", "cost_per_million_output_tokens_usd_high"),
        "usd_per_1m_tokens",
        "cost",
    ),
    # our own task quality at the row's model and precision under the profile's requirement (marts.quality_gate)
    ("quality", "quality_status", TEXT, None),
]


def shows_quality(rows: list[dict]) -> bool:
    """Whether the quality column is shown: only where some profile states a quality requirement (else every
    row is not_required)."""
    return any(r.get("quality_status") not in (None, "not_required") for r in rows)


def cell_spans(row: dict, source: str | tuple[str, ...], kind: str) -> list[tuple[str, str]]:
    """A number cell as (column, text) pieces: one per end of a range, one when both ends read the same;
    empty when no value is known."""
    columns = source if isinstance(source, tuple) else (source,)
    values = [row.get(c) for c in columns]
    if all(v is None for v in values):
        return []
    texts = number_texts(values, kind)
    if len(texts) == 2 and texts[0] == texts[1]:
        return [(columns[0], texts[0])]
    return list(zip(columns, texts))


def shortlist_cell(row: dict, source: str | tuple[str, ...], kind: str) -> str:
    """One shortlist cell as text: a number, a `low - high` range, or words joined by spaces; '-' when empty."""
    if kind == TEXT:
        columns = source if isinstance(source, tuple) else (source,)
        words = [str(row[c]) for c in columns if row.get(c) is not None]
        return " ".join(words) if words else "-"
    spans = cell_spans(row, source, kind)
    return " - ".join(text for _c, text in spans) if spans else "-"


def align_rows(header: Sequence[str], body: Sequence[Sequence[str]], right: Sequence[bool] = ()) -> list[str]:
    """Columns padded to their widest cell, with a dashed rule under the header; a header cell may hold
    several lines ('\\n'); columns marked in `right` are right-aligned (numbers). Every cell is made inert
    (control and bidirectional characters escaped, `assets.core.inert`): cells may hold input text."""
    heads = [inert(cell, lines=True).split("\n") for cell in header]
    depth = max((len(h) for h in heads), default=1)
    head_lines = [[h[i - depth + len(h)] if i - depth + len(h) >= 0 else "" for h in heads] for i in range(depth)]
    table = [*head_lines, *([inert(cell) for cell in line] for line in body)]
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    aligned = [i < len(right) and right[i] for i in range(len(header))]

    def text(line: Sequence[str]) -> str:
        cells = (cell.rjust(w) if r else cell.ljust(w) for cell, w, r in zip(line, widths, aligned))
        return "  ".join(cells).rstrip()

    lines = [text(line) for line in table]
    lines.insert(depth, "  ".join("-" * w for w in widths))
    return lines


CUT_MIN = 12  # a cut column keeps at least this many characters


def column_widths(header: Sequence[str], body: Sequence[Sequence[str]]) -> list[int]:
    """Each column's width as align_rows lays it out: its widest cell or header line."""
    heads = [max(len(line) for line in str(h).split("\n")) for h in header]
    return [max([head, *(len(str(row[i])) for row in body)]) for i, head in enumerate(heads)]


def cut_to_width(
    header: Sequence[str], body: list[list[str]], width: int, least: int | Sequence[int | None] = CUT_MIN
) -> bool:
    """Cells of `body` cut (ending in `~`) so that the table's lines fit `width` columns: the widest columns are
    narrowed first, none below `least` characters (so numbers stay whole), or each column below its own `least`
    (None: never cut). Returns whether anything was cut."""
    limit = column_widths(header, body)
    floors = [least] * len(limit) if isinstance(least, int) else list(least)
    while sum(limit) + 2 * (len(limit) - 1) > width:
        narrowable = [i for i, floor in enumerate(floors) if floor is not None and limit[i] > floor]
        if not narrowable:
            break
        widest = max(narrowable, key=lambda i: limit[i])
        excess = sum(limit) + 2 * (len(limit) - 1) - width
        limit[widest] = max(floors[widest] or 0, limit[widest] - excess)
    cut = False
    for row in body:
        for i, cell in enumerate(row):
            if len(cell) > limit[i]:
                row[i] = cell[: limit[i] - 1] + "~"
                cut = True
    return cut


def terminal_width() -> int:
    """The width the terminal's lines are folded to: the terminal's (COLUMNS, when set, wins), PIPE_WIDTH when
    the output is a pipe or a file; never below NARROWEST."""
    return max(NARROWEST, shutil.get_terminal_size((PIPE_WIDTH, 24)).columns)


def wrapped(text: str, width: int | None = None, indent: str = "", hanging: str = "  ") -> list[str]:
    """A line of prose folded to `width` columns (default: terminal_width()), the first line starting with
    `indent`; continuation lines indented as far, plus `hanging`, so a folded sentence reads as one item. The
    text is made inert first (it may hold input text)."""
    return textwrap.wrap(
        inert(text, lines=True),
        width=width or terminal_width(),
        initial_indent=indent,
        subsequent_indent=" " * len(indent) + hanging,
        break_on_hyphens=False,
    ) or [indent]


def escape(text: str, quote: bool = True) -> str:
    """Text for HTML: made inert (control and bidirectional characters as visible escapes, so that a label
    ending `\u202egpj.exe` cannot display as `...exe.jpg`), then HTML-escaped."""
    return html.escape(inert(text), quote)


def value_text(value: Any) -> str:
    """A query result value for a terminal table: NULL, floats positional to 6 significant digits."""
    if value is None:
        return "NULL"
    if isinstance(value, float):
        return "NaN" if math.isnan(value) else plain_number(value)
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


def number_list(numbers: list[int]) -> str:
    """Caveat numbers in order, runs of three or more as ranges: `1,3-6,8,9`."""
    runs: list[list[int]] = []
    for n in sorted(set(numbers)):
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ",".join(f"{run[0]}-{run[-1]}" if len(run) > 2 else ",".join(str(n) for n in run) for run in runs)


def reference_tokens_per_s_per_accel(row: dict) -> float | None:
    """The MLPerf figure the row's delivered fraction divides by: the Interactive scenario's where the profile is
    held to it (mlperf_reference_scenario), else the Server scenario's."""
    if row.get("mlperf_reference_scenario") == "Interactive":
        return row.get("mlperf_interactive_tokens_per_s_per_accel")
    return row.get("mlperf_server_tokens_per_s_per_accel")
