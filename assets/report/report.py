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
from pathlib import Path

import duckdb

from assets.core.inert import inert
from assets.report.decision import profile_warnings
from assets.report.decision_blocks import at_a_glance, capacity_chart, decision_block, decisions_by_profile
from assets.report.decision_glance import glance
from assets.report.evidence_marks import EVIDENCE, tag
from assets.report.plan_block import plan_block
from assets.report.profile_sections import profile_section
from assets.report.report_data import ReportData, read_report_data
from assets.report.report_paths import report_roots, without_absolute_paths
from assets.report.serving_tables import require_report_tables
from assets.report.textformat import escape

CSS = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #111827;
       margin: 24px auto; max-width: 1500px; padding: 0 16px; }
h1 { font-size: 22px; margin-bottom: 4px; } h2 { font-size: 19px; margin-top: 36px; border-bottom: 2px solid #e5e7eb; }
h3 { font-size: 15px; margin-top: 22px; }
table { border-collapse: collapse; margin: 8px 0; font-size: 12.5px; }
th, td { border: 1px solid #e5e7eb; padding: 3px 6px; vertical-align: top; text-align: left; }
th { background: #f9fafb; font-weight: 600; }
td.num { text-align: right; white-space: nowrap; }
td.caveats { font-size: 11.5px; color: #374151; min-width: 120px; }
td.file { word-break: break-all; font-family: ui-monospace, Menlo, monospace; font-size: 11px; }
.tag { display: inline-block; border-radius: 3px; padding: 0 4px; font-size: 10.5px; font-weight: 600;
       color: #fff; background: #6b7280; }
.muted { color: #6b7280; } .warning { color: #b45309; } .charts { display: flex; flex-wrap: wrap; gap: 12px; }
.legend span.tag { margin-right: 6px; } tr.config th { background: #eef2ff; }
.headline { border: 2px solid #047857; border-radius: 6px; padding: 6px 12px; margin: 6px 0 10px; background: #f0fdf4; }
.headline p { margin: 3px 0; } .headline .answer { font-size: 17px; } .headline .sure { font-size: 13px; }
tr.alternative.recommended td { background: #f0fdf4; font-weight: 600; } .tag.recommended { background: #047857; }
.glance-title { margin: 8px 0 0; color: #374151; } ol.caveats { font-size: 12px; color: #374151; margin-top: 4px; }
details.reasoning { margin: 6px 0 18px; } details.reasoning summary { cursor: pointer; color: #1d4ed8; }
td.caveat-marks { font-size: 11.5px; white-space: nowrap; }
div.plan { margin: 4px 0 18px; } div.plan h4 { font-size: 13.5px; margin: 10px 0 2px; }
table.plan td { font-size: 12px; max-width: 360px; } table.plan td.status { white-space: nowrap; }
"""


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
    sections = "".join(profile_section(data, p) for p in data.profiles)
    decisions = decisions_by_profile(data)
    decision_blocks = "".join(
        decision_block(
            decisions[p["profile"]],
            p,
            data.sensitivity.get(p["profile"], []),
            profile_warnings(p, data.bounds.get(p["profile"], []), data.served),
            glance(decisions[p["profile"]], p, data.shortlist.get(p["profile"], [])),
            plan_block(p, decisions[p["profile"]].recommended is not None, data.plans),
        )
        for p in data.profiles
    )
    capacity_charts = "".join(capacity_chart(d, data.traffic.get(name, [])) for name, d in decisions.items())
    document = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>benchbill report</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>{CSS}</style></head>
<body>
<h1>benchbill: what each config costs per request, under our latency SLO</h1>
<p class="muted">Generated {generated_at:%Y-%m-%d %H:%M} UTC from <code>{escape(data.serving_path)}</code>. Money
in US dollars; a band is low to high; a projection from MLPerf is never recommended over a config we measured.</p>
<h2 id="decision">The decision, per profile</h2>
<div class="decisions">{decision_blocks}</div>
<h2 id="capacity">Our traffic against each top config's capacity</h2>
<p class="muted">Black: our requests per second in each window of the traffic log, scaled to our volume. Each
line: a top config's capacity, the replicas it needs at our peak x what one replica delivers within the SLO (low
end); dashed: projected from MLPerf; dotted (dash-dotted when projected): a line that coincides with one drawn
before it (its label says which). A line under the black curve's peaks means missed SLOs at those peaks.</p>
<div class="capacity-charts">{capacity_charts or '<p class="muted">No profile states a volume.</p>'}</div>
<h2 id="detail">The detail</h2>
<p class="muted">MLPerf numbers are the reference under MLPerf's conditions; delivered numbers are what a config
sustains within the profile's SLO, on our runs (observed) or the MLPerf reference x a delivered fraction (projected:
the fraction our runs measured against MLPerf on their accelerators, else the profile's prior).
The two stay in separate columns so the gap is visible. Two bands per config: the one measured as run, and the one
the bill rests on ("billed on": measured; calibrated, the config's engine model run on our traffic where the run's
workload differs from ours or its files do not measure what the SLO bounds; or projected), beside its costs.</p>
<p class="legend">{legend}</p>
<p>Profiles: {contents}</p>
{at_a_glance(data)}
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
    document = without_absolute_paths(document, report_roots(data.serving_path))
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
