"""A profile's section of the HTML report: its shortlist, capacity plan, latency charts, cost bands and sources."""

from __future__ import annotations

from typing import Any

from assets.report.charts import Band, Point, RangeRow, RefLine, Series, line_chart, range_chart
from assets.report.decision import config_name, no_bill_text
from assets.report.decision_glance import RANKING_WORDS
from assets.report.evidence_marks import EVIDENCE, billed_evidence, data_value, tag
from assets.report.report_data import ReportData
from assets.report.textformat import (
    SHORTLIST_COLUMNS,
    TEXT,
    cell_spans,
    escape,
    number_list,
    number_text,
    plain_number,
    range_text,
    shortlist_cell,
    shows_quality,
)

# The terminal table's columns, minus the profile (each profile has its own section).
REPORT_COLUMNS = [c for c in SHORTLIST_COLUMNS if c[1] != "profile"]
LATENCY_FALLBACK = "ttft_p95_ms"
BILLED_BAND = ("billed_requests_per_s_low", "billed_requests_per_s_high")  # what replicas and bills rest on


def _rate(requests_per_s: float | None) -> str:
    return "no measured rate" if requests_per_s is None else f"{requests_per_s:.2f} req/s"


def _cell(row: dict[str, Any], source: str | tuple[str, ...], kind: str, evidence: str | None) -> str:
    """One shortlist cell: the terminal table's text; each number in a span holding its full value."""
    if evidence is None or kind == TEXT:
        return f"<td>{escape(shortlist_cell(row, source, kind))}</td>"
    spans = cell_spans(row, source, kind)
    inner = (
        " - ".join(
            f'<span data-column="{c}" data-value="{escape(data_value(row.get(c)))}">{escape(text)}</span>'
            for c, text in spans
        )
        or "-"
    )
    cell_evidence = evidence
    if evidence == "delivered":  # a billed band is of the class it bills on (calibrated, say); a measured one ours
        cell_evidence = billed_evidence(row) if _billed(source) else row["evidence"]
    return f'<td class="num" data-evidence="{cell_evidence}" style="color:{EVIDENCE[cell_evidence][0]}">{inner}</td>'


def _billed(source: str | tuple[str, ...]) -> bool:
    """Whether a shortlist column holds the band a row bills on (billed_requests_per_s, billed_output_tokens_per_s)."""
    return (source if isinstance(source, str) else source[0]).startswith("billed_")


def row_caveats(row: dict[str, Any]) -> list[str]:
    """A shortlist row's caveats, one text each (marts.config_shortlist joins them with '; '), its quality verdict
    last where the profile states a quality requirement."""
    caveats = [c.strip() for c in (row.get("caveats") or "").split("; ") if c.strip()]
    if row.get("quality_status") not in (None, "not_required"):
        caveats.append(f"quality ({row['quality_status']}): {row['quality_evidence']}")
    return caveats


def _shortlist_table(rows: list[dict[str, Any]]) -> str:
    """The shortlist in the profile's ranking; each caveat written once under the table, the rows it applies to
    marked with its number."""
    columns = [c for c in REPORT_COLUMNS if c[1] != "quality_status" or shows_quality(rows)]
    heads = []
    for title, source, _fmt, evidence in columns:
        marker = ""
        if evidence == "delivered":
            classes = ("observed", "calibrated", "projected") if _billed(source) else ("observed", "projected")
            marker = "<br>" + " ".join(tag(c) for c in classes)
        elif evidence:
            marker = "<br>" + tag(evidence)
        heads.append(f"<th>{escape(title)}{marker}</th>")
    numbers: dict[str, int] = {}
    body = []
    for row in rows:
        cells = "".join(_cell(row, source, fmt, ev) for _t, source, fmt, ev in columns)
        marks = number_list([numbers.setdefault(c, len(numbers) + 1) for c in row_caveats(row)])
        body.append(
            f'<tr class="shortlist-row" data-profile="{escape(row["profile"])}" '
            f'data-config-key="{escape(row["config_key"])}" data-price-class="{escape(row["price_class"] or "")}" '
            f'data-price-provider="{escape(row["price_provider"] or "")}" data-rank="{row["rank_in_profile"]}">'
            f'<td>{row["rank_in_profile"]}</td>{cells}<td class="caveat-marks">{marks or "-"}</td></tr>'
        )
    listed = "".join(f'<li value="{n}">{escape(text)}</li>' for text, n in numbers.items())
    return (
        f'<table class="shortlist"><thead><tr><th>#</th>{"".join(heads)}<th>caveats</th></tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
        + (
            f'<p class="muted">Caveats (a row\'s numbers say which apply to it):</p><ol class="caveats">{listed}</ol>'
            if listed
            else ""
        )
    )


