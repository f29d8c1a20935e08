"""MLPerf rounds from the real files: sources merged to one row per result, corrections recorded with both
sources, re-ingestion replacing one round, the nightly refresh, the round sensor against a GitHub API
served on loopback."""

import datetime
import json
import time

import dagster as dg
import duckdb
import polars as pl
import pytest

from assets.mlperf_rounds.ingest import read_locations
from assets.partitions import MLPERF_ROUND_PARTITIONS
from pipelines.jobs import round_run_config
from schemas.benchmark.mlperf_source_disagreements import MlperfSourceDisagreements
from tests.support.data import DATA, V41_TABLE, V51_TABLE
from tests.support.httpserver import ScriptedServer

V51_TREES = DATA / "mlperf" / "submissions" / "v5.1"


# --- one row per result across the real v5.1 sources -------------------------------------


def test_v51_table_trees_and_pages_give_one_row_per_result_and_agree():
    batch = read_locations([str(V51_TABLE), str(V51_TREES)], [])
    assert len(batch.rows) == 1448 and batch.rejects == []
    assert {r["source_format"] for r in batch.rows} == {"summary_results_json"}
    assert len(batch.conditions) == 16
    assert batch.disagreements == []


def test_a_corrected_value_and_precision_are_recorded_with_both_sources(tmp_path):
    records = json.loads(V51_TABLE.read_text())
    for record in records:
        if (
            record["Platform"] == "8xMI300X_2xEPYC_9575F"
            and record["UsedModel"] == "llama2-70b-99"
            and record["Scenario"] == "Offline"
        ):
            record["Performance_Result"] = 28000.0
            record["weight_data_types"] = "fp16"
    table = tmp_path / "summary_results.json"
    table.write_text(json.dumps(records))
    batch = read_locations([str(table), str(V51_TREES / "closed" / "AMD")], [])
    found = {(d["field"], d["other_source_format"]): d for d in batch.disagreements}
    value = found[("result_value", "submission_tree")]
    assert (value["kept_value"], value["other_value"]) == ("28000.0", "27803.9")
    assert value["kept_source"] == str(table) and value["other_location"].endswith("llama2-70b-99/Offline")
    assert value["relative_difference"] == pytest.approx((27803.9 - 28000) / 28000)
    assert found[("precision", "submission_tree")]["other_value"] == "fp8"
    # the page prints 27803.90: it disagrees with the corrected table too, not with the tree
    assert found[("result_value", "summary_html")]["other_value"] == "27803.9"
    assert len(batch.disagreements) == 3
    frame = pl.DataFrame(batch.disagreements)
    assert MlperfSourceDisagreements.validate(frame).height == 3


# --- the partitioned ingestion, versions, schedule and sensor ------------------------------


def ingest(definitions, instance, round_name, locations):
    instance.add_dynamic_partitions(MLPERF_ROUND_PARTITIONS, [round_name])
    result = definitions.resolve_job_def("ingest_mlperf_round").execute_in_process(
        instance=instance, partition_key=round_name, run_config=round_run_config(locations)
    )
    assert result.success
    return result


def test_reingesting_a_round_replaces_only_its_rows_and_records_the_correction(round_setup, tmp_path):
    definitions, instance, warehouse, _inputs, _sources = round_setup
    ingest(definitions, instance, "v4.1", [str(V41_TABLE)])
    ingest(definitions, instance, "v5.1", [str(V51_TABLE)])
    corrected = tmp_path / "v5.1" / "summary_results.json"
    corrected.parent.mkdir()
    records = json.loads(V51_TABLE.read_text())
    records[0]["Performance_Result"] = records[0]["Performance_Result"] * 2
    corrected.write_text(json.dumps(records[:-1]))
    ingest(definitions, instance, "v5.1", [str(corrected)])
    ingest(definitions, instance, "v5.1", [str(corrected)])  # unchanged: no new version
    with duckdb.connect(str(warehouse.build_path), read_only=True) as conn:
        counts = dict(conn.execute("SELECT round, count(*) FROM benchmark.mlperf_results GROUP BY ALL").fetchall())
        versions = conn.execute(
            "SELECT round, version, change, rows, rows_added, rows_removed, values_changed "
            "FROM audit.mlperf_round_versions ORDER BY ALL"
        ).fetchall()
        scopes = conn.execute(
            "SELECT DISTINCT scope FROM audit.source_files WHERE table_name = 'benchmark.mlperf_results' ORDER BY 1"
        ).fetchall()
    assert counts == {"v4.1": 937, "v5.1": 1447}
    assert versions == [
        ("v4.1", 1, "new", 937, 937, 0, 0),
        ("v5.1", 1, "new", 1448, 1448, 0, 0),
        ("v5.1", 2, "corrected", 1447, 0, 1, 1),
    ]
    assert scopes == [("round=v4.1",), ("round=v5.1",)]


