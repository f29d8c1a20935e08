"""Jobs: ingest one MLPerf round (a partition), read the dump folders' run partitions, build everything else and
publish, refresh what the dump folders feed. Every job runs in-process and holds the warehouse's writer lock, but
for `scan_dump_runs`, whose executor is a choice (`partition_executor`): its steps, one per run partition, write
only their own stored results, so they may run in parallel processes (or pods) while the run that launched them
holds the lock."""

from typing import Any

import dagster as dg

from assets.benchmark import mlperf_round
from assets.observed import observed_runs, run_partitions
from pipelines import settings

# The executors the run partitions may be read on (BENCHBILL_EXECUTOR, read when the definitions load):
# "local" lets each run choose by its run config (`execution: {config: {in_process: {}}}` or `{multiprocess: {}}`,
# see `executor_run_config`); a deployment adds its own (one pod per step).
EXECUTORS: dict[str, dg.ExecutorDefinition] = {
    "local": dg.multi_or_in_process_executor,
    "in_process": dg.in_process_executor,
    "multiprocess": dg.multiprocess_executor,
}


def partition_executor(name: str) -> dg.ExecutorDefinition:
    """The executor named `name` (EXECUTORS, or "k8s": dagster-k8s's k8s_job_executor, a pod per step, deploy/)."""
    if name == "k8s":
        from dagster_k8s import k8s_job_executor  # imported only where a deployment asks for it

        return k8s_job_executor
    if name not in EXECUTORS:
        raise ValueError(f"BENCHBILL_EXECUTOR={name!r}: expected one of {', '.join([*EXECUTORS, 'k8s'])}")
    return EXECUTORS[name]


def executor_run_config(
    mode: str, max_concurrent: int | None = None, preload: list[str] | None = None
) -> dict[str, Any]:
    """Run config choosing, on the "local" executor, one process (`in_process`) or a process per step
    (`multiprocess`, at most `max_concurrent` at once, default one per core; each step process forked from a
    server that imported the modules `preload` once, or without it started afresh: Dagster's `spawn`)."""
    if mode == "multiprocess":
        start = {"forkserver": {"preload_modules": preload}} if preload else {"spawn": {}}
        return {
            "execution": {"config": {"multiprocess": {"max_concurrent": max_concurrent or 0, "start_method": start}}}
        }
    return {"execution": {"config": {"in_process": {}}}}


_ROUND_SELECTION = dg.AssetSelection.assets(mlperf_round)

ingest_mlperf_round = dg.define_asset_job(
    "ingest_mlperf_round",
    selection=_ROUND_SELECTION,  # partitioned by round: Dagster takes mlperf_round's partitions_def
    description="Ingest one MLPerf round (a partition) from every source that holds it; replaces its rows.",
    tags={"warehouse": "build"},
)

build_warehouse = dg.define_asset_job(
    "build_warehouse",
    selection=dg.AssetSelection.all() - _ROUND_SELECTION,
    description="Read prices, profiles and dumps; rebuild every table from them and the ingested MLPerf "
    "rounds (job ingest_mlperf_round); publish.",
    tags={"warehouse": "build"},
)

scan_dump_runs = dg.define_asset_job(
    "scan_dump_runs",
    selection=dg.AssetSelection.assets(run_partitions),
    description="Read the dump folders' run partitions that changed (one step each) and store their results; "
    "build_warehouse then assembles the observed tables from them.",
    tags={"warehouse": "build"},
    executor_def=partition_executor(settings.executor()),
)

refresh_observed = dg.define_asset_job(
    "refresh_observed",
    # the run fingerprint too: a publish by this job records an empty one, so `benchbill run` rebuilds after it
    selection=(
        dg.AssetSelection.assets(run_partitions, observed_runs).downstream()
        | dg.AssetSelection.assets(dg.AssetKey(["audit", "run_fingerprint"]))
    ),
    description="Re-read the dump folders and rebuild what depends on them; publish.",
    tags={"warehouse": "build"},
)


def round_run_config(locations: list[str]) -> dict[str, Any]:
    """Run config telling a round's partition run where its results are."""
    return {"ops": {mlperf_round.node_def.name: {"config": {"locations": list(locations)}}}}
