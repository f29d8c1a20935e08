"""`benchbill run` with its run store on S3 (BENCHBILL_RUN_STORE, moto's S3 server on loopback): the run
partitions read in their own processes (the multiprocess executor, as pods would) store into the bucket, the run
publishes what a run with the warehouse folder publishes, and `benchbill sql` reads observed.requests from S3
(through the store's filesystem, with DuckDB's external access off)."""

import json
from pathlib import Path

import duckdb
import pytest

from assets.warehouse.objectstore import ObjectStore
from pipelines.cli import main
from tests.support.data import DATA, V51_TABLE
from tests.support.observed import dumps_folder
from tests.support.runstore import BUCKET, SWEEPS, s3_bucket
from tests.support.tables import file_contents, table_contents

STORE = f"s3://{BUCKET}/e2e"


def run(dumps: Path, warehouse: Path, *extra: str) -> None:
    args = ["run", "--mlperf", str(V51_TABLE), "--dumps", str(dumps), "--allow-links-into", str(DATA)]
    assert main([*args, "--warehouse", str(warehouse), *extra]) == 0


# Its own warehouses: one with the run store on S3 against one beside it, from the same small dumps.
@pytest.fixture(scope="module")
def published(tmp_path_factory):
    """One warehouse built with the run store in its folder, one with it on S3 (partitions on the multiprocess
    executor); the bucket's filesystem and options."""
    root = tmp_path_factory.mktemp("run-store-e2e")
    dumps = dumps_folder(root / "dumps", SWEEPS)
    with s3_bucket() as (fs, options), pytest.MonkeyPatch.context() as env:
        run(dumps, root / "local")
        env.setenv("BENCHBILL_RUN_STORE", STORE)
        env.setenv("BENCHBILL_RUN_STORE_OPTIONS", options)
        run(dumps, root / "remote", "--executor", "multiprocess")
        yield root, fs, options


def sql_json(warehouse: Path, query: str, capsys) -> list[dict]:
    capsys.readouterr()
    assert main(["sql", "--warehouse", str(warehouse), query, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_run_on_s3_publishes_what_the_run_on_the_warehouse_folder_publishes(published):
    root, _fs, options = published
    with duckdb.connect(str(root / "remote" / "serving.duckdb"), read_only=True) as conn:
        ObjectStore(STORE, options).register(conn)  # a reader of the serving file needs the store's filesystem
        on_s3 = table_contents(conn)
    assert on_s3 == file_contents(root / "local" / "serving.duckdb")
    assert on_s3["observed.requests"] and on_s3["marts.config_shortlist"]
    assert not (root / "remote" / "runs").exists() and not (root / "remote" / "records").exists()


def test_the_partitions_the_multiprocess_job_stored_in_the_bucket_are_reused_by_the_build(published):
    _root, fs, _options = published
    partitions = json.loads(fs.cat_file(f"{BUCKET}/e2e/runs/index.json"))
    assert len(partitions) == len(SWEEPS)
    # read by the multiprocess job, then reused by build_warehouse in the run's own process
    assert not any(p["scanned"] for p in partitions)
    assert len(fs.ls(f"{BUCKET}/e2e/records")) == 1


def test_benchbill_sql_reads_the_requests_from_s3(published, capsys):
    root, _fs, _options = published
    query = "SELECT source, count(*) AS n FROM observed.requests GROUP BY source ORDER BY source"
    with pytest.MonkeyPatch.context() as env:
        env.setenv("BENCHBILL_RUN_STORE_OPTIONS", published[2])
        on_s3 = sql_json(root / "remote", query, capsys)
    assert on_s3 == sql_json(root / "local", query, capsys)
    jsonl = SWEEPS["c1"] / "profile_export.jsonl"
    lines = sum(1 for line in jsonl.read_text().splitlines() if line.strip())  # one request per line
    assert [r["n"] for r in on_s3 if r["source"].endswith("c1/data/profile_export.jsonl")] == [lines]
