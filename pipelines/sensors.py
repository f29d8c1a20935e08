"""Sensors: new content in the dump folders, new or corrected MLPerf rounds, the rebuild after a round is
ingested, and the freshness check's evaluation.

Sensors start RUNNING when a daemon loads the definitions (`make dev`, i.e. `dg dev`, or dagster-daemon): a deployment
ingests new rounds and dumps by itself; stop one in the UI to pause it.
"""

import json
import time
import warnings

import dagster as dg

from assets.config.sources import load_sources
from assets.mlperf_rounds.watch import evaluate
from assets.partitions import MLPERF_ROUND_PARTITIONS, mlperf_rounds
from assets.publish import freshness_checks
from assets.resources import Inputs, Warehouse
from assets.runs.drop_folder import dumps_fingerprint
from assets.warehouse.lock import WarehouseProblem, busy_with
from pipelines.jobs import build_warehouse, ingest_mlperf_round, refresh_observed, round_run_config

# Each tick reads the sources file and stats the named files (cheap); discovery keeps its own clock (watch.py).
ROUND_SENSOR_INTERVAL_S = 5 * 60


@dg.sensor(
    name="dump_folder_sensor",
    job=refresh_observed,
    minimum_interval_seconds=60,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Requests a refresh of the observed tables when new content appears in the dump folders "
    "(by content checksum, with the run.yaml files governing each file: a re-copied file is not ingested twice; a "
    "swap of run.yaml files, a file moved into another run, or a revert to earlier content is); waits for the "
    "warehouse's first build (which reads the dump folders itself); skips while a run holds the warehouse's lock.",
)
def dump_folder_sensor(
    context: dg.SensorEvaluationContext, inputs: Inputs, warehouse: Warehouse
) -> dg.RunRequest | dg.SkipReason:
    if not inputs.dumps:
        return dg.SkipReason("no dump folders configured (set BENCHBILL_DUMPS)")
    if not warehouse.serving_path.exists():  # the cursor stays: the first change is requested after that build
        return dg.SkipReason(
            "waiting for the warehouse's first build (build_warehouse, after the MLPerf rounds are ingested): it "
            "reads the dump folders itself, and a refresh before it has no profiles to join"
        )
    try:
        holder = busy_with(warehouse.layout.lock_path)
    except WarehouseProblem as problem:  # a lock file no run could take either: said on every tick until mended
        return dg.SkipReason(f"the warehouse cannot be locked: {problem}")
    if holder is not None:  # the cursor stays: the change is requested once that run is done
        return dg.SkipReason(f"the warehouse is busy: a run is writing it ({holder}); the next tick looks again")
    fingerprint = dumps_fingerprint(list(inputs.dumps), links_into=inputs.allow_links_into)
    last, changes = read_drop_cursor(context.cursor)
    if fingerprint == last:
        return dg.SkipReason("no new content in the dump folders (a copy of a file already read changes nothing)")
    context.update_cursor(json.dumps({"fingerprint": fingerprint, "changes": changes + 1}))
    return dg.RunRequest(run_key=drop_run_key(fingerprint, changes + 1))


def read_drop_cursor(cursor: str | None) -> tuple[str | None, int]:
    """The drop-folder sensor's cursor: the fingerprint last requested and how many changes it has seen (a cursor
    of an earlier version, the bare fingerprint, counts as none)."""
    if not cursor:
        return None, 0
    try:
        state = json.loads(cursor)
        return str(state["fingerprint"]), int(state["changes"])
    except (ValueError, TypeError, KeyError):
        return cursor, 0


def drop_run_key(fingerprint: str, change: int) -> str:
    """The run key of a change of the dump folders: unique per change (Dagster skips a run key it has seen, so a
    key of the content alone would never ingest a revert to earlier content)."""
    return f"{fingerprint}-{change}"


@dg.sensor(
    name="mlperf_round_sensor",
    job=ingest_mlperf_round,
    minimum_interval_seconds=ROUND_SENSOR_INTERVAL_S,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Registers and ingests every MLPerf round the operator named (BENCHBILL_MLPERF, else the sources "
    "file) from the first tick, offline too, and again when a named file changes; finds new rounds and "
    "corrected tables through GitHub's API every 6 hours (a failed look is a warning, retried in 15 minutes).",
)
def mlperf_round_sensor(context: dg.SensorEvaluationContext, inputs: Inputs) -> dg.SensorResult:
    sources = load_sources(inputs.sources_file)
    known = set(context.instance.get_dynamic_partitions(MLPERF_ROUND_PARTITIONS))
    tick = evaluate(sources, list(inputs.mlperf), known, context.cursor, time.time())
    for warning in tick.warnings:
        context.log.warning(warning)
    cursor = json.dumps(tick.cursor, sort_keys=True)
    if not tick.requests:
        reason = "no new or changed MLPerf round"
        return dg.SensorResult(skip_reason="; ".join([reason, *tick.warnings]), cursor=cursor)
    return dg.SensorResult(
        run_requests=[
            dg.RunRequest(run_key=r.run_key, partition_key=r.round, run_config=round_run_config(r.locations))
            for r in tick.requests
        ],
        dynamic_partitions_requests=[mlperf_rounds.build_add_request(tick.new_rounds)] if tick.new_rounds else [],
        cursor=cursor,
    )


@dg.run_status_sensor(
    name="rebuild_after_round_ingest",
    run_status=dg.DagsterRunStatus.SUCCESS,
    monitored_jobs=[ingest_mlperf_round],
    request_job=build_warehouse,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="After a round's ingestion succeeds, rebuild the tables that depend on it and publish (unless a "
    "rebuild is already queued, or another round ingest succeeded after it: that one asks for the rebuild, so "
    "rounds ingested together are built once).",
)
def rebuild_after_round_ingest(context: dg.RunStatusSensorContext) -> dg.RunRequest | dg.SkipReason:
    record = context.instance.get_run_record_by_id(context.dagster_run.run_id)
    ended = (record.end_time if record is not None else None) or 0.0
    later = [
        r
        for r in context.instance.get_run_records(
            filters=dg.RunsFilter(job_name=ingest_mlperf_round.name, statuses=[dg.DagsterRunStatus.SUCCESS]), limit=50
        )
        if r.dagster_run.run_id != context.dagster_run.run_id and (r.end_time or 0.0) > ended
    ]
    if later:  # rounds ingested together (one tick sees each success): the last one's rebuild reads them all
        return dg.SkipReason(
            f"round ingest run {later[0].dagster_run.run_id} succeeded after it: its rebuild builds this round too"
        )
    waiting = context.instance.get_run_records(
        filters=dg.RunsFilter(
            job_name=build_warehouse.name, statuses=[dg.DagsterRunStatus.QUEUED, dg.DagsterRunStatus.NOT_STARTED]
        ),
        limit=1,
    )
    if waiting:
        partition = context.dagster_run.tags.get("dagster/partition", "?")
        return dg.SkipReason(
            f"build_warehouse run {waiting[0].dagster_run.run_id} is queued: it will build round {partition} too"
        )
    return dg.RunRequest(run_key=context.dagster_run.run_id)


with warnings.catch_warnings():
    warnings.simplefilter("ignore", dg.SupersessionWarning)
    freshness_sensor = dg.build_sensor_for_freshness_checks(
        freshness_checks=freshness_checks,
        name="freshness_checks_sensor",
        minimum_interval_seconds=600,
        default_status=dg.DefaultSensorStatus.RUNNING,
    )
