"""Run partitions: the dumps folders cut by run.yaml folder, each read on its own, its results stored in the
warehouse and reused while its files are unchanged; the tables built from stored results equal a full rebuild."""

import os
import shutil
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from assets.runs.batch import merge_batches
from assets.runs.collect import collect_all
from assets.runs.partition import NO_SIDECAR, plan_partitions
from assets.runs.partition_store import PartitionStore
from assets.runs.store import write_observed
from assets.warehouse.layout import WarehouseLayout
from tests.support.observed import build
from tests.support.sweeps import VLLM_JSON, add_sweep, change_file, sweeps_tree
from tests.support.tables import table_contents


def scan_all(warehouse: Path, roots: list[Path]) -> list:
    store = PartitionStore(WarehouseLayout(warehouse))
    results = [store.scan_or_reuse(p, store_texts=False) for p in plan_partitions([str(r) for r in roots])]
    store.write_index(results)
    return results


def tables_from_store(warehouse: Path) -> dict[str, list[str]]:
    store = PartitionStore(WarehouseLayout(warehouse))
    with duckdb.connect(str(warehouse / "build.duckdb")) as conn:
        build(conn, merge_batches(store.load_all(store_texts=False)))
        return table_contents(conn)


def test_a_partition_is_a_run_yaml_folder_with_the_run_yaml_files_above_it(tmp_path):
    root = sweeps_tree(tmp_path / "dumps")
    (tmp_path / "loose").mkdir()
    shutil.copy(VLLM_JSON, tmp_path / "loose" / "a.json")
    partitions = plan_partitions([str(root), str(tmp_path / "loose")])
    assert [(Path(p.root).name, p.folder) for p in partitions] == [
        ("dumps", "."),
        ("dumps", "sweep-a"),
        ("dumps", "sweep-b"),
        ("dumps", "sweep-c"),
        ("loose", NO_SIDECAR),
    ]
    by_folder = {p.folder: p for p in partitions}
    assert sorted(Path(f).relative_to(root).as_posix() for f in by_folder["sweep-c"].files) == [
        "run.yaml",
        "sweep-c/rate8/profile_export.jsonl",
        "sweep-c/rate8/profile_export_aiperf.json",
        "sweep-c/run.yaml",
    ]
    assert [Path(f).name for f in by_folder["."].files] == ["notes.txt", "run.yaml"]
    assert len({p.key for p in partitions}) == 5  # and stable: the same plan twice gives the same keys
    assert [p.key for p in plan_partitions([str(root), str(tmp_path / "loose")])] == [p.key for p in partitions]


def test_partitions_merged_list_each_run_yaml_once_and_idle_only_when_it_governs_no_run(tmp_path):
    root = sweeps_tree(tmp_path / "dumps")
    (root / "empty-sweep").mkdir()
    (root / "empty-sweep" / "run.yaml").write_text("label: empty\n")
    batch = collect_all([str(root)])
    sidecars = {
        Path(f.source).relative_to(root).as_posix(): f.note for f in batch.files if "sidecar" in f.detected_format
    }
    assert sorted(sidecars) == [
        "empty-sweep/run.yaml",
        "run.yaml",
        "sweep-a/run.yaml",
        "sweep-b/run.yaml",
        "sweep-c/run.yaml",
    ]
    assert sidecars["empty-sweep/run.yaml"].startswith("governs no recognised dump file")
    assert sidecars["run.yaml"] == ""  # it governs the sweeps below it
    assert sorted(r["run_label"] for r in batch.runs) == ["sweep-a", "sweep-b", "sweep-c"]


def test_tables_from_stored_partitions_equal_reading_everything_in_one_go(tmp_path):
    root = sweeps_tree(tmp_path / "dumps")
    scan_all(tmp_path / "warehouse", [root])
    stored = tables_from_store(tmp_path / "warehouse")
    direct = tmp_path / "direct"
    direct.mkdir()
    with duckdb.connect(str(direct / "build.duckdb")) as conn:
        batch = collect_all([str(root)])
        write_observed(conn, batch, direct / "records")
        build(conn, batch)
        assert table_contents(conn) == stored
    assert stored["observed.runs"] and stored["observed.request_stats"] and stored["observed.requests"]


