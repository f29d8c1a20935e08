"""The job scan_dump_runs on an executor that starts a process per step: its steps load the job again from
`pipelines.definitions.scan_dump_runs_job`, bound to the inputs and warehouse passed through the environment."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator

import dagster as dg

from assets.resources import Inputs, Warehouse


@contextlib.contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    before = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def scan_in_processes(
    inputs: Inputs, warehouse: Warehouse, mode: str = "multiprocess", max_concurrent: int | None = None
) -> dg.ExecuteJobResult:
    """scan_dump_runs for `inputs`, storing into `warehouse`'s run store, in `mode` (multiprocess: a process per
    run partition, at most `max_concurrent` at once), on a Dagster instance of its own in a temporary folder (the
    multiprocess executor needs one on disk). The caller holds the writer lock; the steps write only their
    partitions' results."""
    from pipelines.definitions import scan_dump_runs_job
    from pipelines.jobs import executor_run_config

    passed = {
        "BENCHBILL_INPUTS_JSON": inputs.model_dump_json(),
        "BENCHBILL_WAREHOUSE": str(warehouse.dir),
        "BENCHBILL_RUN_STORE": warehouse.run_store,
        "BENCHBILL_RUN_STORE_OPTIONS": warehouse.run_store_options,
    }
    run_config = {"loggers": {"progress": {}}, **executor_run_config(mode, max_concurrent)}
    with _environment(passed), tempfile.TemporaryDirectory(prefix="benchbill-dagster-") as home:
        with dg.DagsterInstance.local_temp(home) as instance:
            return dg.execute_job(
                dg.reconstructable(scan_dump_runs_job), instance=instance, run_config=run_config, raise_on_error=False
            )
