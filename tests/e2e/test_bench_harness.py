"""The benchmark harness keeps working: one command generates a small data set, runs every contender in its
own process, checks they agree, and writes the table. Timings are measured, never asserted."""

import pytest

from bench.__main__ import REPO_ROOT, main
from bench.versus import main as versus


def test_the_harness_runs_every_contender_and_writes_the_table(tmp_path, capsys):
    output = tmp_path / "results.md"
    assert main(["--sizes", "10k", "--runs", "1", "--data", str(tmp_path / "data"), "--output", str(output)]) == 0
    table = output.read_text()
    assert table.strip() in capsys.readouterr().out
    for contender in ("benchbill observed layer", "reference: one DuckDB query", "peer: pandas notebook"):
        assert "| 10k | " in table and contender in table
    assert "contenders agree on requests and p95s: yes (32 load points" in table
    assert "Machine:" in table and "python -m bench --sizes 10k" in table
    # the run-partition rows (bench/incremental.py) at the largest size, one sweep of a tenth of it added
    for case in ("| nothing changed |", "| add one sweep |", "| that sweep alone, cold |", "| cold, multiprocess |"):
        assert case in table
    assert "| add one sweep | " in table and "| 1 of 5 |" in table  # only the added sweep's partition is read
    assert "- add one sweep to the warehouse / that sweep alone, cold: " in table


def test_versus_compares_two_checkouts_and_says_whether_they_agree(tmp_path, capsys):
    other = tmp_path / "other"  # another checkout: here this one's tree again, so both must find the same points
    other.symlink_to(REPO_ROOT)
    assert versus(["--other", str(other), "--sizes", "10k", "--runs", "1", "--data", str(tmp_path / "data")]) == 0
    out = capsys.readouterr().out
    assert "10k requests (1 runs, medians):" in out
    for label in ("other", "this", "reference"):
        assert f"  {label} " in out
    assert "identical load points in both checkouts: yes" in out


def test_versus_refuses_a_folder_that_is_not_a_checkout(tmp_path):
    with pytest.raises(SystemExit):
        versus(["--other", str(tmp_path), "--sizes", "10k"])
