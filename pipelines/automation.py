"""Jobs, the nightly schedule and the drop-folder sensor; MLPerf rounds: their ingestion job, the
nightly round refresh, the round sensor and the rebuild after a round is ingested; freshness checks
and their sensor.

Schedules and sensors start RUNNING when a daemon loads the definitions (`dagster dev` or
dagster-daemon): a deployment ingests new rounds and dumps by itself; stop one in the UI to pause it.
"""


import datetime
import hashlib
import json
import warnings
from pathlib import Path

import dagster as dg

from assets.fetch import sha256_file, walk_files
from assets.mlperf import MLPERF_ROUND_ASSETS, load_sources, round_run_config
from assets.mlperf_discovery import discover
from assets.observed import DUMP_TABLES
from assets.warehouse import IngestError
from pipelines.partitions import MLPERF_ROUND_PARTITIONS, mlperf_rounds
from pipelines.resources import Inputs

_ROUND_SELECTION = dg.AssetSelection.assets(*MLPERF_ROUND_ASSETS)

ingest_mlperf_round = dg.define_asset_job(
    "ingest_mlperf_round",
    selection=_ROUND_SELECTION,
    partitions_def=mlperf_rounds,
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

refresh_observed = dg.define_asset_job(
    "refresh_observed",
    # the run fingerprint too: a publish by this job records an empty one, so `benchbill run` rebuilds after it
    selection=(dg.AssetSelection.keys(*DUMP_TABLES).downstream()
               | dg.AssetSelection.keys(["audit", "run_fingerprint"])),
    description="Re-read the dump folders and rebuild what depends on them; publish.",
    tags={"warehouse": "build"},
)


def dump_checksums(folders: list[str]) -> set[str]:
    """The sha256 of every file's content below the dump folders (names and places do not matter)."""
    checksums = set()
    for folder in sorted(folders):
        root = Path(folder)
        if not root.is_dir():
            checksums.add(f"missing folder {folder}")
            continue
        for path in walk_files(root):
            if path.exists():
                checksums.add(sha256_file(path))  # streamed: a per-request log may be gigabytes
    return checksums


def dumps_fingerprint(folders: list[str]) -> str:
    """A digest of the set of file contents below the dump folders: a new file (or a changed or removed
    one) changes it; the same file copied again under another name or folder does not."""
    return hashlib.sha256("\n".join(sorted(dump_checksums(folders))).encode()).hexdigest()


@dg.sensor(
    name="dump_folder_sensor",
    job=refresh_observed,
    minimum_interval_seconds=60,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Requests a refresh of the observed tables when new content appears in the dump folders "
                "(by content checksum: a re-copied file is not ingested twice).",
)
def dump_folder_sensor(context: dg.SensorEvaluationContext, inputs: Inputs):
    if not inputs.dumps:
        return dg.SkipReason("no dump folders configured (set BENCHBILL_DUMPS)")
    fingerprint = dumps_fingerprint(list(inputs.dumps))
    if fingerprint == context.cursor:
        return dg.SkipReason("no new content in the dump folders (a copy of a file already read changes nothing)")
    context.update_cursor(fingerprint)
    return dg.RunRequest(run_key=fingerprint)


def last_locations(instance: dg.DagsterInstance, round_name: str) -> list[str]:
    """Where the round was last ingested from (the `locations` metadata of its materialization)."""
    records = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=dg.AssetKey(MLPERF_ROUND_ASSETS[0]), asset_partitions=[round_name]),
        limit=1,
    ).records
    if not records or records[0].asset_materialization is None:
        return []
    value = records[0].asset_materialization.metadata.get("locations")
    return list(value.value) if value is not None else []


