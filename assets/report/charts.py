"""Charts as inline SVG text, for a report that opens from disk with no network and no script.

Two kinds: a line chart of points (throughput against a latency percentile, with horizontal and
vertical reference lines and a shaded band) and a range chart (one horizontal low-high bar per
row, e.g. a cost band). Every mark carries its value in a `data-` attribute so tests can read
the numbers back from the page.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from assets.report.textformat import escape, plain_number

FONT = 'font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"'


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    title: str = ""


@dataclass(frozen=True)
class Series:
    name: str
    points: list[Point]
    color: str


@dataclass(frozen=True)
class RefLine:
    """A horizontal (axis "y") or vertical (axis "x") line at `value`, labelled."""

    axis: str
    value: float
    label: str
    color: str
    css_class: str
    dashed: bool = False
    dash: str = ""  # an explicit stroke-dasharray ("2 3"), to tell apart lines that coincide; else dashed's "6 4"


@dataclass(frozen=True)
class Band:
    """A shaded range along x, e.g. the delivered low-high band."""

    low: float
    high: float
    label: str
    color: str


@dataclass(frozen=True)
class RangeRow:
    label: str
    low: float
    high: float
    color: str
    title: str = ""
    data: dict[str, str] = field(default_factory=dict)


def _fmt(value: float) -> str:
    """A tick label: whole numbers from 1,000 up, else 4 significant digits (2 below 1), never 1e-05."""
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return plain_number(value, 4 if abs(value) >= 1 else 2)


def linear_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round tick values (1, 2 or 5 x 10^k apart) covering [lo, hi]."""
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(lo / step) * step
    ticks = []
    value = first
    while value <= hi + step * 1e-9:
        ticks.append(round(value, 12))
        value += step
    return ticks


def log_ticks(lo: float, hi: float) -> list[float]:
    """1, 2, 5 x 10^k within [lo, hi] (only powers of ten when the range is wide)."""
    multiples = (1, 2, 5) if hi / lo < 1e4 else (1,)
    ticks = []
    for power in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        for m in multiples:
            value = m * 10**power
            if lo <= value <= hi:
                ticks.append(value)
    return ticks


class _Scale:
    def __init__(self, lo: float, hi: float, start: float, end: float, log: bool):
        self.lo, self.hi, self.start, self.end, self.log = lo, hi, start, end, log

    def __call__(self, value: float) -> float:
        if self.log:
            value = max(value, self.lo)
            fraction = (math.log10(value) - math.log10(self.lo)) / (math.log10(self.hi) - math.log10(self.lo))
        else:
            fraction = (value - self.lo) / (self.hi - self.lo)
        return self.start + fraction * (self.end - self.start)

    def ticks(self) -> list[float]:
        return log_ticks(self.lo, self.hi) if self.log else linear_ticks(self.lo, self.hi)


def _domain(values: list[float], log: bool) -> tuple[float, float]:
    positive = [v for v in values if v is not None and (v > 0 or not log)]
    if not positive:
        return (1.0, 10.0) if log else (0.0, 1.0)
    lo, hi = min(positive), max(positive)
    if log:
        return _log_step(lo / 1.1, down=True), _log_step(hi * 1.1, down=False)
    return 0.0, hi * 1.1 if hi > 0 else 1.0


def _log_step(value: float, down: bool) -> float:
    """The nearest 1, 2 or 5 x 10^k below (or above) `value`."""
    power = math.floor(math.log10(value))
    steps = [m * 10**p for p in (power, power + 1) for m in (1, 2, 5)]
    return max(v for v in steps if v <= value) if down else min(v for v in steps if v >= value)


def _open_svg(title: str, width: int, height: int, title_x: int, data: dict[str, str] | None) -> list[str]:
    attrs = "".join(f' data-{escape(k)}="{escape(v)}"' for k, v in (data or {}).items())
    return [
        f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}"{attrs} {FONT} font-size="11">',
        f"<title>{escape(title)}</title>",
        f'<text x="{title_x}" y="18" font-size="13" font-weight="600">{escape(title)}</text>',
    ]


def _x_grid(x_scale: _Scale, top: float, bottom_y: float, label) -> list[str]:
    """Vertical grid lines with their tick labels under the plot."""
    return [
        f'<line x1="{x_scale(t):.1f}" y1="{top}" x2="{x_scale(t):.1f}" y2="{bottom_y}" stroke="#e5e7eb"/>'
        f'<text x="{x_scale(t):.1f}" y="{bottom_y + 14}" text-anchor="middle" fill="#4b5563">{label(t)}</text>'
        for t in x_scale.ticks()
    ]


