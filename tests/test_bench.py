"""The benchmark harness keeps working: one command generates a small data set, runs every contender in its
own process, checks they agree, and writes the table. Timings are measured, never asserted."""

import pytest

from bench import generate
from bench.__main__ import fit_exponent, main


def test_the_harness_runs_every_contender_and_writes_the_table(tmp_path, capsys):
    output = tmp_path / "results.md"
    assert main(["--sizes", "10k", "--runs", "1", "--data", str(tmp_path / "data"), "--output", str(output)]) == 0
    table = output.read_text()
    assert table.strip() in capsys.readouterr().out
    for contender in ("benchbill observed layer", "reference: one DuckDB query", "peer: pandas notebook"):
        assert "| 10k | " in table and contender in table
    assert "contenders agree on requests and p95s: yes (32 load points" in table
    assert "Machine:" in table and "python -m bench --sizes 10k" in table


def test_the_generated_data_is_deterministic_and_in_every_format(tmp_path):
    first = generate.generate(tmp_path / "a", 2_000)
    second = generate.generate(tmp_path / "b", 2_000)
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert {p.suffix for p in files} >= {".parquet", ".csv", ".jsonl", ".json", ".yaml"}
    assert all((first / p).read_bytes() == (second / p).read_bytes() for p in files)


def test_the_exponent_of_a_linear_cost_is_one():
    assert fit_exponent([1_000_000, 10_000_000], [2.0, 20.0]) == pytest.approx(1.0)
    assert fit_exponent([1_000_000], [2.0]) is None