@dg.schedule(
    name="nightly_refresh",
    job=ingest_mlperf_round,
    cron_schedule="17 3 * * *",
    execution_timezone="UTC",
    default_status=dg.DefaultScheduleStatus.RUNNING,
    description="Re-fetch every known MLPerf round (published tables do get corrected); a round whose "
                "checksums changed replaces its rows and is recorded in audit.mlperf_round_versions.",
)
def nightly_refresh(context: dg.ScheduleEvaluationContext):
    rounds = context.instance.get_dynamic_partitions(MLPERF_ROUND_PARTITIONS)
    if not rounds:
        return dg.SkipReason("no MLPerf round is known yet (the round sensor or `benchbill run` registers them)")
    day = context.scheduled_execution_time.strftime("%Y-%m-%d") if context.scheduled_execution_time else "now"
    requests = []
    for round_name in rounds:
        locations = last_locations(context.instance, round_name)
        requests.append(dg.RunRequest(run_key=f"{round_name}:{day}", partition_key=round_name,
                                      run_config=round_run_config(locations) if locations else {}))
    return requests


@dg.sensor(
    name="mlperf_round_sensor",
    job=ingest_mlperf_round,
    minimum_interval_seconds=6 * 3600,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Finds MLPerf rounds that are new (in the sources file, or a new inference_results_v* "
                "repository with a round table, through GitHub's API) or whose table changed; registers "
                "the round as a partition and requests its ingestion.",
)
def mlperf_round_sensor(context: dg.SensorEvaluationContext, inputs: Inputs):
    sources = load_sources(inputs.sources_file)
    known = set(context.instance.get_dynamic_partitions(MLPERF_ROUND_PARTITIONS))
    cursor = json.loads(context.cursor) if context.cursor else {}
    new_rounds: list[str] = []
    requests: list[dg.RunRequest] = []
    for round_name in sources.round_names:
        if round_name not in known:
            new_rounds.append(round_name)
            requests.append(dg.RunRequest(run_key=f"{round_name}:sources", partition_key=round_name))
    if sources.discovery is not None:
        d = sources.discovery
        try:
            found, cursor = discover(d.api, d.owner, d.repository_pattern, d.table_files, sources.allowed_hosts,
                                     cursor)
        except IngestError as exc:
            return dg.SkipReason(f"round discovery failed, will retry: {exc}")
        for item in found:
            if item.round not in known and item.round not in new_rounds:
                new_rounds.append(item.round)
            requests = [r for r in requests if r.partition_key != item.round]
            requests.append(dg.RunRequest(run_key=f"{item.round}:{item.sha}", partition_key=item.round,
                                          run_config=round_run_config([item.url])))
    if not requests:
        return dg.SensorResult(skip_reason="no new or changed MLPerf round", cursor=json.dumps(cursor, sort_keys=True))
    return dg.SensorResult(
        run_requests=requests,
        dynamic_partitions_requests=[mlperf_rounds.build_add_request(new_rounds)] if new_rounds else [],
        cursor=json.dumps(cursor, sort_keys=True),
    )


@dg.run_status_sensor(
    name="rebuild_after_round_ingest",
    run_status=dg.DagsterRunStatus.SUCCESS,
    monitored_jobs=[ingest_mlperf_round],
    request_job=build_warehouse,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="After a round's ingestion succeeds, rebuild the tables that depend on it and publish.",
)
def rebuild_after_round_ingest(context: dg.RunStatusSensorContext):
    return dg.RunRequest(run_key=context.dagster_run.run_id)


# Everything is rebuilt at least nightly: older than a day and two hours means a refresh did not run.
# Dagster 1.13 prefers FreshnessPolicy (shown in the UI, not an asset check); these are asset checks,
# so they also run in every build and show in the CLI and in each run's log.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", dg.SupersessionWarning)
    freshness_checks = dg.build_last_update_freshness_checks(
        assets=[["publish", "serving_duckdb"]],
        lower_bound_delta=datetime.timedelta(hours=26),
    )
    freshness_sensor = dg.build_sensor_for_freshness_checks(
        freshness_checks=freshness_checks,
        name="freshness_checks_sensor",
        minimum_interval_seconds=600,
        default_status=dg.DefaultSensorStatus.RUNNING,
    )
