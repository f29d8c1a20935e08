"""The nightly schedule: re-ingest every known MLPerf round (published tables do get corrected).

Schedules start RUNNING when a daemon loads the definitions (`make dev`, i.e. `dg dev`, or dagster-daemon); stop one in
the UI to pause it.
"""

import dagster as dg

from assets.partitions import MLPERF_ROUND_PARTITIONS
from pipelines.jobs import ingest_mlperf_round, round_run_config


def last_locations(instance: dg.DagsterInstance, round_name: str) -> list[str]:
    """Where the round was last ingested from (the `locations` metadata of its materialization)."""
    records = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=dg.AssetKey(["benchmark", "mlperf_results"]), asset_partitions=[round_name]),
        limit=1,
    ).records
    if not records or records[0].asset_materialization is None:
        return []
    value = records[0].asset_materialization.metadata.get("locations")
    return [str(v) for v in value.value] if value is not None and isinstance(value.value, list) else []


@dg.schedule(
    name="nightly_refresh",
    job=ingest_mlperf_round,
    cron_schedule="17 3 * * *",
    execution_timezone="UTC",
    default_status=dg.DefaultScheduleStatus.RUNNING,
    description="Re-fetch every known MLPerf round (published tables do get corrected); a round whose "
    "checksums changed replaces its rows and is recorded in audit.mlperf_round_versions.",
)
def nightly_refresh(context: dg.ScheduleEvaluationContext) -> list[dg.RunRequest] | dg.SkipReason:
    rounds = context.instance.get_dynamic_partitions(MLPERF_ROUND_PARTITIONS)
    if not rounds:
        return dg.SkipReason("no MLPerf round is known yet (the round sensor or `benchbill run` registers them)")
    day = context.scheduled_execution_time.strftime("%Y-%m-%d") if context.scheduled_execution_time else "now"
    requests = []
    for round_name in rounds:
        locations = last_locations(context.instance, round_name)
        requests.append(
            dg.RunRequest(
                run_key=f"{round_name}:{day}",
                partition_key=round_name,
                run_config=round_run_config(locations) if locations else {},
            )
        )
    return requests
