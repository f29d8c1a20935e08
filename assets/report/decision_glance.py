"""The decision at a glance, per profile: one headline (the config, its replicas, the monthly bill band, the evidence
class of the band it bills on and that band's error), the alternatives in a small table, and a chart of each
alternative's delivered band beside its MLPerf reference and its cost band (the design brief's table, drawn)."""

from __future__ import annotations

from typing import Any

from assets.report.charts import BandRow, band_chart
from assets.report.decision import TOP_CAPACITY_CONFIGS, Decision, config_name, error_text, no_bill_text
from assets.report.evidence_marks import EVIDENCE, billed_evidence, data_value, tag
from assets.report.textformat import escape, number_text, range_text, reference_tokens_per_s_per_accel

BASIS_WORDS = {
    "observed": "observed as run",
    "calibrated": "calibrated on our traffic",
    "projected": "projected from MLPerf",
}
# The one ranking every table of the report follows (marts.config_shortlist.rank_in_profile), in words.
RANKING_WORDS = (
    "in the profile's ranking (#): our runs before projections, then the lowest monthly bill at our volume "
    "(high end, then low) where the profile states one, else the lowest cost per request"
)


def band_error_text(row: dict[str, Any]) -> str:
    """How sure the band a row bills on is: a calibrated band's own error and its engine model's held-out error, a
    band measured as run, or how far a projected band spreads either side of its middle."""
    evidence = billed_evidence(row)
    if evidence == "calibrated":
        return error_text(row)
    if evidence == "observed":
        return "measured as run: no model error"
    low, high = row.get("billed_requests_per_s_low"), row.get("billed_requests_per_s_high")
    spread = f"band +-{100 * (high - low) / (high + low):.0f}%: " if low and high else ""
    return f"{spread}MLPerf x a delivered fraction, not measured"


def _key(row: dict[str, Any]) -> tuple[Any, Any, Any]:
    """A row's config at its price: (config_key, price_class, price_provider)."""
    return row["config_key"], row.get("price_class"), row.get("price_provider")


