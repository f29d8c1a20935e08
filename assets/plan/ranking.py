"""The one reading of a profile's ranking that every surface shares: its configs in rank order (each at its first
price), the recommended one and the runner-up on like terms (assets/report/decision.py and the measurement plan)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Ranked:
    """`configs`: the profile's configs with a bill, each at its first row in rank_in_profile (its cheapest price);
    `recommended` the first of them; `runner_up` the next config on like terms (at the recommended row's price class
    and provider where it has a price there, else at that class, else at its own first price)."""

    configs: list[dict[str, Any]]
    recommended: dict[str, Any] | None
    runner_up: dict[str, Any] | None


def ranked(capacity: list[dict[str, Any]]) -> Ranked:
    """The ranking of one profile's capacity plan rows (each with rank_in_profile, marts.config_shortlist)."""
    rows = sorted((r for r in capacity if r["monthly_usd_high"] is not None), key=lambda r: r["rank_in_profile"])
    cheapest: dict[str, dict[str, Any]] = {}
    for row in rows:
        cheapest.setdefault(row["config_key"], row)
    configs = list(cheapest.values())
    recommended = configs[0] if configs else None
    runner_up = None
    if recommended is not None and len(configs) > 1:
        theirs = [r for r in rows if r["config_key"] == configs[1]["config_key"]]
        same_class = [r for r in theirs if r["price_class"] == recommended["price_class"]]
        same_provider = [r for r in same_class if r["price_provider"] == recommended["price_provider"]]
        runner_up = (same_provider or same_class or theirs)[0]
    return Ranked(configs, recommended, runner_up)


def config_name(row: dict[str, Any]) -> str:
    """`vllm on 1x nvidia-h100-sxm-80gb` (our run), or `8x amd-mi300x-192gb (projected from MLPerf)`."""
    hardware = f"{row['accelerator_count']}x {row['accelerator_id']}"
    return f"{row['run_label']} on {hardware}" if row.get("run_label") else f"{hardware} (projected from MLPerf)"
