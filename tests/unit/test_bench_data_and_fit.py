"""The benchmark harness's parts: the generated data set is deterministic and in every format, the fitted exponent
of a linear cost is one, and a whole run's table row says which configs its calibrated step refitted."""

import pytest

from bench import generate
from bench.__main__ import fit_exponent
from bench.incremental import DEFAULT_CASES, STANDALONE_CASES, WHOLE_RUN_CASES, refitted_words


def test_the_generated_data_is_deterministic_and_in_every_format(tmp_path):
    first = generate.generate(tmp_path / "a", 2_000)
    second = generate.generate(tmp_path / "b", 2_000)
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert {p.suffix for p in files} >= {".parquet", ".csv", ".jsonl", ".json", ".yaml"}
    assert all((first / p).read_bytes() == (second / p).read_bytes() for p in files)


def test_the_exponent_of_a_linear_cost_is_one():
    assert fit_exponent([1_000_000, 10_000_000], [2.0, 20.0]) == pytest.approx(1.0)
    assert fit_exponent([1_000_000], [2.0]) is None


def test_a_whole_runs_row_says_what_its_calibrated_step_refitted_its_folded_lines_joined():
    output = (
        "- building calibrated.engine_models and calibrated.validation\n"
        "  a, 1x H100: fitted (8 levels, stored fit reused, fitted in 3.1 s)\n"
        "  engine models: 1 of 5 configs refitted (llama-3.1-8b-instruct,\n"
        "    1x nvidia-h100-sxm-80gb), 4 stored fits reused\n"
        "- building calibrated.latency_curve\n"
    )
    said = "1 of 5 configs refitted (llama-3.1-8b-instruct, 1x nvidia-h100-sxm-80gb), 4 stored fits reused"
    assert refitted_words(output) == said
    assert refitted_words("- building observed.runs\n") == ""


def test_the_whole_runs_are_measured_by_bench_incremental_and_left_out_of_make_bench():
    assert set(WHOLE_RUN_CASES) <= set(STANDALONE_CASES)
    assert not set(WHOLE_RUN_CASES) & set(DEFAULT_CASES)
