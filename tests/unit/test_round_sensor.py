"""The round sensor starts offline: the rounds the operator named (BENCHBILL_MLPERF, else the sources file) are
registered and requested on the first tick whatever discovery does; a failed discovery is a warning retried on
its own clock; a named file that changes is ingested again; the daemon's sensor passes each round its files."""

import datetime
import json
import os

import dagster as dg

from assets.config.sources import load_sources
from assets.core.errors import IngestError
from assets.mlperf_rounds import watch
from assets.mlperf_rounds.discovery import FoundRound
from assets.mlperf_rounds.ingest import read_locations
from assets.mlperf_rounds.watch import DISCOVERY_INTERVAL_S, DISCOVERY_RETRY_S, evaluate
from assets.resources import Inputs
from pipelines.definitions import build_definitions
from pipelines.jobs import round_run_config

DISCOVERY = (
    "discovery:\n  api: http://127.0.0.1:9\n  owner: mlcommons\n"
    "  repository_pattern: '^inference_results_v(\\d+\\.\\d+)$'\n  table_files: [summary_results.json]\n"
)


def table(path, version: str, n: int = 2):
    """A round table (summary_results.json form) of `n` made-up closed Offline results of round `version`."""
    records = [
        {
            "ID": f"{version}-{i}",
            "Submitter": "Acme",
            "Category": "closed",
            "Suite": "datacenter",
            "Platform": f"box{i}",
            "System": f"Acme box{i} (1x NVIDIA H100 80GB HBM3, TensorRT)",
            "Model": "llama2-70b-99",
            "Scenario": "Offline",
            "Performance_Result": 100.0 + i,
            "Performance_Units": "Tokens/s",
            "Nodes": 1,
            "Accelerator": "NVIDIA H100 80GB HBM3",
            "a#": 1,
            "version": version,
        }
        for i in range(n)
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(records))
    return str(path)


def offline(*_args, **_kwargs):
    raise IngestError("http://127.0.0.1:9/orgs/mlcommons/repos?per_page=100&page=1: connection refused")


def sources_file(tmp_path, rounds: str = "[]", discovery: str = DISCOVERY):
    path = tmp_path / "sources.yaml"
    path.write_text(f"allowed_hosts: ['127.0.0.1']\nrounds: {rounds}\n{discovery}")
    return load_sources(path)


def test_named_files_are_registered_and_requested_on_the_first_tick_although_discovery_fails(tmp_path):
    v41 = table(tmp_path / "v4.1" / "summary_results.json", "v4.1")
    v51 = table(tmp_path / "v5.1" / "summary_results.json", "v5.1")
    tick = evaluate(sources_file(tmp_path), [v51, v41], set(), None, now=1000.0, find=offline)
    assert [(r.round, r.locations) for r in tick.requests] == [("v4.1", [v41]), ("v5.1", [v51])]
    assert tick.new_rounds == ["v4.1", "v5.1"]
    (warning,) = tick.warnings
    assert "round discovery through http://127.0.0.1:9 failed, retried in 15 minutes" in warning
    assert "connection refused" in warning and "BENCHBILL_MLPERF" in warning
    assert tick.cursor["discovery_due_at"] == 1000.0 + DISCOVERY_RETRY_S


def test_sources_file_rounds_are_requested_offline_and_discovery_waits_for_its_retry(tmp_path):
    rounds = "[{round: v4.1, url: 'http://127.0.0.1:9/v4.1.json'}]"
    calls = []

    def counting(*args, **kwargs):
        calls.append(args)
        return offline()

    first = evaluate(sources_file(tmp_path, rounds), [], set(), None, now=0.0, find=counting)
    assert [(r.round, r.locations) for r in first.requests] == [("v4.1", ["http://127.0.0.1:9/v4.1.json"])]
    cursor = json.dumps(first.cursor)
    # registered now: nothing more to request, and discovery is not tried again before its retry time
    soon = evaluate(sources_file(tmp_path, rounds), [], {"v4.1"}, cursor, now=DISCOVERY_RETRY_S - 1, find=counting)
    assert soon.requests == [] and soon.warnings == [] and len(calls) == 1
    later = evaluate(sources_file(tmp_path, rounds), [], {"v4.1"}, cursor, now=DISCOVERY_RETRY_S, find=counting)
    assert later.requests == [] and len(later.warnings) == 1 and len(calls) == 2


def test_a_successful_discovery_waits_six_hours_and_its_table_wins_for_its_round(tmp_path):
    v51 = table(tmp_path / "summary_results.json", "v5.1")
    found = FoundRound("v5.1", "inference_results_v5.1", "https://example.invalid/v5.1.json", "sha-1")

    def online(api, owner, pattern, table_files, hosts, cursor):
        return [found], {"inference_results_v5.1": {"pushed_at": "t", "sha": "sha-1"}}

    tick = evaluate(sources_file(tmp_path), [v51], set(), None, now=0.0, find=online)
    assert [(r.round, r.locations, r.run_key) for r in tick.requests] == [
        ("v5.1", ["https://example.invalid/v5.1.json"], "v5.1:sha-1")
    ]
    assert tick.warnings == [] and tick.cursor["discovery_due_at"] == DISCOVERY_INTERVAL_S
    # the named file is unchanged: the next tick requests nothing (the discovered table is not re-requested either)
    again = evaluate(sources_file(tmp_path), [v51], {"v5.1"}, json.dumps(tick.cursor), now=60.0, find=offline)
    assert again.requests == [] and again.warnings == []


