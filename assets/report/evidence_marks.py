"""How the HTML report marks a number: each evidence class's colour and tag, and a value's `data-value` text."""

from __future__ import annotations

import datetime
from typing import Any

from assets.report.textformat import escape

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


BILLED_EVIDENCE = {"measured": "observed", "calibrated": "calibrated", "projected": "projected"}


def billed_evidence(row: dict[str, Any]) -> str:
    """The evidence class of the band a shortlist or capacity plan row bills on (its billed_basis): observed when
    measured as run, calibrated on our traffic, or projected from MLPerf; the row's own class where none is said."""
    return BILLED_EVIDENCE.get(str(row.get("billed_basis")), str(row["evidence"]))
