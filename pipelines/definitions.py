"""The Dagster definitions (`workspace.yaml` loads `defs`): the assets and checks of each evidence class,
the resources, jobs, the schedule and the sensors."""

import dagster as dg

from assets import analytics, audit, benchmark, calibrated, marts, observed, publish, requirement, sql_tables
from assets.resources import Inputs, RunStore, Warehouse
from pipelines.jobs import build_warehouse, ingest_mlperf_round, refresh_observed, scan_dump_runs
from pipelines.progress import console_logger, progress_logger
from pipelines.schedules import nightly_refresh
from pipelines.sensors import dump_folder_sensor, freshness_sensor, mlperf_round_sensor, rebuild_after_round_ingest
from pipelines.settings import inputs_from_env, warehouse_from_env

ASSET_MODULES = [benchmark, requirement, observed, calibrated, marts, analytics, publish, audit]


def build_definitions(inputs: Inputs | None = None, warehouse: Warehouse | None = None) -> dg.Definitions:
    """Definitions bound to the given inputs and warehouse (from the environment by default)."""
    warehouse = warehouse or warehouse_from_env()
    return dg.Definitions(
        assets=[*dg.load_assets_from_modules(ASSET_MODULES), *sql_tables.table_assets, observed.run_partition],
        asset_checks=[*sql_tables.table_checks, *publish.freshness_checks],
        jobs=[build_warehouse, refresh_observed, ingest_mlperf_round, scan_dump_runs],
        schedules=[nightly_refresh],
        sensors=[dump_folder_sensor, mlperf_round_sensor, rebuild_after_round_ingest, freshness_sensor],
        resources={
            "warehouse": warehouse,
            "run_store": RunStore(
                dir=warehouse.dir, run_store=warehouse.run_store, run_store_options=warehouse.run_store_options
            ),
            "inputs": inputs or inputs_from_env(),
        },
        loggers={"console": console_logger, "progress": progress_logger},
        executor=dg.in_process_executor,
    )


defs = build_definitions()


def scan_dump_runs_job(inputs_json: str | None = None, warehouse_json: str | None = None) -> dg.JobDefinition:
    """The job scan_dump_runs bound to the given inputs and warehouse (JSON; the environment's by default): the
    target every step process of the multiprocess executor loads again (`pipelines.parallel`)."""
    return build_definitions(
        Inputs.model_validate_json(inputs_json) if inputs_json else None,
        Warehouse.model_validate_json(warehouse_json) if warehouse_json else None,
    ).resolve_job_def("scan_dump_runs")
