"""The job scan_dump_runs on an executor that starts a process per step: its steps load the job again from
`pipelines.definitions.scan_dump_runs_job`, bound to the inputs and warehouse passed as its arguments."""

from __future__ import annotations

import tempfile

import dagster as dg

from assets.resources import Inputs, Warehouse

# What every step process needs, imported once by the server the step processes fork from (Dagster's `forkserver`
# start method) rather than by each step process again (`spawn`, Dagster's default): Dagster, the engines, the
# definitions, and the modules of the local instance's storages, launcher and coordinator, which a step imports
# when it opens the instance (sqlite, sqlalchemy and alembic behind them). README "In parallel": ~5 s a step
# process spawned on this machine, well under one forked.
STEP_PRELOAD = [
    "dagster",
    "duckdb",
    "polars",
    "pyarrow",
    "pipelines.definitions",
    "dagster._core.run_coordinator",
    "dagster._core.scheduler",
    "dagster._core.storage.event_log",
    "dagster._core.storage.local_compute_log_manager",
    "dagster._core.storage.root",
    "dagster._core.storage.runs",
    "dagster._core.storage.schedules",
    "dagster._core.storage.sqlite_storage",
]


def start_step_server() -> None:
    """Start the server the step processes fork from now (it imports STEP_PRELOAD in its own process), so that its
    start overlaps what the caller does before it runs the job; the multiprocess executor then finds it running."""
    import multiprocessing
    from multiprocessing import forkserver

    multiprocessing.get_context("forkserver")
    # the module Dagster puts first in the preload list (dagster._core.executor.multiprocess) is imported too
    forkserver.set_forkserver_preload(["dagster._core.executor.multiprocess", *STEP_PRELOAD])
    forkserver.ensure_running()


def scan_in_processes(
    inputs: Inputs,
    warehouse: Warehouse,
    mode: str = "multiprocess",
    max_concurrent: int | None = None,
    start_method: str = "forkserver",
) -> dg.ExecuteJobResult:
    """scan_dump_runs for `inputs`, storing into `warehouse`'s run store, in `mode` (multiprocess: a process per
    step, at most `max_concurrent` at once, forked from a server that imported what the steps need once, or with
    `start_method` "spawn" each started afresh), on a Dagster instance of its own in a temporary folder (the
    multiprocess executor needs one on disk). The caller holds the writer lock; the steps write only their
    partitions' results."""
    from pipelines.jobs import executor_run_config

    # The inputs and warehouse travel with the job's address, not through the environment: a step forked from a
    # server that an earlier run started has that run's environment.
    job = dg.build_reconstructable_job(
        "pipelines.definitions",
        "scan_dump_runs_job",
        reconstructable_kwargs={"inputs_json": inputs.model_dump_json(), "warehouse_json": warehouse.model_dump_json()},
    )
    with tempfile.TemporaryDirectory(prefix="benchbill-dagster-") as home:
        with dg.DagsterInstance.local_temp(home) as instance:
            preload = STEP_PRELOAD if start_method == "forkserver" else None
            run_config = {"loggers": {"progress": {}}, **executor_run_config(mode, max_concurrent, preload)}
            return dg.execute_job(job, instance=instance, run_config=run_config, raise_on_error=False)
