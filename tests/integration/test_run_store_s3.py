"""The run store on object storage (BENCHBILL_RUN_STORE=s3://...): the observed layer over real public dumps, its
run partitions and owned records kept in S3 (moto's S3 server on loopback, reached by s3fs), builds the same
observed tables as with the warehouse folder; a second run reuses every stored partition; a partition whose
manifest (written last) is missing is read again, as is one whose records file is gone."""

import json
import socket
from pathlib import Path

import dagster as dg
import duckdb
import pytest

from assets import observed, requirement, sql_tables
from assets.resources import Inputs, RunStore, Warehouse
from tests.support.data import DATA
from tests.support.observed import dumps_folder
from tests.support.runstore import BUCKET, SWEEPS, s3_bucket
from tests.support.tables import table_contents

TABLES = ("observed.load_point_measures", "observed.load_points", "observed.delivered_at_slo")


@pytest.fixture(scope="module")
def s3():
    with s3_bucket() as found:
        yield found


def materialize(dumps: Path, warehouse: Warehouse) -> None:
    """The observed layer (run partitions, observed tables, the SQL-built observed tables) into `warehouse`."""
    resources = {
        "warehouse": warehouse,
        "run_store": RunStore(
            dir=warehouse.dir, run_store=warehouse.run_store, run_store_options=warehouse.run_store_options
        ),
        "inputs": Inputs(dumps=[str(dumps)], allow_links_into=[str(DATA)]),
    }
    tables = [a for a in sql_tables.table_assets if ".".join(a.key.path) in TABLES]
    assets = [observed.run_partitions, observed.run_partition, observed.observed_runs, *tables, requirement.profiles]
    result = dg.materialize(assets, resources=resources, instance=dg.DagsterInstance.ephemeral())
    assert result.success


def contents(warehouse: Warehouse) -> dict[str, list[str]]:
    with warehouse.connect() as conn:  # registers the run store's filesystem: observed.requests reads S3
        return table_contents(conn)


def index(fs, prefix: str) -> dict[str, dict]:
    """The last plan's partitions by sweep, as the run recorded them in the store (runs/index.json)."""
    found = json.loads(fs.cat_file(f"{BUCKET}/{prefix}/runs/index.json"))
    return {r["label"].split(": ")[1]: r for r in found}


@pytest.fixture(scope="module")
def built(s3, tmp_path_factory):
    """The same dumps built with the run store in the warehouse folder and on S3."""
    fs, options = s3
    root = tmp_path_factory.mktemp("run-store")
    dumps = dumps_folder(root / "dumps", SWEEPS)
    local = Warehouse(dir=str(root / "local"))
    remote = Warehouse(dir=str(root / "remote"), run_store=f"s3://{BUCKET}/team/a", run_store_options=options)
    materialize(dumps, local)
    materialize(dumps, remote)
    return dumps, local, remote


def test_the_observed_tables_built_from_s3_equal_those_built_from_the_warehouse_folder(built):
    _dumps, local, remote = built
    on_s3 = contents(remote)
    assert on_s3 == contents(local)
    for table in ("observed.runs", "observed.requests", "observed.load_points", "observed.request_stats"):
        assert on_s3[table], f"{table} is empty: the comparison would prove nothing"
    assert not (Path(remote.dir) / "runs").exists() and not (Path(remote.dir) / "records").exists()


def test_partitions_and_records_are_kept_in_the_bucket_and_the_view_reads_them_there(built, s3):
    fs, _options = s3
    _dumps, local, remote = built
    partitions = index(fs, "team/a")
    assert sorted(partitions) == sorted(SWEEPS) and all(r["scanned"] for r in partitions.values())
    for r in partitions.values():  # each result complete, its manifest among its objects
        assert fs.exists(f"{BUCKET}/team/a/runs/{r['key']}/{r['digest']}/manifest.json")
    local_records = sorted(p.name for p in (Path(local.dir) / "records").iterdir())
    assert local_records and sorted(Path(p).name for p in fs.ls(f"{BUCKET}/team/a/records")) == local_records
    with duckdb.connect(str(remote.build_path), read_only=True) as conn:
        [(view,)] = conn.execute("SELECT sql FROM duckdb_views() WHERE view_name = 'requests'").fetchall()
    assert f"read_parquet('s3://{BUCKET}/team/a/records/{local_records[0]}')" in view


