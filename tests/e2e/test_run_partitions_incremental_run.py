"""`benchbill run` by run partition: a run after one sweep was added and one file changed reads only those two
partitions and builds, table by table, what a full rebuild builds (observed, delivered, cost, marts); the
partitions read by the multiprocess executor, each step in its own process, build the same as in-process."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from assets.resources import Inputs, Warehouse
from pipelines.cli import main
from pipelines.parallel import scan_in_processes
from tests.support.data import REPO_ROOT, V51_TABLE
from tests.support.data import WORKED_PROFILES as PROFILES
from tests.support.sweeps import add_sweep, change_file, sweeps_tree
from tests.support.tables import file_contents


def run(root: Path, warehouse: Path, *extra: str) -> None:
    args = [
        "run",
        "--mlperf",
        str(V51_TABLE),
        "--dumps",
        str(root / "dumps"),
        "--profiles",
        str(root / "profiles.yaml"),
    ]
    assert main([*args, "--warehouse", str(warehouse), *extra]) == 0


def index(warehouse: Path) -> dict[str, dict]:
    """The last plan's partitions by run.yaml folder, as the run recorded them."""
    return {r["label"].split(": ")[1]: r for r in json.loads((warehouse / "runs" / "index.json").read_text())}


# Its own warehouses: partitions changed between runs, against a full rebuild.
@pytest.fixture(scope="module")
def changed(tmp_path_factory):
    """A warehouse built, then built again after a sweep was added and a file of another changed; and a full
    rebuild of the final dumps in a fresh warehouse."""
    root = tmp_path_factory.mktemp("partitions")
    sweeps_tree(root / "dumps")
    (root / "profiles.yaml").write_text(PROFILES)
    run(root, root / "incremental")
    assert all(r["scanned"] for r in index(root / "incremental").values())
    add_sweep(root / "dumps", "sweep-d")
    change_file(root / "dumps" / "sweep-a" / "requests.csv")
    run(root, root / "incremental")
    run(root, root / "full")
    return root


def test_a_run_after_a_change_reads_only_the_changed_partitions(changed):
    partitions = index(changed / "incremental")
    assert sorted(name for name, r in partitions.items() if r["scanned"]) == ["sweep-a", "sweep-d"]
    assert {name: r["files_hashed"] for name, r in partitions.items()} == {
        ".": 0,
        "sweep-a": 1,  # the changed file, not its run.yaml files
        "sweep-b": 0,
        "sweep-c": 0,
        "sweep-d": 3,  # new: its two files and the run.yaml above them
    }


def test_an_incremental_build_equals_a_full_rebuild_table_by_table(changed):
    incremental = file_contents(changed / "incremental" / "build.duckdb")
    full = file_contents(changed / "full" / "build.duckdb")
    assert incremental.keys() == full.keys()
    for table in ("observed.runs", "observed.delivered_at_slo", "cost.cost_per_request", "marts.config_shortlist"):
        assert incremental[table], f"{table} is empty: the comparison would prove nothing"
    assert {t: rows for t, rows in incremental.items()} == full
    assert file_contents(changed / "incremental" / "serving.duckdb") == file_contents(
        changed / "full" / "serving.duckdb"
    )


def test_the_multiprocess_job_equals_the_in_process_job(changed):
    warehouse = changed / "multiprocess"
    inputs = Inputs(dumps=[str(changed / "dumps")], allow_links_into=[])
    result = scan_in_processes(inputs, Warehouse(dir=str(warehouse)), "multiprocess")
    assert result.success
    scans = {
        e.step_key: e.pid for e in result.all_events if e.event_type_value == "STEP_START" and "scan_run" in e.step_key
    }
    assert len(scans) == 5 and os.getpid() not in scans.values() and len(set(scans.values())) == 5  # own processes
    assert all(r["scanned"] for r in index(warehouse).values())

    run(changed, warehouse)  # in-process: every partition stored by the steps above is reused
    assert not any(r["scanned"] for r in index(warehouse).values())
    assert file_contents(warehouse / "build.duckdb") == file_contents(changed / "full" / "build.duckdb")


def test_benchbill_run_on_the_multiprocess_executor_builds_what_in_process_builds(changed):
    """In a process of its own, so that it starts the step server itself (before the MLPerf rounds)."""
    warehouse = changed / "cli-multiprocess"
    args = ["--mlperf", str(V51_TABLE), "--dumps", str(changed / "dumps"), "--profiles", str(changed / "profiles.yaml")]
    args += ["--warehouse", str(warehouse), "--executor", "multiprocess"]
    done = subprocess.run(
        [sys.executable, "-m", "pipelines.cli", "run", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert "run partitions of the dump folders on the multiprocess executor" in done.stderr
    assert "scan run partition" in done.stderr  # the steps' own progress, from their processes
    assert not any(r["scanned"] for r in index(warehouse).values())  # build_warehouse found every one stored
    assert file_contents(warehouse / "build.duckdb") == file_contents(changed / "full" / "build.duckdb")


@pytest.mark.parametrize("damage", ["truncated", "emptied"])
def test_a_damaged_records_file_is_rebuilt_by_the_next_run_which_publishes_what_it_published(tmp_path, capsys, damage):
    """A records file truncated or emptied (today's disk full, a copy cut short) is not reused by its name: the
    next run, `--force` or not, says so, reads its partition again and publishes the same tables;
    `benchbill sql` reads observed.requests again."""
    sweeps_tree(tmp_path / "dumps")
    (tmp_path / "profiles.yaml").write_text(PROFILES)
    run(tmp_path, tmp_path / "warehouse")
    before = file_contents(tmp_path / "warehouse" / "serving.duckdb")
    assert before["observed.requests"]
    record = sorted((tmp_path / "warehouse" / "records").glob("*.parquet"))[0]
    written = record.read_bytes()
    record.write_bytes(written[: len(written) // 2] if damage == "truncated" else b"")
    capsys.readouterr()
    run(tmp_path, tmp_path / "warehouse", "--force")
    said = "".join(capsys.readouterr())
    assert f"records/{record.name} is damaged" in said and "read again" in said
    assert record.read_bytes() == written
    assert file_contents(tmp_path / "warehouse" / "serving.duckdb") == before
    assert main(["sql", "--warehouse", str(tmp_path / "warehouse"), "SELECT count(*) FROM observed.requests"]) == 0
