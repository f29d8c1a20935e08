"""Resources for `dagster dev`, the daemon and schedules, read from environment variables.

BENCHBILL_WAREHOUSE  warehouse folder (default ./warehouse)
BENCHBILL_MLPERF     comma-separated round-table paths or URLs (default: the sources file)
BENCHBILL_SOURCES    the MLPerf sources file (default assets/defaults/mlperf_sources.yaml)
BENCHBILL_DUMPS      comma-separated dump folders (default: none)
BENCHBILL_PRICES     prices CSV (default: the bundled price table)
BENCHBILL_PROFILES   profiles YAML (default: the bundled example profiles)
"""

from __future__ import annotations

import os

from pipelines.resources import DEFAULT_PRICES, DEFAULT_PROFILES, DEFAULT_SOURCES, Inputs, Warehouse


def _list(name: str) -> list[str]:
    return [part.strip() for part in os.environ.get(name, "").split(",") if part.strip()]


def warehouse_from_env() -> Warehouse:
    return Warehouse(dir=os.environ.get("BENCHBILL_WAREHOUSE", "warehouse"))


def inputs_from_env() -> Inputs:
    return Inputs(
        mlperf=_list("BENCHBILL_MLPERF"),
        sources_file=os.environ.get("BENCHBILL_SOURCES", str(DEFAULT_SOURCES)),
        dumps=_list("BENCHBILL_DUMPS"),
        prices=os.environ.get("BENCHBILL_PRICES", str(DEFAULT_PRICES)),
        profiles=os.environ.get("BENCHBILL_PROFILES", str(DEFAULT_PROFILES)),
    )
