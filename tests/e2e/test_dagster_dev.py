"""`make dev` with no network, driven as an operator drives it, through Dagster's GraphQL API: the round sensor's first
tick registers and ingests every round named in BENCHBILL_MLPERF although GitHub discovery fails (its URL is a
closed loopback port); `build_warehouse` launched through the API succeeds, its asset checks are evaluated and the
catalog holds each table's row count; `make stop` then leaves no process behind."""

import json
import os
import socket
import subprocess
import time
from pathlib import Path

import duckdb
import pytest
import requests
from dagster_graphql import DagsterGraphQLClient, DagsterGraphQLClientError

from pipelines.devserver import PID_FILE, group_members
from tests.support.data import REPO_ROOT, V41_TABLE, V51_TABLE

STARTUP_S = 300  # dg dev on two shared cores: about 1-1.5 min to answer
RUNS_S = 420


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def small_table(source: Path, target: Path, n: int) -> str:
    """The first `n` records of a real round table (the RedHat results of v5.1 among them, when it has them)."""
    records = json.loads(source.read_bytes())
    chosen = [r for r in records if r.get("Submitter") == "RedHat"][:4] + records[:n]
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps(chosen))
    return str(target)


class GraphQL:
    def __init__(self, port: int):
        self.url = f"http://127.0.0.1:{port}/graphql"

    def __call__(self, query: str, **variables) -> dict:
        response = requests.post(self.url, json={"query": query, "variables": variables}, timeout=60)
        response.raise_for_status()
        body = response.json()
        assert "errors" not in body, body["errors"]
        return body["data"]

    def answers(self) -> bool:
        try:
            return bool(self("{ version }")["version"])
        except (requests.RequestException, AssertionError):
            return False


RUNS = """
query Runs($job: String!) {
  runsOrError(filter: {pipelineName: $job}) {
    ... on Runs { results { runId status tags { key value } } }
  }
}
"""

CHECKS = """
{
  assetNodes {
    assetKey { path }
    assetChecksOrError {
      ... on AssetChecks { checks { name executionForLatestMaterialization { runId status } } }
    }
  }
}
"""

RUN_CHECKS = """
query RunChecks($runId: ID!) {
  logsForRun(runId: $runId, limit: 5000) {
    ... on EventConnection {
      events { ... on AssetCheckEvaluationEvent { evaluation { checkName success assetKey { path } } } }
    }
  }
}
"""

ALL_RUNS = "{ runsOrError { ... on Runs { results { runId status } } } }"

LATEST = """
query Latest($path: [String!]!) {
  assetNodes(assetKeys: [{path: $path}]) {
    description
    assetMaterializations(limit: 1) {
      runId
      metadataEntries {
        label
        ... on IntMetadataEntry { intValue }
        ... on TextMetadataEntry { text }
      }
    }
  }
}
"""


def runs(graphql: GraphQL, job: str) -> list[dict]:
    return graphql(RUNS, job=job)["runsOrError"]["results"]


def wait_for(what: str, condition, timeout_s: float, log: Path):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(2)
    pytest.fail(f"{what} not within {timeout_s:.0f} s; the dev server's log:\n{log.read_text()[-6000:]}")


