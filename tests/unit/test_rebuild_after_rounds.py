"""Rounds ingested together are rebuilt once: the rebuild sensor asks for a build only after the last round ingest
that succeeded (a Dagster instance for tests, with two successful ingest runs)."""

import dagster as dg
from dagster._core.events import DagsterEvent, DagsterEventType
from dagster._core.test_utils import create_run_for_test

from pipelines.sensors import rebuild_after_round_ingest


def succeeded(instance: dg.DagsterInstance) -> dg.DagsterRun:
    run = create_run_for_test(instance, job_name="ingest_mlperf_round")
    for kind in (DagsterEventType.RUN_START, DagsterEventType.RUN_SUCCESS):
        instance.report_dagster_event(DagsterEvent(kind.value, job_name=run.job_name), run_id=run.run_id)
    return instance.get_run_by_id(run.run_id)


def test_two_rounds_ingested_together_ask_for_one_rebuild():
    with dg.instance_for_test() as instance:
        first, last = succeeded(instance), succeeded(instance)
        event = DagsterEvent(DagsterEventType.RUN_SUCCESS.value, job_name="ingest_mlperf_round")
        answers = []
        for run in (first, last):  # one tick sees both successes
            context = dg.build_run_status_sensor_context(
                sensor_name="rebuild_after_round_ingest",
                dagster_event=event,
                dagster_instance=instance,
                dagster_run=run,
            )
            answers.append(rebuild_after_round_ingest(context))
        assert isinstance(answers[0], dg.SkipReason) and last.run_id in answers[0].skip_message
        assert isinstance(answers[1], dg.RunRequest) and answers[1].run_key == last.run_id
