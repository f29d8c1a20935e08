"""Sensors: new content in the dump folders, new or corrected MLPerf rounds, the rebuild after a round is
ingested, and the freshness check's evaluation.

Sensors start RUNNING when a daemon loads the definitions (`dagster dev` or dagster-daemon): a deployment
ingests new rounds and dumps by itself; stop one in the UI to pause it.
"""

import json
import warnings

import dagster as dg

from assets.config.sources import load_sources
from assets.core.errors import IngestError
from assets.mlperf.discovery import discover
from assets.partitions import MLPERF_ROUND_PARTITIONS, mlperf_rounds
from assets.publish import freshness_checks
from assets.resources import Inputs
from assets.runs.collect import dumps_fingerprint
from pipelines.jobs import build_warehouse, ingest_mlperf_round, refresh_observed, round_run_config


@dg.sensor(
    name="dump_folder_sensor",
    job=refresh_observed,
    minimum_interval_seconds=60,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Requests a refresh of the observed tables when new content appears in the dump folders "
    "(by content checksum: a re-copied file is not ingested twice).",
)
def dump_folder_sensor(context: dg.SensorEvaluationContext, inputs: Inputs) -> dg.RunRequest | dg.SkipReason:
    if not inputs.dumps:
        return dg.SkipReason("no dump folders configured (set BENCHBILL_DUMPS)")
    fingerprint = dumps_fingerprint(list(inputs.dumps), links_into=inputs.allow_links_into)
    if fingerprint == context.cursor:
        return dg.SkipReason("no new content in the dump folders (a copy of a file already read changes nothing)")
    context.update_cursor(fingerprint)
    return dg.RunRequest(run_key=fingerprint)


@dg.sensor(
    name="mlperf_round_sensor",
    job=ingest_mlperf_round,
    minimum_interval_seconds=6 * 3600,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Finds MLPerf rounds that are new (in the sources file, or a new inference_results_v* "
    "repository with a round table, through GitHub's API) or whose table changed; registers "
    "the round as a partition and requests its ingestion.",
)
def mlperf_round_sensor(context: dg.SensorEvaluationContext, inputs: Inputs) -> dg.SensorResult | dg.SkipReason:
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
            found, cursor = discover(d.api, d.owner, d.repository_pattern, d.table_files, sources.allowed_hosts, cursor)
        except IngestError as exc:
            return dg.SkipReason(f"round discovery failed, will retry: {exc}")
        for item in found:
            if item.round not in known and item.round not in new_rounds:
                new_rounds.append(item.round)
            requests = [r for r in requests if r.partition_key != item.round]
            requests.append(
                dg.RunRequest(
                    run_key=f"{item.round}:{item.sha}",
                    partition_key=item.round,
                    run_config=round_run_config([item.url]),
                )
            )
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
def rebuild_after_round_ingest(context: dg.RunStatusSensorContext) -> dg.RunRequest:
    return dg.RunRequest(run_key=context.dagster_run.run_id)


with warnings.catch_warnings():
    warnings.simplefilter("ignore", dg.SupersessionWarning)
    freshness_sensor = dg.build_sensor_for_freshness_checks(
        freshness_checks=freshness_checks,
        name="freshness_checks_sensor",
        minimum_interval_seconds=600,
        default_status=dg.DefaultSensorStatus.RUNNING,
    )
