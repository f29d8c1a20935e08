"""The Dagster definitions: every asset and check, the jobs, the schedule and the sensors."""

from __future__ import annotations

import dagster as dg

import assets
from pipelines.automation import (
    build_warehouse,
    dump_folder_sensor,
    freshness_checks,
    freshness_sensor,
    ingest_mlperf_round,
    mlperf_round_sensor,
    nightly_refresh,
    rebuild_after_round_ingest,
    refresh_observed,
)
from pipelines.progress import progress_logger
from pipelines.resources import Inputs, Warehouse
from pipelines.settings import inputs_from_env, warehouse_from_env


def build_definitions(inputs: Inputs | None = None, warehouse: Warehouse | None = None) -> dg.Definitions:
    """Definitions bound to the given inputs and warehouse (from the environment by default)."""
    return dg.Definitions(
        assets=dg.load_assets_from_package_module(assets),
        asset_checks=[*dg.load_asset_checks_from_package_module(assets), *freshness_checks],
        jobs=[build_warehouse, refresh_observed, ingest_mlperf_round],
        schedules=[nightly_refresh],
        sensors=[dump_folder_sensor, mlperf_round_sensor, rebuild_after_round_ingest, freshness_sensor],
        resources={
            "warehouse": warehouse or warehouse_from_env(),
            "inputs": inputs or inputs_from_env(),
        },
        loggers={"console": dg.colored_console_logger, "progress": progress_logger},
        executor=dg.in_process_executor,
    )


defs = build_definitions()
