"""The HTML report for whoever signs the hardware decision, built from the published serving file.

Per profile: the shortlist (MLPerf reference and delivered numbers in separate columns, each
number marked with its evidence class), throughput against each bounded latency percentile per
measured config (SLO line, MLPerf reference and delivered band marked), cost bands per config
and price, and where each number came from. One static file: inline CSS and SVG, no script, no
network.
"""

from __future__ import annotations

import datetime
import os
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from assets.core.inert import inert
from assets.report.charts import Band, Point, RangeRow, RefLine, Series, line_chart, range_chart
from assets.report.decision import (
    ELSEWHERE_TITLE,
    Decision,
    bill_text,
    config_name,
    decide,
    measure_text,
    no_bill_text,
    projected_text,
    saving_text,
    sensitivity_text,
)
from assets.report.serving_tables import require_report_tables
from assets.report.textformat import (
    SHORTLIST_COLUMNS,
    TEXT,
    cell_spans,
    escape,
    number_text,
    plain_number,
    range_text,
    shortlist_cell,
    shows_quality,
)

EVIDENCE = {
    "benchmark": ("#1d4ed8", "published, auditable reference numbers (MLPerf results, list prices)"),
    "observed": ("#047857", "measured on our own stack (our benchmark dumps)"),
    "calibrated": (
        "#0f766e",
        "a model of one of our configs, fitted on its own sweeps and run on our traffic, with its measured error",
    ),
    "projected": (
        "#b45309",
        "derived from a pattern, not measured for this config (MLPerf reference x the fraction our bands measured, "
        "else the profile's prior)",
    ),
    "requirement": ("#6d28d9", "what we demand (SLO bounds, priors)"),
    "cost": ("#be123c", "computed from the above: price / delivered throughput"),
}
# The terminal table's columns, minus the profile (each profile has its own section).
REPORT_COLUMNS = [c for c in SHORTLIST_COLUMNS if c[1] != "profile"]
LATENCY_FALLBACK = "ttft_p95_ms"

CSS = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #111827;
       margin: 24px auto; max-width: 1500px; padding: 0 16px; }
