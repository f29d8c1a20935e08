"""One row per MLPerf result across sources: the most authoritative source's row is kept (order of
`PRECEDENCE`), every field on which another source differs is recorded as a disagreement."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from typing import Any

from assets.core.records import Reject
from assets.formats.mlperf import checker, cm, html, tree, xlsx
from assets.formats.mlperf.summary_json import SUMMARY_RESULTS_JSON

PRECEDENCE = [
    SUMMARY_RESULTS_JSON,
    checker.CHECKER_JSON_INDEX,
    xlsx.FINAL_REPORT_XLSX,
    checker.CHECKER_CSV,
    cm.CM_RESULT,
    tree.SUBMISSION_TREE,
    html.SUMMARY_HTML,
]


CROSS_CHECK_ONLY = {html.SUMMARY_HTML}
VALUE_TOLERANCE = 1e-5  # relative, between sources that print full precision
HTML_ABSOLUTE_TOLERANCE = 0.005  # the result pages print two decimals


# --- one row per result -------------------------------------------------------------------


def _rank(row: dict[str, Any]) -> int:
    fmt = row["source_format"]
    return PRECEDENCE.index(fmt) if fmt in PRECEDENCE else len(PRECEDENCE)


def _close(a: float, b: float, page: bool) -> bool:
    if page:
        return abs(a - b) <= HTML_ABSOLUTE_TOLERANCE + 1e-9 * max(abs(a), abs(b))
    return math.isclose(a, b, rel_tol=VALUE_TOLERANCE, abs_tol=1e-12)


def compare(kept: dict[str, Any], other: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """(field, kept value, other value) for each field on which two rows of one result differ.
    A field one source does not state is not a disagreement."""
    page = html.SUMMARY_HTML in (kept["source_format"], other["source_format"])  # two decimals only
    out = []
    if not _close(kept["result_value"], other["result_value"], page):
        out.append(("result_value", kept["result_value"], other["result_value"]))
    for name in ("result_unit", "precision", "accelerator_count", "inferred"):
        if kept[name] is not None and other[name] is not None and kept[name] != other[name]:
            if name == "inferred" and page:
                continue
            out.append((name, kept[name], other[name]))
    if (
        kept["power_value"] is not None
        and other["power_value"] is not None
        and not _close(kept["power_value"], other["power_value"], False)
    ):
        out.append(("power_value", kept["power_value"], other["power_value"]))
    mine = json.loads(kept["accuracy_json"]) if kept["accuracy_json"] else {}
    theirs = json.loads(other["accuracy_json"]) if other["accuracy_json"] else {}
    for key in sorted(set(mine) & set(theirs)):
        a, b = mine[key], theirs[key]
        same = _close(a, b, False) if isinstance(a, float) and isinstance(b, float) else a == b
        if not same:
            out.append((f"accuracy.{key}", a, b))
    return out


def _disagreement(
    row_key: str,
    round_name: str,
    name: str,
    kept: dict[str, Any] | None,
    kept_value: Any,
    other: dict[str, Any],
    other_value: Any,
) -> dict[str, Any]:
    numeric = (
        isinstance(kept_value, (int, float))
        and isinstance(other_value, (int, float))
        and not isinstance(kept_value, bool)
        and kept_value
    )
    return {
        "result_key": row_key,
        "round": round_name,
        "field": name,
        "kept_value": None if kept_value is None else str(kept_value),
        "other_value": None if other_value is None else str(other_value),
        "relative_difference": (other_value - kept_value) / abs(kept_value) if numeric else None,
        "kept_source_format": kept["source_format"] if kept else None,
        "kept_source": kept["source"] if kept else None,
        "kept_location": kept["source_location"] if kept else None,
        "other_source_format": other["source_format"],
        "other_source": other["source"],
        "other_location": other["source_location"],
    }


def merge(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[Reject], list[dict[str, Any]]]:
    """One row per result: the most authoritative source's row is kept; a second row of the same
    result from the same file is quarantined; a row from another source is compared field by
    field. A result only a cross-check source (the result pages) holds is recorded, not kept."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[row["result_key"]].append(row)
    kept_rows, rejects, disagreements = [], [], []
    for key, group in groups.items():
        ordered = sorted(group, key=_rank)
        primary = next((r for r in ordered if r["source_format"] not in CROSS_CHECK_ONLY), None)
        if primary is None:
            for other in ordered:
                disagreements.append(
                    _disagreement(key, other["round"], "presence", None, None, other, other["result_value"])
                )
            continue
        kept_rows.append(primary)
        for other in ordered:
            if other is primary:
                continue
            if other["source"] == primary["source"]:
                rejects.append(
                    Reject(
                        other["source"],
                        other["source_location"],
                        f"duplicate result {key} in the same file (first at {primary['source_location']})",
                        other,
                    )
                )
                continue
            for name, mine, theirs in compare(primary, other):
                disagreements.append(_disagreement(key, primary["round"], name, primary, mine, other, theirs))
    return kept_rows, rejects, disagreements