def _latency_charts(
    profile: str,
    run: dict[str, Any],
    points: list[dict[str, Any]],
    bounds: list[dict[str, Any]],
    reference: dict[str, Any] | None,
) -> list[str]:
    """Per bounded latency measure: throughput per accelerator against the measure, with the SLO
    line, the MLPerf reference of the profile's scenario (Server, or Interactive: `reference_scenario`), MLPerf
    Offline and the delivered band."""
    latency_bounds = [b for b in bounds if b["measure"] != "error_rate"] or [
        {"measure": LATENCY_FALLBACK, "bound": None}
    ]
    charts = []
    for bound in latency_bounds:
        measure = bound["measure"]
        series = Series(
            run["run_label"],
            [
                Point(
                    p["output_tokens_per_s_per_accel"],
                    p[measure],
                    f"load level {p['load_index']}: offered {p['offered_rate_per_s'] or p['concurrency']}, achieved "
                    f"{_rate(p['achieved_requests_per_s'])}, {p['output_tokens_per_s_per_accel']:,.0f} output "
                    f"tok/s per accelerator, {measure} = {p[measure]:,.1f} ms, errors {p['error_rate']:.1%}",
                )
                for p in points
                if p["output_tokens_per_s_per_accel"] is not None and p[measure] is not None
            ],
            EVIDENCE["observed"][0],
        )
        lines = []
        if bound["bound"] is not None:
            lines.append(
                RefLine("y", bound["bound"], f"SLO {measure} <= {bound['bound']:g} ms", "#dc2626", "slo", dashed=True)
            )
        if reference:
            scenario = reference.get("reference_scenario") or "Server"
            value = reference.get("reference_tokens_per_s_per_accel") or reference["server_tokens_per_s_per_accel"]
            lines.append(
                RefLine(
                    "x",
                    value,
                    f"MLPerf {reference['round']} {scenario} ({reference['submitter']}): {value:,.0f}",
                    EVIDENCE["benchmark"][0],
                    f"mlperf-{scenario.lower()}",
                )
            )
            if reference["offline_tokens_per_s_per_accel"]:
                lines.append(
                    RefLine(
                        "x",
                        reference["offline_tokens_per_s_per_accel"],
                        f"Offline (upper bound only): {reference['offline_tokens_per_s_per_accel']:,.0f}",
                        "#6b7280",
                        "mlperf-offline",
                        dashed=True,
                    )
                )
        band = None
        if run["delivered_output_tokens_per_s_per_accel_low"] is not None:
            band = Band(
                run["delivered_output_tokens_per_s_per_accel_low"],
                run["delivered_output_tokens_per_s_per_accel_high"],
                "delivered within the SLO (low - high)",
                EVIDENCE["observed"][0],
            )
        charts.append(
            line_chart(
                title=f"{run['run_label']}: {measure} vs throughput",
                x_label="output tokens/s per accelerator",
                y_label=f"{measure} (ms)",
                series=[series],
                lines=lines,
                band=band,
                data={"profile": profile, "config-key": run["config_key"], "measure": measure},
            )
        )
    return charts