h1 { font-size: 22px; margin-bottom: 4px; } h2 { font-size: 19px; margin-top: 36px; border-bottom: 2px solid #e5e7eb; }
h3 { font-size: 15px; margin-top: 22px; }
table { border-collapse: collapse; margin: 8px 0; font-size: 12.5px; }
th, td { border: 1px solid #e5e7eb; padding: 3px 6px; vertical-align: top; text-align: left; }
th { background: #f9fafb; font-weight: 600; }
td.num { text-align: right; white-space: nowrap; }
td.caveats { font-size: 11.5px; color: #374151; min-width: 220px; }
td.file { word-break: break-all; font-family: ui-monospace, Menlo, monospace; font-size: 11px; }
.tag { display: inline-block; border-radius: 3px; padding: 0 4px; font-size: 10.5px; font-weight: 600;
       color: #fff; background: #6b7280; }
.muted { color: #6b7280; } .charts { display: flex; flex-wrap: wrap; gap: 12px; }
.legend span.tag { margin-right: 6px; } tr.config th { background: #eef2ff; }
"""


@dataclass
class ReportData:
    serving_path: str
    profiles: list[dict[str, Any]]
    bounds: dict[str, list[dict[str, Any]]]
    shortlist: dict[str, list[dict[str, Any]]]
    observed: dict[str, list[dict[str, Any]]]
    load_points: dict[str, list[dict[str, Any]]]
    references: dict[tuple[str, str], dict[str, Any]]
    profile_references: dict[tuple[str, str, str], dict[str, Any]]  # (profile, accelerator, model): the scenario
    sources: dict[str, list[dict[str, Any]]]
    rounds: list[dict[str, Any]]
    runs: list[dict[str, Any]]
    quarantine: list[dict[str, Any]]
    files: list[dict[str, Any]]
    capacity: dict[str, list[dict[str, Any]]]
    measure_next: dict[str, list[dict[str, Any]]]
    traffic: dict[str, list[dict[str, Any]]]
    sensitivity: dict[str, list[dict[str, Any]]]


def _rate(requests_per_s: float | None) -> str:
    return "no measured rate" if requests_per_s is None else f"{requests_per_s:.2f} req/s"


def _rows(conn: duckdb.DuckDBPyConnection, sql: str) -> list[dict[str, Any]]:
    cursor = conn.execute(sql)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def _grouped(rows: list[dict[str, Any]], key: str) -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[row[key]].append(row)
    return groups


def read_report_data(conn: duckdb.DuckDBPyConnection, serving_path: str) -> ReportData:
    """Everything the report shows, read through the analyst views."""
    return ReportData(
        serving_path=serving_path,
        profiles=_rows(conn, "SELECT * FROM analytics.profiles"),
        bounds=_grouped(_rows(conn, "SELECT * FROM analytics.slo_bounds"), "profile"),
        shortlist=_grouped(_rows(conn, "SELECT * FROM analytics.shortlist"), "profile"),
        observed=_grouped(
            _rows(
                conn, "SELECT * FROM analytics.delivered_at_slo WHERE evidence = 'observed' ORDER BY profile, run_label"
            ),
            "profile",
        ),
        load_points=_grouped(_rows(conn, "SELECT * FROM analytics.load_points"), "run_id"),
        references={
            (r["accelerator_id"], r["model_id"]): r for r in _rows(conn, "SELECT * FROM analytics.mlperf_reference")
        },
        profile_references={
            (r["profile"], r["accelerator_id"], r["model_id"]): r
            for r in _rows(conn, "SELECT * FROM benchmark.mlperf_profile_reference")
        },
        sources=_grouped(_rows(conn, "SELECT * FROM analytics.shortlist_sources"), "profile"),
        rounds=_rows(
            conn,
            "SELECT round, count(*) AS results, count(DISTINCT submitter) AS submitters, "
            "count(DISTINCT accelerator_id) AS accelerators, string_agg(DISTINCT source, ', ') "
            "AS sources FROM analytics.mlperf_results GROUP BY round ORDER BY round DESC",
        ),
        runs=_rows(conn, "SELECT * FROM analytics.runs"),
        quarantine=_rows(conn, "SELECT table_name, count(*) AS rows FROM analytics.quarantine GROUP BY 1 ORDER BY 1"),
        files=_rows(conn, "SELECT status, count(*) AS files FROM analytics.source_files GROUP BY 1 ORDER BY 1"),
        capacity=_grouped(_rows(conn, "SELECT * FROM analytics.capacity_plan"), "profile"),
        measure_next=_grouped(_rows(conn, "SELECT * FROM analytics.measure_next"), "profile"),
        traffic=_grouped(
            _rows(conn, "SELECT * FROM requirement.traffic_rate ORDER BY profile, window_start_s"), "profile"
        ),
        sensitivity=_grouped(_rows(conn, "SELECT * FROM analytics.cost_sensitivity"), "profile"),
    )


def data_value(value: Any) -> str:
    """A value as a `data-value` attribute: floats in full (repr round-trips), dates ISO, NULL empty."""
    if value is None:
        return ""
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    return repr(value) if isinstance(value, float) else str(value)


def tag(evidence: str) -> str:
    color, meaning = EVIDENCE[evidence]
    return f'<span class="tag" style="background:{color}" title="{escape(meaning)}">{escape(evidence)}</span>'


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
    cell_evidence = row["evidence"] if evidence == "delivered" else evidence
    return f'<td class="num" data-evidence="{cell_evidence}" style="color:{EVIDENCE[cell_evidence][0]}">{inner}</td>'


def _shortlist_table(rows: list[dict[str, Any]]) -> str:
    columns = [c for c in REPORT_COLUMNS if c[1] != "quality_status" or shows_quality(rows)]
    heads = []
    for title, _source, _fmt, evidence in columns:
        marker = ""
        if evidence == "delivered":
            marker = "<br>" + tag("observed") + " " + tag("projected")
        elif evidence:
            marker = "<br>" + tag(evidence)
        heads.append(f"<th>{escape(title)}{marker}</th>")
    body = []
    for row in rows:
        cells = "".join(_cell(row, source, fmt, ev) for _t, source, fmt, ev in columns)
        body.append(
            f'<tr class="shortlist-row" data-profile="{escape(row["profile"])}" '
            f'data-config-key="{escape(row["config_key"])}" data-price-class="{escape(row["price_class"] or "")}" '
            f'data-price-provider="{escape(row["price_provider"] or "")}">'
            f'<td>{row["rank_in_profile"]}</td>{cells}<td class="caveats">{escape(row["caveats"])}'
            + (
                f'<br><span class="quality">quality ({escape(row["quality_status"])}): '
                f"{escape(row['quality_evidence'])}</span>"
                if row["quality_status"] != "not_required"
                else ""
            )
            + "</td></tr>"
        )
    return (
        f'<table class="shortlist"><thead><tr><th>#</th>{"".join(heads)}<th>caveats</th></tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
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
                f"{r['accelerator']} x{r['accelerator_count']} {r['run_label'] or '(projected)'} | "
                f"{r['price_class']} {r['price_provider']}",
                78,
            ),
            low=r["cost_per_request_usd_low"] * 1000,
            high=r["cost_per_request_usd_high"] * 1000,
            color=EVIDENCE[r["evidence"]][0],
            title=f"{r['evidence']}: "
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
        legend=[(name, EVIDENCE[name][0]) for name in ("observed", "projected")],
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
                f'<tr class="config"><th colspan="8">{escape(r["accelerator"] or "?")} | '
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


def _profile_section(data: ReportData, profile: dict[str, Any]) -> str:
    name = profile["profile"]
    rows = data.shortlist.get(name, [])
    parts = [
        f'<section class="profile" id="profile-{escape(name)}" data-profile="{escape(name)}">',
        f"<h2>Profile {escape(name)}</h2>",
        f"<p>Model <b>{escape(profile['model_id'] or profile['model_raw'])}</b>; SLO {tag('requirement')} "
        f"{escape(profile['slo_text'])}; delivered-fraction prior for projections where no run of ours measures the "
        "gap "
        f"[{plain_number(profile['delivered_fraction_prior_lo'])}, "
        f"{plain_number(profile['delivered_fraction_prior_hi'])}]"
        + (
            f"; our traffic about {plain_number(profile['input_tokens_mean'])} input / "
            f"{plain_number(profile['output_tokens_mean'])} "
            "output tokens per request"
            if profile["input_tokens_mean"] and profile["output_tokens_mean"]
            else ""
        )
        + ".</p>",
        f"<h3>Shortlist ({len(rows)} configs x prices, cheapest first)</h3>",
    ]
    parts.append(
        _shortlist_table(rows)
        if rows
        else '<p class="muted">Empty: no run of ours and no priced MLPerf reference for this model.</p>'
    )
    capacity = data.capacity.get(name, [])
    parts.append(f"<h3>Capacity plan at our volume ({len(capacity)} configs x prices, cheapest bill first)</h3>")
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
    parts.append("<h3>Cost bands per config and price class</h3>")
    parts.append(_cost_chart(name, rows))
    parts.append("<h3>Where each number came from</h3>")
    parts.append(_sources_table(data.sources.get(name, [])))
    parts.append("</section>")
    return "".join(parts)


CAPACITY_COLORS = ["#047857", "#1d4ed8", "#b45309", "#be123c", "#6d28d9"]


def _decisions(data: ReportData) -> dict[str, Decision]:
    return {
        p["profile"]: decide(p["profile"], data.capacity.get(p["profile"], []), data.measure_next.get(p["profile"], []))
        for p in data.profiles
    }


def _decision_block(decision: Decision, profile: dict[str, Any], sensitivity: list[dict[str, Any]]) -> str:
    """A profile's decision lines: the recommended config and its bill, the saving against the baseline, what the
    token mix and the bursts cost each top config, what to measure next."""
    name = escape(decision.profile)
    row = decision.recommended
    parts = [f'<div class="decision" data-profile="{name}"><h3><a href="#profile-{name}">{name}</a></h3>']
    if row is None:
        parts.append(f'<p class="decision-line muted" data-line="no-bill">{escape(no_bill_text(profile))}.</p></div>')
        return "".join(parts)
    values = "".join(
        f' data-{column.replace("_", "-")}="{escape(data_value(row.get(column)))}"'
        for column in ("config_key", "price_class", "price_provider", "monthly_usd_low", "monthly_usd_high")
    )
    parts.append(
        f'<p class="decision-line" data-line="recommended"{values}>{tag(row["evidence"])} <b>Recommended:</b> '
        f"{escape(bill_text(row))}.</p>"
        f'<p class="decision-line" data-line="saving"><b>Against what we run today:</b> '
        f"{escape(saving_text(row, decision.runner_up))}.</p>"
    )
    projected = projected_text(decision.top)
    if projected is not None:
        parts.append(
            f'<p class="decision-line" data-line="projected">{tag("projected")} <b>Projected bands:</b> '
            f"{escape(projected)}.</p>"
        )
    costs = [text for top in decision.top if (text := sensitivity_text(top, sensitivity))]
    if costs:
        items = "".join(f"<li>{escape(text)}.</li>" for text in costs)
        parts.append(
            f'<div class="decision-line" data-line="cost-sensitivity"><b>What the token mix and the bursts cost:</b>'
            f"<ul>{items}</ul></div>"
        )
    if decision.measure_next:
        items = "".join(f"<li>{escape(measure_text(m))}</li>" for m in decision.measure_next)
        parts.append(
            f'<div class="decision-line" data-line="measure-next"><b>What to measure next:</b><ul>{items}</ul></div>'
        )
    else:
        parts.append(
            '<p class="decision-line" data-line="measure-next"><b>What to measure next:</b> nothing flagged: no '
            "projected config may beat the best measured one at the recommended config's price class, and no run "
            "lacks load points near its SLO crossing.</p>"
        )
    if decision.measure_elsewhere:
        items = "".join(f"<li>{escape(measure_text(m))}</li>" for m in decision.measure_elsewhere)
        parts.append(
            f'<div class="decision-line" data-line="measure-elsewhere"><b>What to measure next, '
            f"{escape(ELSEWHERE_TITLE)}:</b><ul>{items}</ul></div>"
        )
    parts.append(f'<p class="muted">Our traffic: {escape(str(row["traffic_basis"]))}.</p></div>')
    return "".join(parts)


def _capacity_chart(decision: Decision, windows: list[dict[str, Any]]) -> str:
    """Our traffic per window over the log against each top config's static capacity (replicas at the peak x
    the low end of what one replica delivers within the SLO)."""
    if not decision.top:
        return ""
    if not windows:
        row = decision.top[0]
        return (
            f'<p class="muted" data-profile="{escape(decision.profile)}">No traffic log for {escape(decision.profile)}'
            f": no rate over time to draw ({escape(str(row['traffic_basis']))}).</p>"
        )
    lines = [
        RefLine(
            "y",
            row["replicas_high"] * row["delivered_requests_per_s_low"],
            f"{config_name(row)}: {row['replicas_high']} x "
            f"{number_text(row['delivered_requests_per_s_low'], 'rate')} = "
            f"{number_text(row['replicas_high'] * row['delivered_requests_per_s_low'], 'rate')} requests/s "
            f"({row['evidence']})",
            CAPACITY_COLORS[i % len(CAPACITY_COLORS)],
            "capacity",
            dashed=row["evidence"] == "projected",
        )
        for i, row in enumerate(decision.top)
        if row["replicas_high"] is not None and row["delivered_requests_per_s_low"] is not None
    ]
    traffic = Series(
        "our traffic",
        [
            Point(
                w["window_start_s"] / 60,
                w["scaled_rate_per_s"],
                f"{w['window_start_s'] / 60:,.0f} min: {number_text(w['scaled_rate_per_s'], 'rate')} requests/s "
                f"({w['requests']:,} requests in the log's window)",
            )
            for w in windows
        ],
        "#111827",
    )
    return line_chart(
        title=f"{decision.profile}: our traffic against each top config's capacity",
        x_label="minutes since the log's first request",
        y_label="requests/s",
        series=[traffic],
        lines=lines,
        width=1100,
        height=360,
        data={"profile": decision.profile, "chart": "capacity"},
    )


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
            f'<tr class="capacity-row" data-config-key="{escape(r["config_key"])}">'
            f"<td>{escape(config_name(r))}</td><td>{tag(r['evidence'])}</td>"
            f"<td>{escape(r['price_class'])} {escape(r['price_provider'])}</td>"
            f'<td class="num">{escape(number_text(r["usd_per_accelerator_hour"], "usd_per_hour"))}</td>{cells}</tr>'
        )
    return (
        '<table class="capacity"><thead><tr><th>config</th><th>evidence</th><th>price</th><th>$/acc-h</th>'
        f"{heads}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def _at_a_glance(data: ReportData) -> str:
    """Per profile, its first-ranked row (rank_in_profile 1: the recommended config at its cheapest price where
    the profile states a volume, else the lowest cost per request), with the monthly bill when there is one."""
    body = []
    for profile in data.profiles:
        rows = data.shortlist.get(profile["profile"], [])
        row = next((r for r in rows if r["rank_in_profile"] == 1 and r["cost_per_request_usd_high"] is not None), None)
        if row is None:
            continue
        plan = next(
            (
                c
                for c in data.capacity.get(profile["profile"], [])
                if (c["config_key"], c["price_class"], c["price_provider"])
                == (row["config_key"], row["price_class"], row["price_provider"])
            ),
            {},
        )
        cells = [
            shortlist_cell(row, source, fmt)
            for source, fmt in (
                (("accelerator_count", "accelerator"), TEXT),
                ("run_label", TEXT),
                (("price_class", "price_provider"), TEXT),
                (("cost_per_request_usd_low", "cost_per_request_usd_high"), "usd_per_1k_requests"),
                (("delivered_requests_per_s_low", "delivered_requests_per_s_high"), "rate"),
                ("mlperf_server_tokens_per_s_per_accel", "tokens"),
            )
        ]
        cells.append(shortlist_cell(plan, ("monthly_usd_low", "monthly_usd_high"), "usd_per_month"))
        body.append(
            f'<tr class="glance-row" data-profile="{escape(row["profile"])}" '
            f'data-config-key="{escape(row["config_key"])}" data-price-class="{escape(row["price_class"] or "")}" '
            f'data-price-provider="{escape(row["price_provider"] or "")}">'
            f"<td>{escape(profile['profile'])}</td><td>{tag(row['evidence'])}</td>"
            + "".join(f"<td>{escape(c)}</td>" for c in cells)
            + "</tr>"
        )
    if not body:
        return ""
    return (
        '<h3>At a glance: the first-ranked config per profile</h3><p class="muted">The recommended config at '
        "its cheapest price where the profile states a volume (lowest monthly bill at our volume, our runs before "
        "projections), else the lowest cost per request: the first row of every table below.</p><table><thead><tr>"
        "<th>profile</th><th>evidence</th><th>accelerators</th><th>run</th><th>price</th><th>$ per 1k requests</th>"
        "<th>delivered req/s</th><th>MLPerf srv tok/s/acc</th><th>monthly USD (static)</th></tr></thead><tbody>"
        + "".join(body)
        + "</tbody></table>"
    )


def render(data: ReportData, generated_at: datetime.datetime) -> str:
    """The whole report as one HTML document."""
    legend = " ".join(f"{tag(name)} {escape(meaning)}<br>" for name, (_c, meaning) in EVIDENCE.items())
    rounds = "".join(
        f"<tr><td>{escape(r['round'])}</td><td class='num'>{r['results']:,}</td>"
        f"<td class='num'>{r['submitters']}</td><td class='num'>{r['accelerators']}</td>"
        f"<td class='file'>{escape(r['sources'] or '')}</td></tr>"
        for r in data.rounds
    )
    quarantined = sum(r["rows"] for r in data.quarantine)
    files = ", ".join(f"{r['files']} {escape(r['status'])}" for r in data.files)
    contents = " | ".join(
        f'<a href="#profile-{escape(p["profile"])}">{escape(p["profile"])}</a>' for p in data.profiles
    )
    sections = "".join(_profile_section(data, p) for p in data.profiles)
    decisions = _decisions(data)
    decision_blocks = "".join(
        _decision_block(decisions[p["profile"]], p, data.sensitivity.get(p["profile"], [])) for p in data.profiles
    )
    capacity_charts = "".join(_capacity_chart(d, data.traffic.get(name, [])) for name, d in decisions.items())
    document = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>benchbill report</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>{CSS}</style></head>
<body>
<h1>benchbill: what each config costs per request, under our latency SLO</h1>
<p class="muted">Generated {generated_at:%Y-%m-%d %H:%M} UTC from <code>{escape(data.serving_path)}</code>.</p>
<h2 id="decision">The decision, per profile</h2>
<p class="muted">Recommended: the config of our own runs (observed) with the lowest monthly bill at our volume and
peak, at its cheapest price; a config projected from MLPerf is never recommended over a measured one, it is listed
under what to measure next. Money in US dollars; a band is low to high.</p>
<div class="decisions">{decision_blocks}</div>
<h2 id="capacity">Our traffic against each top config's capacity</h2>
<p class="muted">Black: our requests per second in each window of the traffic log, scaled to our volume. Each
line: a top config's capacity, the replicas it needs at our peak x what one replica delivers within the SLO (low
end); dashed: projected from MLPerf. A line under the black curve's peaks means missed SLOs at those peaks.</p>
<div class="capacity-charts">{capacity_charts or '<p class="muted">No profile states a volume.</p>'}</div>
<h2>The detail</h2>
<p class="muted">MLPerf numbers are the reference under MLPerf's conditions; delivered numbers are what a config
sustains within the profile's SLO, on our runs (observed) or the MLPerf reference x a delivered fraction (projected:
the fraction our runs measured against MLPerf on their accelerators, else the profile's prior).
The two stay in separate columns so the gap is visible.</p>
<p class="legend">{legend}</p>
<p>Profiles: {contents}</p>
{_at_a_glance(data)}
<h3>Inputs</h3>
<table><thead><tr><th>MLPerf round</th><th>results</th><th>submitters</th><th>accelerators</th><th>file</th></tr>
</thead><tbody>{rounds}</tbody></table>
<p>{len(data.runs)} runs of ours; {len(data.profiles)} profiles; files looked at: {files or "none"};
quarantined rows: {quarantined} (<code>benchbill sql quarantine_summary</code>).</p>
{sections}
<h2>Method</h2>
<p>Delivered low = the highest achieved request rate whose percentiles meet every bound of the profile,
among load points before the first failing one; high = the first bound crossing interpolated linearly in
achieved rate towards the first failing point (never above it). Projected = the MLPerf reference's tokens/s
per accelerator (Server, or Interactive where the profile's SLO is as strict as Interactive's bounds) x the
profile's delivered-fraction prior. Cost per request = USD per accelerator-hour x
accelerators / (requests/s x 3600); the low cost uses the high throughput. Per-token costs each carry the
whole accelerator-hour.</p>
</body></html>
"""
    return inert(document, lines=True)  # what no cell escaped (a script's data): no raw control or bidi character


def write_report(serving_path: Path, output: Path, serving_name: Path | None = None) -> int:
    """Write the report from the serving file (read-only) to `output`, atomically; its size. `serving_name`: the
    file the report is published beside, when `serving_path` is the copy about to replace it."""
    if not serving_path.exists():
        raise FileNotFoundError(
            f"{serving_path}: no published serving file; run `benchbill run` first (or pass --warehouse DIR)"
        )
    conn = duckdb.connect(str(serving_path), read_only=True)
    try:
        require_report_tables(conn, str(serving_name or serving_path))
        data = read_report_data(conn, str((serving_name or serving_path).resolve()))
    finally:
        conn.close()
    html = render(data, datetime.datetime.now(datetime.UTC))
    output.parent.mkdir(parents=True, exist_ok=True)
    staging = output.with_name(f".{output.name}.{os.getpid()}.tmp")
    staging.write_text(html, encoding="utf-8")
    os.replace(staging, output)
    return len(html.encode("utf-8"))