def processes_mentioning(text: str) -> list[tuple[int, str]]:
    """Every live process whose command line or environment mentions `text` (e.g. the test's DAGSTER_HOME)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                continue
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            environ = (entry / "environ").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if text in cmdline or text in environ:
            found.append((int(entry.name), cmdline[:200]))
    return found


def test_make_dev_offline_ingests_every_round_builds_through_graphql_and_make_stop_leaves_nothing(tmp_path):
    home = tmp_path / "dagster_home"
    warehouse = tmp_path / "warehouse"
    v41 = small_table(V41_TABLE, tmp_path / "v4.1" / "summary_results.json", 20)
    v51 = small_table(V51_TABLE, tmp_path / "v5.1" / "summary_results.json", 20)
    closed = free_port()  # nothing listens there: discovery fails at once, as it does without a network
    sources = tmp_path / "sources.yaml"
    sources.write_text(
        f"allowed_hosts: ['127.0.0.1']\nrounds: []\ndiscovery:\n  api: http://127.0.0.1:{closed}\n"
        "  owner: mlcommons\n  repository_pattern: '^inference_results_v(\\d+\\.\\d+)$'\n"
        "  table_files: [summary_results.json, summary.json]\n"
    )
    port = free_port()
    env = os.environ | {"BENCHBILL_MLPERF": f"{v51},{v41}", "BENCHBILL_SOURCES": str(sources)}
    make = ["make", f"DAGSTER_HOME={home}", f"WAREHOUSE={warehouse}", "SHARED=/nonexistent"]
    log = tmp_path / "dev.log"
    with log.open("w") as out:
        dev = subprocess.Popen([*make, f"PORT={port}", "dev"], cwd=REPO_ROOT, env=env, stdout=out, stderr=out)
    graphql = GraphQL(port)
    pgid = None
    try:
        started = time.monotonic()
        wait_for("the webserver", graphql.answers, STARTUP_S, log)
        print(f"webserver answers after {time.monotonic() - started:.0f} s")
        pgid = int((home / PID_FILE).read_text())

        # the sensor's first tick: both rounds registered and ingested, no network
        def ingested():
            done = runs(graphql, "ingest_mlperf_round")
            failed = [r for r in done if r["status"] == "FAILURE"]
            assert not failed, (failed, log.read_text()[-6000:])
            partitions = {
                t["value"]
                for r in done
                if r["status"] == "SUCCESS"
                for t in r["tags"]
                if t["key"] == "dagster/partition"
            }
            return partitions == {"v4.1", "v5.1"}

        wait_for("both rounds ingested", ingested, RUNS_S, log)
        print(f"both rounds ingested after {time.monotonic() - started:.0f} s")
        assert "round discovery through http://127.0.0.1:" in log.read_text()  # the warning, in the daemon's log

        client = DagsterGraphQLClient("127.0.0.1", port_number=port)
        run_id = client.submit_job_execution("build_warehouse", repository_location_name="benchbill")

        def finished():
            status = client.get_run_status(run_id).value
            return status if status in ("SUCCESS", "FAILURE", "CANCELED") else None

        assert wait_for("build_warehouse", finished, RUNS_S, log) == "SUCCESS"
        print(f"build_warehouse succeeded after {time.monotonic() - started:.0f} s")
        # the rebuilds the rebuild sensor requested after each ingestion end too (one writer at a time)
        settled = ("SUCCESS", "FAILURE", "CANCELED")
        wait_for(
            "every run to end",
            lambda: all(r["status"] in settled for r in graphql(ALL_RUNS)["runsOrError"]["results"]),
            RUNS_S,
            log,
        )

        # every asset check ran against its table's latest materialisation (passed or failed, never missing)
        checks = {
            f"{'/'.join(node['assetKey']['path'])}:{check['name']}": check["executionForLatestMaterialization"]
            for node in graphql(CHECKS)["assetNodes"]
            for check in (node["assetChecksOrError"].get("checks") or [])
        }
        assert len(checks) >= 10
        not_evaluated = {name: e for name, e in checks.items() if not e or e["status"] not in ("SUCCEEDED", "FAILED")}
        assert not_evaluated == {}
        mlperf_checks = {name for name in checks if name.startswith("benchmark/mlperf_results:")}
        assert "benchmark/mlperf_results:row_count_per_round" in mlperf_checks and len(mlperf_checks) >= 5
        events = graphql(RUN_CHECKS, runId=run_id)["logsForRun"]["events"]
        in_build = {
            f"{'/'.join(e['evaluation']['assetKey']['path'])}:{e['evaluation']['checkName']}" for e in events if e
        }
        assert in_build == {name for name in checks if not name.startswith("benchmark/mlperf_")}

        # the catalog: each table's row count as the serving file holds it, its name and column schema
        with duckdb.connect(str(warehouse / "serving.duckdb"), read_only=True) as conn:
            for table in ("marts.config_shortlist", "benchmark.accelerator_prices", "requirement.profiles"):
                (node,) = graphql(LATEST, path=table.split("."))["assetNodes"]
                (latest,) = node["assetMaterializations"]
                entries = {e["label"]: e.get("intValue", e.get("text")) for e in latest["metadataEntries"]}
                assert entries["dagster/row_count"] == conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                assert "dagster/column_schema" in entries and entries["dagster/table_name"] == table
                assert len(node["description"]) > 30
            assert conn.execute("SELECT count(DISTINCT round) FROM benchmark.mlperf_results").fetchone() == (2,)
    except DagsterGraphQLClientError as exc:
        pytest.fail(f"GraphQL: {exc}; the dev server's log:\n{log.read_text()[-6000:]}")
    finally:
        stopping = time.monotonic()
        stopped = subprocess.run([*make, "stop"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
        dev.wait(timeout=60)
        print(f"make stop took {time.monotonic() - stopping:.0f} s")
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    assert pgid is not None and group_members(pgid) == []
    assert processes_mentioning(str(home)) == []
    assert not (home / PID_FILE).exists()
