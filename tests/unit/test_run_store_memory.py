"""A run store on object storage (assets.warehouse.objectstore, ObjectPartitionStore), here fsspec's in-process
memory store: the same tables as the warehouse folder's store; records uploaded before the results and each
result's manifest last (no rename there); records named by content written once; a result without its manifest
is absent and read again; a store setting that names no object store is refused, saying what is expected."""

import json

import duckdb
import pytest

from assets.core.errors import IngestError
from assets.runs.batch import merge_batches
from assets.runs.partition import plan_partitions
from assets.runs.partition_store import ObjectPartitionStore, PartitionStore, partition_store
from assets.warehouse.layout import WarehouseLayout
from assets.warehouse.objectstore import ObjectStore, register_for_views
from tests.support.observed import build
from tests.support.sweeps import sweeps_tree
from tests.support.tables import table_contents


@pytest.fixture
def store_url(tmp_path):
    """A fresh prefix of the memory store (shared by the process), removed after the test."""
    url = f"memory://benchbill-test/{tmp_path.name}"
    yield url
    ObjectStore(url).remove()


def recorded_puts(monkeypatch) -> list[str]:
    """The objects uploaded from now on, in order (as paths below the store)."""
    puts: list[str] = []
    put_file = ObjectStore.put_file

    def recorded(self, local, *parts):
        puts.append("/".join(parts))
        put_file(self, local, *parts)

    monkeypatch.setattr(ObjectStore, "put_file", recorded)
    return puts


def scan_all(layout: WarehouseLayout, root) -> dict[str, bool]:
    """Every partition of `root` read or reused into the layout's store; whether each was read, by folder."""
    store = partition_store(layout)
    results = [store.scan_or_reuse(p, store_texts=False) for p in plan_partitions([str(root)])]
    store.write_index(results)
    return {r.label.split(": ")[1]: r.scanned for r in results}


def tables(layout: WarehouseLayout) -> dict[str, list[str]]:
    layout.dir.mkdir(parents=True, exist_ok=True)
    with duckdb.connect(str(layout.dir / "build.duckdb")) as conn:
        if layout.object_store is not None:
            layout.object_store.register(conn)
        build(conn, merge_batches(partition_store(layout).load_all(store_texts=False)))
        return table_contents(conn)


def test_the_tables_from_an_object_store_equal_those_from_the_warehouse_folder(tmp_path, store_url):
    root = sweeps_tree(tmp_path / "dumps")
    local = WarehouseLayout(tmp_path / "local")
    remote = WarehouseLayout(tmp_path / "remote", store_url)
    assert isinstance(partition_store(remote), ObjectPartitionStore) and type(partition_store(local)) is PartitionStore
    scan_all(local, root)
    scan_all(remote, root)
    on_store = tables(remote)
    assert on_store == tables(local) and on_store["observed.requests"]
    assert sorted(p.name for p in (tmp_path / "remote").iterdir()) == ["build.duckdb"]  # nothing else written here
    with duckdb.connect(str(tmp_path / "remote" / "build.duckdb")) as conn:
        views = [sql for (sql,) in conn.execute("SELECT sql FROM duckdb_views() WHERE NOT internal").fetchall()]
    assert f"read_parquet('{store_url}/records/" in "".join(views)
    # a reader of the file finds the filesystem the views need from the views themselves
    with duckdb.connect(str(tmp_path / "remote" / "build.duckdb"), read_only=True) as reader:
        assert register_for_views(reader, views) == ["memory"]
        assert table_contents(reader) == on_store


def test_records_go_up_before_the_results_and_each_results_manifest_last(tmp_path, store_url, monkeypatch):
    root = sweeps_tree(tmp_path / "dumps")
    puts = recorded_puts(monkeypatch)
    layout = WarehouseLayout(tmp_path / "w", store_url)
    scan_all(layout, root)
    assert any(p.startswith("records/") for p in puts)
    uploaded: set[str] = set()
    results: dict[str, list[str]] = {}
    for put in puts:
        folder, name = put.rsplit("/", 1)
        if folder == "records":
            uploaded.add(name)
            continue
        if folder not in results:  # a result's first object: the records it reads are up already
            manifest = json.loads(layout.object_store.read_text(folder, "manifest.json"))
            assert set(manifest["records"]) <= uploaded, folder
        results.setdefault(folder, []).append(name)
    assert len(results) == 4
    for folder, names in results.items():
        assert names[-1] == "manifest.json" and "rows.json" in names, folder


def test_a_result_without_its_manifest_is_absent_and_read_again_and_records_are_written_once(
    tmp_path, store_url, monkeypatch
):
    root = sweeps_tree(tmp_path / "dumps")
    layout = WarehouseLayout(tmp_path / "w", store_url)
    assert all(scan_all(layout, root).values())
    store = partition_store(layout)
    by_folder = {r.label.split(": ")[1]: r for r in store.read_index()}
    sweep_a = by_folder["sweep-a"]
    layout.object_store.fs.rm(layout.object_store.path("runs", sweep_a.key, sweep_a.digest, "manifest.json"))
    with pytest.raises(IngestError, match=f"{store_url}/runs/{sweep_a.key}/{sweep_a.digest}: the stored results"):
        store.load_all(store_texts=False)

    puts = recorded_puts(monkeypatch)
    assert scan_all(layout, root) == {".": False, "sweep-a": True, "sweep-b": False, "sweep-c": False}
    assert puts and not [p for p in puts if p.startswith("records/")]  # its records were there: not written again
    assert puts[-1] == f"runs/{sweep_a.key}/{sweep_a.digest}/manifest.json"
    assert tables(layout)["observed.runs"]


def test_a_run_store_that_names_no_object_store_is_refused_saying_what_is_expected(tmp_path):
    assert WarehouseLayout(tmp_path).object_store is None  # empty: the warehouse folder
    for setting in ("/data/runs", "ftp://host/runs", "runs"):
        with pytest.raises(IngestError, match=r"BENCHBILL_RUN_STORE='.*': expected s3://bucket/prefix or gs://"):
            _ = WarehouseLayout(tmp_path, setting).object_store
    with pytest.raises(IngestError, match="BENCHBILL_RUN_STORE_OPTIONS: not JSON"):
        _ = ObjectStore("memory://x/y", "{endpoint_url: nowhere}").fs
    with pytest.raises(IngestError, match="BENCHBILL_RUN_STORE_OPTIONS: expected a JSON object"):
        _ = ObjectStore("memory://x/y", '["endpoint_url"]').fs
