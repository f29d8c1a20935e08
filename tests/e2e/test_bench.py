"""The benchmark harness keeps working: one command generates a small data set, runs every contender in its
own process, checks they agree, and writes the table. Timings are measured, never asserted."""

from bench.__main__ import main


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