def test_a_named_file_that_changes_is_ingested_again_and_an_unchanged_one_is_not_reread(tmp_path, monkeypatch):
    path = tmp_path / "summary_results.json"
    v51 = table(path, "v5.1")
    no_discovery = sources_file(tmp_path, discovery="")
    reads = []

    def counted(locations, hosts):
        reads.append(locations)
        return read_locations(locations, hosts)

    monkeypatch.setattr(watch, "read_locations", counted)
    first = evaluate(no_discovery, [v51], set(), None, now=0.0)
    cursor = json.dumps(first.cursor)
    assert evaluate(no_discovery, [v51], {"v5.1"}, cursor, now=1.0).requests == [] and len(reads) == 1
    table(path, "v5.1", n=3)
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    (request,) = evaluate(no_discovery, [v51], {"v5.1"}, cursor, now=2.0).requests
    assert request.round == "v5.1" and request.run_key != first.requests[0].run_key and len(reads) == 2


def test_an_unreadable_named_location_is_a_warning_and_the_others_are_requested(tmp_path):
    v41 = table(tmp_path / "summary_results.json", "v4.1")
    missing = str(tmp_path / "gone.json")
    tick = evaluate(sources_file(tmp_path, discovery=""), [missing, v41], set(), None, now=0.0)
    assert [r.round for r in tick.requests] == ["v4.1"]
    assert any(missing in w and "no such file" in w for w in tick.warnings)


def test_a_cursor_of_the_older_form_keeps_discovery_state_and_counts_known_rounds_as_ingested(tmp_path):
    rounds = "[{round: v4.1, url: 'http://127.0.0.1:9/v4.1.json'}]"
    older = json.dumps({"inference_results_v5.1": {"pushed_at": "t", "sha": "s"}})
    seen = []

    def online(api, owner, pattern, table_files, hosts, cursor):
        seen.append(cursor)
        return [], cursor

    tick = evaluate(sources_file(tmp_path, rounds), [], {"v4.1"}, older, now=0.0, find=online)
    assert tick.requests == [] and seen == [{"inference_results_v5.1": {"pushed_at": "t", "sha": "s"}}]


def test_the_daemon_sensor_registers_the_rounds_and_passes_each_its_files(tmp_path):
    v41 = table(tmp_path / "v4.1" / "summary_results.json", "v4.1")
    v51 = table(tmp_path / "v5.1" / "summary_results.json", "v5.1")
    sources = tmp_path / "sources.yaml"
    sources.write_text(f"allowed_hosts: ['127.0.0.1']\nrounds: []\n{DISCOVERY}")
    inputs = Inputs(sources_file=str(sources), mlperf=[v41, v51])
    sensor = build_definitions(inputs).resolve_sensor_def("mlperf_round_sensor")
    with dg.instance_for_test() as instance:
        with dg.build_sensor_context(instance=instance, resources={"inputs": inputs}) as context:
            result = sensor(context)
    assert [(r.partition_key, r.run_config) for r in result.run_requests] == [
        ("v4.1", round_run_config([v41])),
        ("v5.1", round_run_config([v51])),
    ]
    assert result.dynamic_partitions_requests[0].partition_keys == ["v4.1", "v5.1"]
    assert sensor.minimum_interval_seconds <= DISCOVERY_RETRY_S


def test_the_nightly_schedule_re_ingests_every_round_the_sensor_registered(tmp_path):
    v41 = table(tmp_path / "v4.1" / "summary_results.json", "v4.1")
    v51 = table(tmp_path / "v5.1" / "summary_results.json", "v5.1")
    sources = tmp_path / "sources.yaml"
    sources.write_text("allowed_hosts: []\nrounds: []\n")
    inputs = Inputs(sources_file=str(sources), mlperf=[v41, v51])
    definitions = build_definitions(inputs)
    sensor = definitions.resolve_sensor_def("mlperf_round_sensor")
    schedule = definitions.resolve_schedule_def("nightly_refresh")
    with dg.instance_for_test() as instance:
        with dg.build_sensor_context(instance=instance, resources={"inputs": inputs}) as context:
            (registered,) = sensor(context).dynamic_partitions_requests
        instance.add_dynamic_partitions(registered.partitions_def_name, list(registered.partition_keys))
        when = datetime.datetime(2026, 12, 2, 3, 17, tzinfo=datetime.UTC)
        with dg.build_schedule_context(
            instance=instance, scheduled_execution_time=when, resources={"inputs": inputs}
        ) as context:
            requests = schedule(context)
    # never ingested yet: no location recorded, so each run reads BENCHBILL_MLPERF for its round
    assert sorted((r.partition_key, r.run_key, r.run_config) for r in requests) == [
        ("v4.1", "v4.1:2026-12-02", {}),
        ("v5.1", "v5.1:2026-12-02", {}),
    ]