def _cost_chart(profile: str, rows: list[dict[str, Any]]) -> str:
    ranges = [
        RangeRow(
            label=_clip(
                f"{r['accelerator_id']} x{r['accelerator_count']} {r['run_label'] or '(projected)'} | "
                f"{r['price_class']} {r['price_provider']}",
                78,
            ),
            low=r["cost_per_request_usd_low"] * 1000,
            high=r["cost_per_request_usd_high"] * 1000,
            color=EVIDENCE[billed_evidence(r)][0],
            title=f"{billed_evidence(r)}: "
            f"{range_text(r['cost_per_request_usd_low'], r['cost_per_request_usd_high'], 'usd_per_1k_requests')} "
            f"USD per 1,000 requests at {number_text(r['usd_per_accelerator_hour'], 'usd_per_hour')} USD per "
            f"accelerator-hour ({r['price_class']}, "
            f"{r['price_provider']}, as of {r['price_as_of']})",
            data={
                "config-key": r["config_key"],
                "price-class": r["price_class"],
                "price-provider": r["price_provider"],
            },
        )
        for r in rows
        if r["cost_per_request_usd_low"] is not None
    ]
    if not ranges:
        return '<p class="muted">No config of this profile has a price: no cost band to show.</p>'
    return range_chart(
        title=f"{profile}: cost per 1,000 requests, low - high, per config and price",
        x_label="US dollars per 1,000 requests",
        rows=ranges,
        legend=[(name, EVIDENCE[name][0]) for name in ("observed", "calibrated", "projected")],
    )


def _clip(text: str, length: int) -> str:
    return text if len(text) <= length else text[: length - 3] + "..."