def test_a_second_run_reuses_every_stored_partition_without_reading_a_file(built, s3):
    fs, options = s3
    dumps, _local, remote = built
    before = contents(remote)
    materialize(dumps, remote)
    again = index(fs, "team/a")
    assert not any(r["scanned"] for r in again.values())
    assert sum(r["files_hashed"] for r in again.values()) == 0  # the file states recorded in S3 said unchanged
    assert contents(remote) == before


def test_a_partition_without_its_manifest_or_records_is_read_again(built, s3, tmp_path):
    fs, options = s3
    dumps, local, _remote = built
    remote = Warehouse(dir=str(tmp_path / "remote"), run_store=f"s3://{BUCKET}/team/b", run_store_options=options)
    materialize(dumps, remote)
    first = index(fs, "team/b")
    c16, c1 = first["c16"], first["c1"]
    fs.rm(f"{BUCKET}/team/b/runs/{c16['key']}/{c16['digest']}/manifest.json")  # a step killed before its last PUT
    (record,) = fs.ls(f"{BUCKET}/team/b/records")  # c1's records
    fs.rm(record)
    materialize(dumps, remote)
    again = index(fs, "team/b")
    assert {name: r["scanned"] for name, r in again.items()} == {
        "c16": True,  # no manifest: absent
        "c1": True,  # its records file gone
        "rohan": False,
        "llmperf": False,
    }
    assert again["c16"]["digest"] == c16["digest"] and again["c1"]["digest"] == c1["digest"]
    assert fs.exists(f"{BUCKET}/team/b/runs/{c16['key']}/{c16['digest']}/manifest.json") and fs.exists(record)
    assert contents(remote) == contents(local)


@pytest.mark.parametrize("damage", ["truncated", "emptied"])
def test_a_damaged_records_file_in_the_bucket_is_uploaded_again_and_its_partition_read_again(
    built, s3, tmp_path, damage
):
    fs, options = s3
    dumps, local, _remote = built
    prefix = f"team/{damage}"
    remote = Warehouse(dir=str(tmp_path / "remote"), run_store=f"s3://{BUCKET}/{prefix}", run_store_options=options)
    materialize(dumps, remote)
    (record,) = fs.ls(f"{BUCKET}/{prefix}/records")  # c1's records
    written = fs.cat_file(record)
    fs.pipe_file(record, written[: len(written) // 2] if damage == "truncated" else b"")
    materialize(dumps, remote)
    again = index(fs, prefix)
    assert {name: r["scanned"] for name, r in again.items()} == {
        "c16": False,
        "c1": True,  # its records file damaged
        "rohan": False,
        "llmperf": False,
    }
    assert fs.cat_file(record) == written
    assert contents(remote) == contents(local)


def test_an_unreachable_run_store_is_one_message_naming_its_endpoint_and_a_failure_summary(tmp_path, capsys):
    """`benchbill run` with BENCHBILL_RUN_STORE's endpoint_url on a loopback port where nothing listens: after the
    bounded retries, one message naming the store and the endpoint, the failure summary, no traceback."""
    from pipelines.cli import main
    from tests.support.data import V51_TABLE

    with socket.socket() as probe:  # a port that was free: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    endpoint = f"http://127.0.0.1:{port}"
    dumps = dumps_folder(tmp_path / "dumps", {"c1": SWEEPS["c1"]})
    with pytest.MonkeyPatch.context() as env:
        env.setenv("BENCHBILL_RUN_STORE", f"s3://{BUCKET}/unreachable")
        env.setenv("BENCHBILL_RUN_STORE_OPTIONS", json.dumps({"endpoint_url": endpoint, "key": "k", "secret": "s"}))
        capsys.readouterr()
        args = ["run", "--mlperf", str(V51_TABLE), "--dumps", str(dumps), "--allow-links-into", str(DATA)]
        assert main([*args, "--warehouse", str(tmp_path / "warehouse")]) == 1
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "During handling" not in err and "direct cause" not in err
    assert err.startswith("benchbill: run failed;")
    [message] = [line for line in err.splitlines() if "cannot be reached" in line]
    assert f"s3://{BUCKET}/unreachable" in message and f"at {endpoint}" in message and "tried 3 times" in message
    assert "What to do: start the run store or correct its endpoint" in err
    assert not (tmp_path / "warehouse" / "serving.duckdb").exists()