def alternatives(decision: Decision, shortlist: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The configs the glance shows, each at its first-ranked price, in the profile's ranking: the decision's top
    configs (capacity plan rows) with their shortlist row's columns (MLPerf reference, billed output tokens/s, cost
    per request); where the profile has no bill, the first configs of the shortlist."""
    by_key = {_key(r): r for r in shortlist}
    if decision.top:
        return [{**by_key.get(_key(r), {}), **r} for r in decision.top]
    firsts: dict[str, dict[str, Any]] = {}
    for row in sorted(shortlist, key=lambda r: r["rank_in_profile"]):
        if row.get("cost_per_request_usd_high") is not None:
            firsts.setdefault(row["config_key"], row)
    return list(firsts.values())[:TOP_CAPACITY_CONFIGS]


def _replicas(row: dict[str, Any]) -> str:
    """`9 to 12 replicas`, `1 replica`."""
    noun = "replica" if row["replicas_high"] == 1 else "replicas"
    return f"{range_text(row['replicas_low'], row['replicas_high'], 'count', ' to ')} {noun}"


def headline(decision: Decision, profile: dict[str, Any]) -> str:
    """The signer's answer in one box: which config, how many replicas, what a month costs, on which evidence and
    how sure (the band's error); or why the profile has no bill."""
    name = escape(decision.profile)
    row = decision.recommended
    if row is None:
        return (
            f'<div class="headline" data-profile="{name}"><p class="answer">{escape(no_bill_text(profile))}.</p></div>'
        )
    evidence = billed_evidence(row)
    values = "".join(
        f' data-{column.replace("_", "-")}="{escape(data_value(row.get(column)))}"'
        for column in ("config_key", "replicas_low", "replicas_high", "monthly_usd_low", "monthly_usd_high")
    )
    lead = (
        "No config recommended (every run of ours misses the SLO at its lightest load); the cheapest projection"
        if decision.projection_first
        else "Recommended"
    )
    unmeasured = " (no run of ours: measure it before buying)" if row["evidence"] != "observed" else ""
    autoscaled = ""
    if row.get("autoscaled_monthly_usd_high") is not None:
        band = range_text(
            row["autoscaled_monthly_usd_low"], row["autoscaled_monthly_usd_high"], "usd_per_month", " to "
        )
        autoscaled = f" ({band} autoscaled)"
    monthly = range_text(row["monthly_usd_low"], row["monthly_usd_high"], "usd_per_month", " to ")
    billed = range_text(row["billed_requests_per_s_low"], row["billed_requests_per_s_high"], "rate", " to ")
    return (
        f'<div class="headline" data-profile="{name}" data-evidence="{evidence}"{values}>'
        f'<p class="answer">{lead}: <b>{escape(config_name(row))}</b>{escape(unmeasured)}, '
        f"<b>{escape(_replicas(row))}</b>, <b>{escape(monthly)} USD a month</b>{escape(autoscaled)}</p>"
        f'<p class="sure">{tag(evidence)} billed on the band {BASIS_WORDS[evidence]}, {escape(billed)} requests/s a '
        f'replica: <span class="band-error">{escape(band_error_text(row))}</span>; at {escape(row["price_class"])} '
        f"{escape(row['price_provider'])}, {number_text(row['usd_per_accelerator_hour'], 'usd_per_hour')} USD per "
        "accelerator-hour</p></div>"
    )


def _cells(row: dict[str, Any], recommended: bool) -> str:
    """One alternative's cells: rank, config (marked when recommended), the band's class, price, band, bill, error."""
    mark = ' <span class="tag recommended">recommended</span>' if recommended else ""
    cells = [
        f"<td>{row['rank_in_profile']}</td><td>{escape(config_name(row))}{mark}</td>",
        f"<td>{tag(billed_evidence(row))}</td>",
        f"<td>{escape(row.get('price_class') or '-')} {escape(row.get('price_provider') or '')}</td>",
    ]
    for columns, kind in (
        (("billed_requests_per_s_low", "billed_requests_per_s_high"), "rate"),
        (("replicas_low", "replicas_high"), "count"),
        (("monthly_usd_low", "monthly_usd_high"), "usd_per_month"),
        (("cost_per_request_usd_low", "cost_per_request_usd_high"), "usd_per_1k_requests"),
    ):
        cells.append(f'<td class="num">{escape(range_text(row.get(columns[0]), row.get(columns[1]), kind))}</td>')
    cells.append(f"<td>{escape(band_error_text(row))}</td>")
    return "".join(cells)


def alternatives_table(decision: Decision, rows: list[dict[str, Any]]) -> str:
    """The alternatives, one row each at its first-ranked price, the recommended one marked."""
    recommended = _key(decision.recommended) if decision.recommended else None
    body = "".join(
        f'<tr class="alternative{" recommended" if _key(r) == recommended else ""}" '
        f'data-config-key="{escape(r["config_key"])}" data-rank="{r["rank_in_profile"]}">'
        f"{_cells(r, _key(r) == recommended)}</tr>"
        for r in rows
    )
    return (
        f'<p class="glance-title">The alternatives, each config at its first-ranked price, {RANKING_WORDS}:</p>'
        '<table class="alternatives"><thead><tr><th>#</th><th>config</th><th>billed on</th><th>price</th>'
        "<th>billed req/s a replica</th><th>replicas</th><th>monthly USD (static)</th><th>$ per 1k requests</th>"
        "<th>how sure</th></tr></thead>"
        f"<tbody>{body}</tbody></table>"
    )


def alternatives_chart(decision: Decision, rows: list[dict[str, Any]]) -> str:
    """Each alternative's band billed on (output tokens/s per accelerator) beside its MLPerf reference, and its cost
    band per 1,000 requests."""
    recommended = _key(decision.recommended) if decision.recommended else None
    bands = []
    for r in rows:
        count = r["accelerator_count"] or 1
        low, high = r.get("billed_output_tokens_per_s_low"), r.get("billed_output_tokens_per_s_high")
        cost_low, cost_high = r.get("cost_per_request_usd_low"), r.get("cost_per_request_usd_high")
        reference = reference_tokens_per_s_per_accel(r)
        bands.append(
            BandRow(
                label=config_name(r),
                delivered_low=low / count if low is not None else None,
                delivered_high=high / count if high is not None else None,
                delivered_color=EVIDENCE[billed_evidence(r)][0],
                reference=reference,
                cost_low=cost_low * 1000 if cost_low is not None else None,
                cost_high=cost_high * 1000 if cost_high is not None else None,
                title=f"{config_name(r)}: {billed_evidence(r)} band; MLPerf reference "
                f"{number_text(reference, 'tokens')} output tokens/s per accelerator; "
                f"{range_text(cost_low, cost_high, 'usd_per_1k_requests')} USD per 1,000 requests",
                marked=_key(r) == recommended,
                data={"config-key": r["config_key"], "evidence": billed_evidence(r)},
            )
        )
    return band_chart(
        title=f"{decision.profile}: what each config delivers beside its MLPerf reference, and what it costs",
        rows=bands,
        delivered_label="output tokens/s per accelerator",
        cost_label="USD per 1,000 requests",
        reference_color=EVIDENCE["benchmark"][0],
        cost_color=EVIDENCE["cost"][0],
    )


def glance(decision: Decision, profile: dict[str, Any], shortlist: list[dict[str, Any]]) -> str:
    """A profile's decision at a glance: the headline, then the alternatives' table and chart."""
    rows = alternatives(decision, shortlist)
    if not rows:
        return headline(decision, profile)
    return headline(decision, profile) + alternatives_table(decision, rows) + alternatives_chart(decision, rows)
