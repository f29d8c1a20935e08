"""A run killed with SIGKILL at a named point (assets/core/faults.py) leaves the published serving file and
the Parquet export exactly as they were, and the next run completes with the same serving content
as a run that was never interrupted. A corrected round replaces its rows and is recorded. (The same
inputs twice giving byte-identical results over every table and view: test_pipeline.py.)"""

import os
import subprocess
import sys

import duckdb
import pytest

from assets.core.faults import ENV
from pipelines.cli import main
from tests.support.data import REPO_ROOT
from tests.support.smallcase import content, file_sha, leftovers, parquet_snapshot

# Where a run is killed: in the middle of ingesting a round (its results replaced, the rest of the
# round's transaction not yet), of building the marts (the shortlist's new rows in, not committed),
# of publishing (the next serving file complete, not swapped), of the Parquet export (one table
# written), and between a complete export and the swap.
KILL_POINTS = {
    "ingest": "write.benchmark.mlperf_run_conditions",
    "marts": "write.marts.config_shortlist",
    "publish": "publish.copied",
    "parquet export": "parquet.writing",
    "before the swap": "publish.exported",
}


@pytest.fixture(scope="module")
def killed(small_case, tmp_path_factory):
    """For each point: a copy of the published warehouse, and run B started on it (in its own process)
    with BENCHBILL_FAULT naming the point; all at once, then waited for."""
    root = tmp_path_factory.mktemp("killed")
    copies = {where: small_case.copy_of(small_case.published, root / where.replace(" ", "-")) for where in KILL_POINTS}
    runs = {
        where: subprocess.Popen(
            [sys.executable, "-m", "pipelines.cli", *small_case.run_args(small_case.args_b, copies[where])],
            cwd=REPO_ROOT,
            env={**os.environ, ENV: point},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for where, point in KILL_POINTS.items()
    }
    return {where: (copies[where], *finish(process)) for where, process in runs.items()}


def finish(process: subprocess.Popen) -> tuple[int, str]:
    _out, err = process.communicate(timeout=300)
    return process.returncode, err


@pytest.mark.parametrize("where", KILL_POINTS)
def test_a_run_killed_at_a_named_point_loses_nothing_and_the_next_run_completes(where, killed, small_case, capsys):
    warehouse, returncode, err = killed[where]
    assert returncode == -9, f"the run was not killed at {KILL_POINTS[where]}: exit {returncode}\n{err[-2000:]}"
    published = small_case.published
    assert file_sha(warehouse / "serving.duckdb") == file_sha(published / "serving.duckdb")
    assert parquet_snapshot(warehouse) == parquet_snapshot(published)
    if where == "ingest":  # the round's transaction was rolled back whole: the old rows, one version
        with duckdb.connect(str(warehouse / "build.duckdb"), read_only=True) as build:
            assert build.execute("SELECT count(*) FROM audit.mlperf_round_versions").fetchone()[0] == 1
        assert (
            content(warehouse / "build.duckdb")["benchmark.mlperf_results"]
            == content(published / "build.duckdb")["benchmark.mlperf_results"]
        )
    capsys.readouterr()
    assert main(small_case.run_args(small_case.args_b, warehouse)) == 0
    # The killed run published no fingerprint: the next one builds (no "nothing changed" shortcut).
    assert "benchbill: building" in capsys.readouterr().err
    assert content(warehouse / "serving.duckdb") == content(small_case.reference / "serving.duckdb")
    assert not leftovers(warehouse)


def test_a_corrected_round_replaces_its_rows_once_and_keeps_a_record_of_the_change(small_case):
    with duckdb.connect(str(small_case.reference / "serving.duckdb"), read_only=True) as conn:
        rows = conn.execute("SELECT count(*), count(DISTINCT result_key) FROM benchmark.mlperf_results").fetchone()
        value = conn.execute(
            "SELECT result_value FROM benchmark.mlperf_results WHERE submitter = 'RedHat' AND "
            "scenario = 'Server' AND accelerator_id = 'nvidia-h100-sxm-80gb'"
        ).fetchall()
        versions = conn.execute(
            "SELECT version, change, rows, rows_added, rows_removed, values_changed, "
            "previous_sha256 IS NOT NULL FROM audit.mlperf_round_versions ORDER BY version"
        ).fetchall()
        runs = conn.execute("SELECT count(*), count(DISTINCT run_label) FROM observed.runs").fetchone()
        points = conn.execute(
            "SELECT count(*) FROM (SELECT DISTINCT run_id, load_index, repeat_index FROM observed.measurements)"
        ).fetchone()[0]
        measurements = conn.execute("SELECT count(*) FROM observed.measurements").fetchone()[0]
    assert rows == (24, 24)  # the round ingested twice: replaced, not duplicated
    assert value == [(5155.0299,)]  # B's corrected value, not A's 5103.99
    assert versions == [(1, "new", 24, 24, 0, 0, False), (2, "corrected", 24, 0, 0, 1, True)]
    assert runs == (3, 3) and points == measurements  # dumps read twice: each run and point once