def test_nightly_schedule_requests_every_known_round_from_where_it_came(round_setup):
    definitions, instance, _warehouse, inputs, _sources = round_setup
    schedule = definitions.resolve_schedule_def("nightly_refresh")
    with dg.build_schedule_context(instance=instance, resources={"inputs": inputs}) as context:
        assert isinstance(schedule(context), dg.SkipReason)
    ingest(definitions, instance, "v4.1", [str(V41_TABLE)])
    when = datetime.datetime(2026, 7, 1, 3, 17, tzinfo=datetime.UTC)
    with dg.build_schedule_context(
        instance=instance, scheduled_execution_time=when, resources={"inputs": inputs}
    ) as context:
        (request,) = schedule(context)
    assert (request.partition_key, request.run_key) == ("v4.1", "v4.1:2026-07-01")
    assert request.run_config == round_run_config([str(V41_TABLE)])


def github(server, pushed_at, sha):
    server.respond(
        "/orgs/mlcommons/repos?per_page=100&page=1",
        (
            200,
            {},
            json.dumps(
                [
                    {"name": "inference_results_v5.1", "pushed_at": pushed_at},
                    {"name": "inference_results_v3.0", "pushed_at": "2023-04-01T00:00:00Z"},
                    {"name": "inference", "pushed_at": pushed_at},
                ]
            ).encode(),
        ),
    )
    server.respond(
        "/repos/mlcommons/inference_results_v5.1/contents/",
        (
            200,
            {},
            json.dumps(
                [
                    {"name": "README.md", "type": "file", "sha": "r", "download_url": server.url("/raw/README.md")},
                    {
                        "name": "summary_results.json",
                        "type": "file",
                        "sha": sha,
                        "download_url": server.url("/raw/v5.1/summary_results.json"),
                    },
                ]
            ).encode(),
        ),
    )
    server.respond(
        "/repos/mlcommons/inference_results_v3.0/contents/",
        (200, {}, json.dumps([{"name": "closed", "type": "dir", "sha": "d", "download_url": None}]).encode()),
    )
    server.respond("/raw/v5.1/summary_results.json", (200, {}, V51_TABLE.read_bytes()))


def due_now(cursor: str) -> str:
    """The cursor with discovery due at once (otherwise it waits 6 h after a success, 15 min after a failure)."""
    return json.dumps(json.loads(cursor) | {"discovery_due_at": 0})


def test_round_sensor_discovers_new_rounds_through_the_api_with_a_cursor(round_setup):
    definitions, instance, warehouse, inputs, sources = round_setup
    sensor = definitions.resolve_sensor_def("mlperf_round_sensor")
    with ScriptedServer() as server:
        sources.write_text(
            f"allowed_hosts: ['127.0.0.1']\nrounds: []\ndiscovery:\n  api: {server.url('')}\n"
            "  owner: mlcommons\n  repository_pattern: '^inference_results_v(\\d+\\.\\d+)$'\n"
            "  table_files: [summary_results.json, summary.json]\n"
        )
        github(server, "2025-09-01T00:00:00Z", "sha-1")
        with dg.build_sensor_context(instance=instance, resources={"inputs": inputs}) as context:
            first = sensor(context)
        (request,) = first.run_requests
        assert first.dynamic_partitions_requests[0].partition_keys == ["v5.1"]
        assert (request.partition_key, request.run_key) == ("v5.1", "v5.1:sha-1")
        assert request.run_config == round_run_config([server.url("/raw/v5.1/summary_results.json")])

        # the requested run fetches the table from where the API said it is
        ingest(
            definitions, instance, "v5.1", request.run_config["ops"]["benchmark__mlperf_results"]["config"]["locations"]
        )
        with duckdb.connect(str(warehouse.build_path), read_only=True) as conn:
            assert conn.execute("SELECT count(*) FROM benchmark.mlperf_results").fetchone() == (1448,)

        contents_hits = server.hits["/repos/mlcommons/inference_results_v5.1/contents/"]
        with dg.build_sensor_context(
            instance=instance, cursor=due_now(first.cursor), resources={"inputs": inputs}
        ) as context:
            second = sensor(context)
        assert second.run_requests == [] and "no new or changed" in second.skip_reason.skip_message
        assert server.hits["/repos/mlcommons/inference_results_v5.1/contents/"] == contents_hits

        github(server, "2025-10-01T00:00:00Z", "sha-2")  # the published table was corrected
        with dg.build_sensor_context(
            instance=instance, cursor=due_now(second.cursor), resources={"inputs": inputs}
        ) as context:
            third = sensor(context)
        assert [r.run_key for r in third.run_requests] == ["v5.1:sha-2"] and third.dynamic_partitions_requests == []

        server.respond("/orgs/mlcommons/repos?per_page=100&page=1", (403, {}, b"rate limited"))
        with dg.build_sensor_context(
            instance=instance, cursor=due_now(third.cursor), resources={"inputs": inputs}
        ) as context:
            failed = sensor(context)
        # a failed discovery is a warning in the tick (retried in 15 minutes), not a failed tick
        assert failed.run_requests == [] and "HTTP 403" in failed.skip_reason.skip_message
        assert 0 < json.loads(failed.cursor)["discovery_due_at"] - time.time() <= 15 * 60
