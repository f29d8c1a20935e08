"""Serving file, Parquet export and report are published as one set, recorded with the run fingerprint; after
any interruption or alteration the next run completes or repairs the set, and the messages say what is published.
The serving file is read-only to everyone but the publish step, and a reader blocked by a foreign writer is told
who holds it."""

import os
import stat
import subprocess
import sys
import textwrap

import duckdb
import pytest

from assets.core.faults import ENV, TERMINATE
from assets.warehouse.layout import WarehouseLayout
from assets.warehouse.lock import WarehouseProblem
from assets.warehouse.published_set import read_record, stale_members
from pipelines.cli import main
from pipelines.published_output import open_published
from tests.support.data import REPO_ROOT
from tests.support.smallcase import content, leftovers


def _run(small_case, warehouse, fault: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pipelines.cli", *small_case.run_args(small_case.args_b, warehouse)],
        cwd=REPO_ROOT,
        env={**os.environ, ENV: fault},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_publish_is_one_recorded_set_and_the_serving_file_is_read_only(small_case):
    layout = WarehouseLayout(small_case.reference)
    record = read_record(layout)
    assert record is not None and record.fingerprint and not stale_members(layout)
    assert stat.S_IMODE(layout.serving_path.stat().st_mode) == 0o444


def test_a_run_killed_between_the_swaps_is_completed_by_the_next_run(small_case, tmp_path, capsys):
    warehouse = small_case.copy_of(small_case.published, tmp_path / "w")
    killed = _run(small_case, warehouse, "publish.swapped")
    assert killed.returncode == -9, killed.stderr[-2000:]
    layout = WarehouseLayout(warehouse)
    # the serving file and the export are the new ones, the report and the record the last publish's: not whole
    assert stale_members(layout) == ["serving file", "Parquet export"]
    capsys.readouterr()
    assert main(small_case.run_args(small_case.args_b, warehouse)) == 0
    assert "benchbill: building" in capsys.readouterr().err  # never "nothing changed" over a broken set
    assert not stale_members(layout) and not leftovers(warehouse)
    assert content(warehouse / "serving.duckdb") == content(small_case.reference / "serving.duckdb")


def test_sigterm_mid_publish_says_exactly_what_is_published(small_case, tmp_path):
    warehouse = small_case.copy_of(small_case.published, tmp_path / "w")
    stopped = _run(small_case, warehouse, TERMINATE + "publish.swapped")
    assert stopped.returncode != 0
    assert "is unchanged" not in stopped.stderr
    assert "no longer match the last complete publish" in stopped.stderr, stopped.stderr[-2000:]
    assert "next run publishes the set again" in stopped.stderr


def test_sigterm_before_the_swap_says_the_last_publish_is_in_place(small_case, tmp_path):
    warehouse = small_case.copy_of(small_case.published, tmp_path / "w")
    stopped = _run(small_case, warehouse, TERMINATE + "publish.copied")
    assert stopped.returncode != 0
    assert "the last complete publish" in stopped.stderr and "is in place" in stopped.stderr, stopped.stderr[-2000:]
    assert not stale_members(WarehouseLayout(warehouse))


def test_an_altered_serving_file_is_republished(small_case, tmp_path, capsys):
    warehouse = small_case.copy_of(small_case.reference, tmp_path / "w")
    with duckdb.connect(str(warehouse / "serving.duckdb")) as analyst:  # root ignores the file mode
        analyst.execute("UPDATE benchmark.mlperf_results SET result_value = result_value * 100")
    capsys.readouterr()
    assert main(small_case.run_args(small_case.args_b, warehouse)) == 0
    assert "benchbill: building" in capsys.readouterr().err
    assert content(warehouse / "serving.duckdb") == content(small_case.reference / "serving.duckdb")


def test_a_reader_blocked_by_a_foreign_writer_is_told_who_holds_the_file(small_case, tmp_path, capsys):
    warehouse = small_case.copy_of(small_case.reference, tmp_path / "w")
    serving = warehouse / "serving.duckdb"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import duckdb, sys, time
                conn = duckdb.connect({str(serving)!r})
                print("holding", flush=True)
                time.sleep(60)
                """
            ),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "holding"
        with pytest.raises(WarehouseProblem, match="another process holds it open for writing") as found:
            open_published(serving)
        assert str(serving) in str(found.value) and str(holder.pid) in str(found.value)
        # a run does not fail over it (it never opens the serving file for its checks): it says why it cannot
        # show the shortlist
        capsys.readouterr()
        assert main(small_case.run_args(small_case.args_b, warehouse)) == 0
        err = capsys.readouterr().err
        assert "the shortlist cannot be shown" in err and "another process holds it open for writing" in err
    finally:
        holder.kill()
        holder.wait()


def test_a_serving_file_truncated_to_half_is_rebuilt_by_the_next_run_which_says_so(small_case, tmp_path, capsys):
    warehouse = small_case.copy_of(small_case.published, tmp_path / "w")
    serving = warehouse / "serving.duckdb"
    before = content(serving)
    os.chmod(serving, 0o644)
    written = serving.read_bytes()
    serving.write_bytes(written[: len(written) // 2])
    os.chmod(serving, 0o444)
    capsys.readouterr()
    assert main(small_case.run_args(small_case.args_a, warehouse)) == 0
    err = capsys.readouterr().err
    assert f"the serving file is damaged: {serving} cannot be opened" in err
    assert "this run builds and publishes it again" in err
    layout = WarehouseLayout(warehouse)
    assert not stale_members(layout) and not leftovers(warehouse)
    assert content(serving) == before  # the same tables as before the damage