def test_unchanged_partitions_are_reused_and_only_a_changed_file_is_hashed(tmp_path):
    root = sweeps_tree(tmp_path / "dumps")
    first = scan_all(tmp_path / "warehouse", [root])
    assert all(r.scanned for r in first) and [r.files_hashed for r in first] == [r.files for r in first]

    again = scan_all(tmp_path / "warehouse", [root])
    assert not any(r.scanned for r in again) and sum(r.files_hashed for r in again) == 0

    change_file(root / "sweep-a" / "requests.csv")
    changed = {r.label.split(": ")[1]: r for r in scan_all(tmp_path / "warehouse", [root])}
    assert changed["sweep-a"].scanned and changed["sweep-a"].files_hashed == 1  # its run.yaml files: not again
    assert [name for name, r in changed.items() if r.scanned] == ["sweep-a"]
    assert sum(r.files_hashed for r in changed.values()) == 1

    os.utime(root / "sweep-b" / VLLM_JSON.name)  # touched, same content: hashed again, not read again
    touched = {r.label.split(": ")[1]: r for r in scan_all(tmp_path / "warehouse", [root])}
    assert touched["sweep-b"].files_hashed == 1 and not touched["sweep-b"].scanned


def test_a_stored_result_whose_records_were_removed_is_read_again(tmp_path):
    root = sweeps_tree(tmp_path / "dumps")
    scan_all(tmp_path / "warehouse", [root])
    for copy in (tmp_path / "warehouse" / "records").iterdir():
        copy.unlink()
    again = {r.label.split(": ")[1]: r.scanned for r in scan_all(tmp_path / "warehouse", [root])}
    assert again == {".": False, "sweep-a": True, "sweep-b": False, "sweep-c": True}  # the two with records files


def test_incremental_results_equal_a_full_rebuild_table_by_table(tmp_path):
    root = sweeps_tree(tmp_path / "dumps")
    scan_all(tmp_path / "incremental", [root])
    add_sweep(root, "sweep-d")
    change_file(root / "sweep-a" / "requests.csv")
    shutil.rmtree(root / "sweep-c")  # a sweep removed: its stored results leave the warehouse too
    incremental = scan_all(tmp_path / "incremental", [root])
    assert sorted(r.label.split(": ")[1] for r in incremental if r.scanned) == ["sweep-a", "sweep-d"]
    assert sorted(p.name for p in (tmp_path / "incremental" / "runs").iterdir() if p.is_dir()) == sorted(
        r.key for r in incremental
    )
    full = scan_all(tmp_path / "full", [root])
    assert all(r.scanned for r in full)
    assert tables_from_store(tmp_path / "incremental") == tables_from_store(tmp_path / "full")


def test_a_moved_warehouse_reuses_its_stored_partitions_and_reads_its_own_records(tmp_path):
    root = sweeps_tree(tmp_path / "dumps")
    scan_all(tmp_path / "warehouse", [root])
    before = tables_from_store(tmp_path / "warehouse")
    (tmp_path / "warehouse" / "build.duckdb").unlink()
    (tmp_path / "warehouse").rename(tmp_path / "moved")
    assert not any(r.scanned for r in scan_all(tmp_path / "moved", [root]))
    assert tables_from_store(tmp_path / "moved") == before


def truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def empty(path: Path) -> None:
    path.write_bytes(b"")


def flip_a_byte(path: Path) -> None:
    """The same size, the footer whole: only the checksum recorded when it was written finds it."""
    data = bytearray(path.read_bytes())
    data[len(data) // 3] ^= 0xFF
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", [truncate, empty, flip_a_byte])
def test_a_damaged_records_file_is_written_again_and_its_partition_read_again(tmp_path, damage):
    root = sweeps_tree(tmp_path / "dumps")
    scan_all(tmp_path / "warehouse", [root])
    before = tables_from_store(tmp_path / "warehouse")
    records = sorted((tmp_path / "warehouse" / "records").iterdir())
    written = {copy.name: copy.read_bytes() for copy in records}
    damage(records[0])
    said: list[str] = []
    store = PartitionStore(WarehouseLayout(tmp_path / "warehouse"))
    again = [store.scan_or_reuse(p, store_texts=False, log=said.append) for p in plan_partitions([str(root)])]
    store.write_index(again)
    assert sum(r.scanned for r in again) == 1  # only the partition whose records file was damaged
    damaged = [line for line in said if " is damaged (" in line]
    assert len(damaged) == 1 and f"records/{records[0].name} is damaged" in damaged[0] and "read again" in damaged[0]
    assert {copy.name: copy.read_bytes() for copy in (tmp_path / "warehouse" / "records").iterdir()} == written
    assert tables_from_store(tmp_path / "warehouse") == before


def test_a_damaged_records_file_is_written_again_by_the_request_pass_too(tmp_path):
    """Found by the records writers themselves (the request pass and own_records), not only by the stored result's
    check: a damaged file of that name is never read as the file's records."""
    root = sweeps_tree(tmp_path / "dumps")
    scan_all(tmp_path / "warehouse", [root])
    records = sorted((tmp_path / "warehouse" / "records").iterdir())
    for copy in records:
        truncate(copy)
    shutil.rmtree(tmp_path / "warehouse" / "runs")  # no stored result to say so: the writers find it
    scan_all(tmp_path / "warehouse", [root])
    for copy in records:
        pq.read_table(copy)  # whole again