def _sources_table(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return '<p class="muted">No sources: the shortlist of this profile is empty.</p>'
    body, current = [], None
    for r in rows:
        if r["config_key"] != current:
            current = r["config_key"]
            body.append(
                f'<tr class="config"><th colspan="8">{escape(r["accelerator_id"] or "?")} | '
                f"{escape(r['evidence'])} | {escape(r['run_label'] or r['config_key'])}</th></tr>"
            )
        value = "-" if r["value"] is None else plain_number(r["value"])
        body.append(
            f'<tr class="source-row" data-config-key="{escape(r["config_key"])}">'
            f'<td>{escape(r["number"])}</td><td class="num" data-value="{escape(data_value(r["value"]))}">{value} '
            f'<span class="muted">{escape(r["unit"])}</span></td><td>{tag(r["number_evidence"])}</td>'
            f"<td>{escape(r['round'] or '')}</td><td>{escape(r['submitter'] or '')}</td>"
            f'<td>{escape(r["system"] or "")}</td><td class="file">{escape(r["source"])}</td>'
            f'<td>{escape(r["location"])}<br><span class="muted" title="sha256">'
            f"{escape((r['source_sha256'] or '')[:12])}</span></td></tr>"
        )
    return (
        '<table class="sources"><thead><tr><th>number</th><th>value</th><th>evidence</th><th>round</th>'
        "<th>submitter</th><th>system</th><th>file</th><th>where / sha256</th></tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def profile_section(data: ReportData, profile: dict[str, Any]) -> str:
    name = profile["profile"]
    rows = data.shortlist.get(name, [])
    parts = [
        f'<section class="profile" id="profile-{escape(name)}" data-profile="{escape(name)}">',
        f"<h2>Profile {escape(name)}</h2>",
        f"<p>Model <b>{escape(profile['model_id'] or profile['model_raw'])}</b>; SLO {tag('requirement')} "
        f"{escape(profile['slo_text'])}; delivered-fraction prior for projections where no run of ours measures the "
        "gap "
        f"[{plain_number(profile['delivered_fraction_prior_low'])}, "
        f"{plain_number(profile['delivered_fraction_prior_high'])}]"
        + (
            f"; our traffic about {plain_number(profile['input_tokens_mean'])} input / "
            f"{plain_number(profile['output_tokens_mean'])} "
            "output tokens per request"
            if profile["input_tokens_mean"] and profile["output_tokens_mean"]
            else ""
        )
        + ".</p>"
        + (f'<p class="muted">Workload: {escape(profile["workload_basis"])}.</p>' if profile["workload_basis"] else ""),
        f"<h3>Shortlist ({len(rows)} configs x prices), {RANKING_WORDS}</h3>",
    ]
    parts.append(
        _shortlist_table(rows)
        if rows
        else '<p class="muted">Empty: no run of ours and no priced MLPerf reference for this model.</p>'
    )
    capacity = data.capacity.get(name, [])
    parts.append(f"<h3>Capacity plan at our volume ({len(capacity)} configs x prices), {RANKING_WORDS}</h3>")
    parts.append(_capacity_table(capacity) if capacity else f'<p class="muted">{escape(no_bill_text(profile))}.</p>')
    parts.append("<h3>Throughput against latency, per measured config</h3>")
    charts = []
    for run in data.observed.get(name, []):
        reference = data.references.get((run["accelerator_id"], run["model_id"]))
        scenario = data.profile_references.get((name, run["accelerator_id"], run["model_id"]))
        if reference and scenario:
            reference = {**reference, **scenario}
        charts += _latency_charts(
            name, run, data.load_points.get(run["config_key"], []), data.bounds.get(name, []), reference
        )
    if charts:
        parts.append(
            '<p class="muted">Each point is one load level of our run. Dashed red: the SLO bound. Blue: '
            "the MLPerf reference per accelerator (Server, or Interactive where the profile's SLO is as strict as "
            "Interactive's); dashed grey: MLPerf Offline, an upper bound "
            "only. Green band: what the run delivered within every bound (low - high).</p>"
        )
        parts.append(f'<div class="charts">{"".join(charts)}</div>')
    else:
        parts.append(
            '<p class="muted">No run of ours serves this model: every config here is projected '
            "(the MLPerf reference x a delivered fraction), so there are no load points to plot.</p>"
        )
    parts.append(f"<h3>Cost bands per config and price class, {RANKING_WORDS}</h3>")
    parts.append(_cost_chart(name, rows))
    parts.append("<h3>Where each number came from</h3>")
    parts.append(_sources_table(data.sources.get(name, [])))
    parts.append("</section>")
    return "".join(parts)


CAPACITY_COLUMNS: list[tuple[str, str | tuple[str, ...], str]] = [
    ("replicas", ("replicas_low", "replicas_high"), "count"),
    ("monthly USD (static)", ("monthly_usd_low", "monthly_usd_high"), "usd_per_month"),
    ("monthly USD (autoscaled)", ("autoscaled_monthly_usd_low", "autoscaled_monthly_usd_high"), "usd_per_month"),
    ("utilisation %", ("utilisation_low", "utilisation_high"), "percent"),
    (
        "$ per 1k requests (effective)",
        ("effective_cost_per_request_usd_low", "effective_cost_per_request_usd_high"),
        "usd_per_1k_requests",
    ),
    ("saving USD/month vs baseline", ("monthly_saving_usd_low", "monthly_saving_usd_high"), "usd_per_month"),
]


def _capacity_table(rows: list[dict[str, Any]]) -> str:
    """The capacity plan of a profile, one row per config x price, in the profile's ranking (rank_in_profile)."""
    heads = "".join(f"<th>{escape(title)}<br>{tag('cost')}</th>" for title, _s, _k in CAPACITY_COLUMNS)
    body = []
    for r in sorted(rows, key=lambda r: r["rank_in_profile"]):
        cells = "".join(
            f'<td class="num">{escape(shortlist_cell(r, source, kind))}</td>' for _t, source, kind in CAPACITY_COLUMNS
        )
        body.append(
            f'<tr class="capacity-row" data-config-key="{escape(r["config_key"])}" data-rank="{r["rank_in_profile"]}">'
            f"<td>{r['rank_in_profile']}</td><td>{escape(config_name(r))}</td><td>{tag(r['evidence'])}</td>"
            f"<td>{escape(r['price_class'])} {escape(r['price_provider'])}</td>"
            f'<td class="num">{escape(number_text(r["usd_per_accelerator_hour"], "usd_per_hour"))}</td>'
            f"<td>{escape(r.get('billed_basis') or '-')}</td>"
            f'<td class="num">{escape(shortlist_cell(r, BILLED_BAND, "rate"))}</td>{cells}</tr>'
        )
    return (
        '<table class="capacity"><thead><tr><th>#</th><th>config</th><th>evidence</th><th>price</th><th>$/acc-h</th>'
        f"<th>billed on</th><th>billed req/s</th>{heads}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )
