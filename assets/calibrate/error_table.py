"""The held-out error table of the calibrated engine models, as printed in docs/calibrated-model.md."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from assets.calibrate.tables import MIN_LEVELS, Calibration, usable_levels
from assets.calibrate.validate import Row

# (heading, test, metric): each cell is median / worst |relative error| (held-out points)
COLUMNS = [
    ("TTFT p50", "lolo", "ttft_p50_ms"),
    ("TPOT p50", "lolo", "tpot_p50_ms"),
    ("TTFT p95 below knee", "lolo", "ttft_p95_ms"),
    ("E2E p50", "lolo", "e2e_p50_ms"),
    ("achieved rate", "lolo", "achieved_requests_per_s"),
    ("TTFT p50, workload out", "lowo", "ttft_p50_ms"),
    ("TPOT p50, workload out", "lowo", "tpot_p50_ms"),
    ("delivered at SLO, workload out", "lowo_slo", "delivered_at_slo_requests_per_s"),
]
HEADER = ["config", "config_key", "levels", "workloads", "status", *(c[0] for c in COLUMNS)]


def cell(errors: list[float]) -> str:
    """median / worst (points), in whole percent; a dash when nothing was scored."""
    if not errors:
        return "-"
    return f"{np.median(errors):.0%} / {max(errors):.0%} ({len(errors)})"


def _errors(rows: list[Row]) -> dict[tuple[str, str], list[float]]:
    out: dict[tuple[str, str], list[float]] = defaultdict(list)
    for r in rows:
        if r.scored:
            out[(r.test, r.metric)].append(abs(r.rel_error))
    return out


def table_rows(results: list[Calibration]) -> list[list[str]]:
    """One row per config with 4 or more usable load levels, then the pooled row ("all"), as printed."""
    rows = []
    pooled: dict[tuple[str, str], list[float]] = defaultdict(list)
    chosen = [c for c in results if usable_levels(c.config) >= MIN_LEVELS]
    for c in sorted(chosen, key=lambda c: (c.config.label, c.config.key)):
        errors = _errors(c.rows)
        for k, v in errors.items():
            pooled[k] += v
        cells = [cell(errors.get((test, metric), [])) for _h, test, metric in COLUMNS]
        label = c.config.label.replace("|", "/")
        rows.append([label, f"`{c.config.key}`", str(usable_levels(c.config)), str(len(c.config.workloads)), c.status])
        rows[-1] += cells
    total = ["all configs above", "", str(sum(usable_levels(c.config) for c in chosen)), "", ""]
    rows.append(total + [cell(pooled.get((test, metric), [])) for _h, test, metric in COLUMNS])
    return rows


def markdown(results: list[Calibration]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(row) + " |" for row in table_rows(results)]
    return "\n".join(lines)


def parse_markdown(text: str) -> list[list[str]]:
    """The rows of the error table in a page (the table whose header is HEADER), as printed."""
    lines = text.splitlines()
    head = "| " + " | ".join(HEADER) + " |"
    start = lines.index(head) + 2
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip().strip("|").split(" | ")])
    return rows
