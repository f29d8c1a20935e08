"""The benchmark harness's parts: the generated data set is deterministic and in every format, and the
fitted exponent of a linear cost is one."""

import pytest

from bench import generate
from bench.__main__ import fit_exponent


def test_the_generated_data_is_deterministic_and_in_every_format(tmp_path):
    first = generate.generate(tmp_path / "a", 2_000)
    second = generate.generate(tmp_path / "b", 2_000)
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert {p.suffix for p in files} >= {".parquet", ".csv", ".jsonl", ".json", ".yaml"}
    assert all((first / p).read_bytes() == (second / p).read_bytes() for p in files)


def test_the_exponent_of_a_linear_cost_is_one():
    assert fit_exponent([1_000_000, 10_000_000], [2.0, 20.0]) == pytest.approx(1.0)
    assert fit_exponent([1_000_000], [2.0]) is None