def line_chart(
    *,
    title: str,
    x_label: str,
    y_label: str,
    series: list[Series],
    lines: list[RefLine],
    band: Band | None = None,
    width: int = 560,
    height: int = 340,
    data: dict[str, str] | None = None,
) -> str:
    """Points joined in order per series; y on a log scale when it spans more than 30x."""
    left, right, top = 70, 20, 34
    bottom = 48 + 15 * (len(lines) + (1 if band else 0))
    xs = [p.x for s in series for p in s.points] + [line.value for line in lines if line.axis == "x"]
    ys = [p.y for s in series for p in s.points] + [line.value for line in lines if line.axis == "y"]
    if band:
        xs += [band.low, band.high]
    positive_ys = [y for y in ys if y and y > 0]
    log_y = bool(positive_ys) and max(positive_ys) / min(positive_ys) > 30
    x_scale = _Scale(*_domain(xs, False), left, width - right, False)
    y_scale = _Scale(*_domain(ys, log_y), height - bottom, top, log_y)
    out = _open_svg(title, width, height, left, data)
    out += _x_grid(x_scale, top, height - bottom, _fmt)
    for tick in y_scale.ticks():
        y = y_scale(tick)
        out.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{width - right}" y2="{y:.1f}" stroke="#e5e7eb"/>'
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" fill="#4b5563">{_fmt(tick)}</text>'
        )
    out.append(
        f'<rect x="{left}" y="{top}" width="{width - left - right}" height="{height - top - bottom}" '
        'fill="none" stroke="#9ca3af"/>'
    )
    out.append(
        f'<text x="{(left + width - right) / 2:.1f}" y="{height - bottom + 30}" text-anchor="middle">'
        f"{escape(x_label)}</text>"
    )
    out.append(
        f'<text transform="translate(14 {(top + height - bottom) / 2:.1f}) rotate(-90)" '
        f'text-anchor="middle">{escape(y_label)}{" (log scale)" if log_y else ""}</text>'
    )
    if band:
        x0, x1 = x_scale(band.low), x_scale(band.high)
        out.append(
            f'<rect class="band" x="{x0:.1f}" y="{top}" width="{max(x1 - x0, 2):.1f}" '
            f'height="{height - top - bottom}" fill="{band.color}" fill-opacity="0.18" '
            f'data-low="{band.low!r}" data-high="{band.high!r}"><title>{escape(band.label)}</title></rect>'
        )
    legend_y = height - bottom + 46
    for i, line in enumerate(lines):
        pattern = line.dash or ("6 4" if line.dashed else "")
        dash = f' stroke-dasharray="{pattern}"' if pattern else ""
        if line.axis == "y":
            y = y_scale(line.value)
            geometry = f'x1="{left}" y1="{y:.1f}" x2="{width - right}" y2="{y:.1f}"'
        else:
            x = x_scale(line.value)
            geometry = f'x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{height - bottom}"'
        y = legend_y + 15 * i
        out.append(
            f'<line class="{line.css_class}" {geometry} stroke="{line.color}" stroke-width="2"{dash} '
            f'data-value="{line.value!r}"><title>{escape(line.label)}</title></line>'
            f'<line x1="{left}" y1="{y - 4}" x2="{left + 22}" y2="{y - 4}" stroke="{line.color}" '
            f'stroke-width="2"{dash}/><text x="{left + 28}" y="{y}">{escape(line.label)}</text>'
        )
    if band:
        y = legend_y + 15 * len(lines)
        out.append(
            f'<rect x="{left}" y="{y - 9}" width="22" height="10" fill="{band.color}" fill-opacity="0.25"/>'
            f'<text x="{left + 28}" y="{y}">{escape(band.label)}</text>'
        )
    for s in series:
        path = " ".join(
            f"{'M' if i == 0 else 'L'}{x_scale(p.x):.1f},{y_scale(p.y):.1f}" for i, p in enumerate(s.points)
        )
        out.append(f'<path d="{path}" fill="none" stroke="{s.color}" stroke-width="2"/>')
        for p in s.points:
            out.append(
                f'<circle class="point" cx="{x_scale(p.x):.1f}" cy="{y_scale(p.y):.1f}" r="3.5" '
                f'fill="{s.color}" data-x="{p.x!r}" data-y="{p.y!r}"><title>{escape(p.title)}</title></circle>'
            )
    out.append("</svg>")
    return "".join(out)


def range_chart(
    *,
    title: str,
    x_label: str,
    rows: list[RangeRow],
    legend: list[tuple[str, str]] | None = None,
    width: int = 1000,
    label_width: int = 470,
    row_height: int = 20,
) -> str:
    """One horizontal bar per row from low to high (a dot when equal); x on a log scale."""
    top, bottom, right = 44, 44, 24
    height = top + bottom + row_height * max(len(rows), 1)
    values = [v for r in rows for v in (r.low, r.high) if v and v > 0]
    x_scale = _Scale(*_domain(values, True), label_width, width - right, True)
    out = _open_svg(title, width, height, 8, None)
    out += _x_grid(x_scale, top, height - bottom, _fmt)
    out.append(
        f'<text x="{(label_width + width - right) / 2:.1f}" y="{height - 10}" text-anchor="middle">'
        f"{escape(x_label)} (log scale)</text>"
    )
    for i, (name, color) in enumerate(legend or []):
        x = label_width + 110 * i
        out.append(
            f'<rect x="{x}" y="{top - 12}" width="12" height="10" fill="{color}"/>'
            f'<text x="{x + 16}" y="{top - 3}">{escape(name)}</text>'
        )
    for i, row in enumerate(rows):
        y = top + i * row_height + row_height / 2
        attrs = "".join(f' data-{escape(k)}="{escape(v)}"' for k, v in row.data.items())
        out.append(
            f'<g class="range-row"{attrs} data-low="{row.low!r}" data-high="{row.high!r}">'
            f"<title>{escape(row.title or row.label)}</title>"
            f'<text x="{label_width - 8}" y="{y + 4:.1f}" text-anchor="end">{escape(row.label)}</text>'
        )
        if row.low and row.high:
            x0, x1 = x_scale(row.low), x_scale(row.high)
            out.append(
                f'<rect x="{x0:.1f}" y="{y - 6:.1f}" width="{max(x1 - x0, 3):.1f}" height="12" rx="2" '
                f'fill="{row.color}"/>'
            )
        out.append("</g>")
    out.append("</svg>")
    return "".join(out)


@dataclass(frozen=True)
class BandRow:
    """One config of a band chart: the band it delivers per accelerator beside its MLPerf reference, and its cost
    band; None where a number is unknown."""

    label: str
    delivered_low: float | None
    delivered_high: float | None
    delivered_color: str
    reference: float | None
    cost_low: float | None
    cost_high: float | None
    title: str = ""
    marked: bool = False  # drawn in bold: the recommended config
    data: dict[str, str] = field(default_factory=dict)


def _bar(scale: _Scale, low: float | None, high: float | None, y: float, color: str, css_class: str) -> str:
    """A low-high bar at row centre `y` (at least 3 px wide, so that a band of one value shows)."""
    if not low or not high:
        return ""
    x0, x1 = scale(low), scale(high)
    return (
        f'<rect class="{css_class}" x="{x0:.1f}" y="{y - 6:.1f}" width="{max(x1 - x0, 3):.1f}" height="12" rx="2" '
        f'fill="{color}" data-low="{low!r}" data-high="{high!r}"/>'
    )


def band_chart(
    *,
    title: str,
    rows: list[BandRow],
    delivered_label: str,
    cost_label: str,
    reference_color: str,
    cost_color: str,
    width: int = 960,
    label_width: int = 290,
    row_height: int = 24,
) -> str:
    """Per row two panels, the design brief's table drawn: the delivered band with the MLPerf reference beside it as
    a tick (x linear from 0), and the cost band (x on a log scale)."""
    top, bottom, gap, right = 58, 24, 40, 16
    height = top + bottom + row_height * max(len(rows), 1)
    panel = (width - label_width - gap - right) / 2
    delivered = [v for r in rows for v in (r.delivered_low, r.delivered_high, r.reference) if v]
    costs = [v for r in rows for v in (r.cost_low, r.cost_high) if v and v > 0]
    left = _Scale(*_domain(delivered, False), label_width, label_width + panel, False)
    start = label_width + panel + gap
    right_scale = _Scale(*_domain(costs, True), start, start + panel, True)
    out = _open_svg(title, width, height, 8, None)
    out += _x_grid(left, top, height - bottom, _fmt) + _x_grid(right_scale, top, height - bottom, _fmt)
    for x, text in ((label_width, delivered_label), (start, f"{cost_label} (log scale)")):
        out.append(f'<text x="{x:.1f}" y="{top - 22}" font-weight="600">{escape(text)}</text>')
    out.append(
        f'<line x1="{label_width}" y1="{top - 12}" x2="{label_width}" y2="{top - 2}" stroke="{reference_color}" '
        f'stroke-width="3"/><text x="{label_width + 6}" y="{top - 4}">MLPerf reference per accelerator; bar: the '
        "band billed on</text>"
    )
    for i, row in enumerate(rows):
        y = top + i * row_height + row_height / 2
        attrs = "".join(f' data-{escape(k)}="{escape(v)}"' for k, v in row.data.items())
        weight = ' font-weight="700"' if row.marked else ""
        out.append(
            f'<g class="band-row"{attrs}><title>{escape(row.title or row.label)}</title>'
            f'<text x="{label_width - 8}" y="{y + 4:.1f}" text-anchor="end"{weight}>{escape(row.label)}</text>'
            + _bar(left, row.delivered_low, row.delivered_high, y, row.delivered_color, "delivered")
            + _bar(right_scale, row.cost_low, row.cost_high, y, cost_color, "cost")
        )
        if row.reference:
            x = left(row.reference)
            out.append(
                f'<line class="reference" x1="{x:.1f}" y1="{y - 9:.1f}" x2="{x:.1f}" y2="{y + 9:.1f}" '
                f'stroke="{reference_color}" stroke-width="3" data-value="{row.reference!r}"/>'
            )
        out.append("</g>")
    out.append("</svg>")
    return "".join(out)
