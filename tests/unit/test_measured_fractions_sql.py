"""Configs we never ran learn the batching gap from those we ran, on a small DuckDB: projected.measured_fractions
(each run's delivered output tokens/s per accelerator / the MLPerf reference of its accelerator and model) and the
fraction projected.delivered_at_slo applies (the least low and greatest high learnt fraction, else the prior),
every figure recomputed by hand."""

import duckdb
import pytest

from tests.unit.test_sql import H100, delivered, load, point, project, reference_row, run_row, write_references

A100 = "nvidia-a100-sxm-80gb"
B200 = "nvidia-b200-sxm-180gb"
L40S = "nvidia-l40s"
TOKENS = 50  # output tokens per request of test_sql.point's load points


@pytest.fixture
def conn(tmp_path):
    connection = duckdb.connect(str(tmp_path / "build.duckdb"))
    yield connection
    connection.close()


def measured(conn):
    rows = conn.execute(
        "SELECT run_labels, delivered_fraction_low, delivered_fraction_high, learnt_from, not_learnt_reason "
        "FROM projected.measured_fractions"
    ).fetchall()
    return {label: rest for label, *rest in rows}


def projected_on(frame, accelerator):
    (row,) = [r for r in frame.iter_rows(named=True) if r["accelerator_id"] == accelerator]
    return row


def test_a_projected_band_spans_the_least_and_greatest_fraction_our_runs_measured_per_accelerator(conn):
    # run a: 2 x H100, 10 req/s meets, 20 req/s breaks TTFT (crossing at 14.5 req/s); H100's MLPerf 1000 per accel
    # run b: 1 x A100, never crosses (20 req/s both ends); A100's MLPerf 2000 per accel
    load(
        conn,
        [run_row("a", count=2), run_row("b", accelerator=A100)],
        [point("a", 0, 10, 100), point("a", 1, 20, 2100), point("b", 0, 10, 100), point("b", 1, 20, 200)],
    )
    delivered(conn)
    write_references(
        conn, [reference_row(H100, 1000.0), reference_row(A100, 2000.0), reference_row(B200, 4000.0, total=8)]
    )
    frame = project(conn)
    high_rate = 10 + (1000 - 100) / (2100 - 100) * 10
    a = (10 * TOKENS / 2 / 1000, high_rate * TOKENS / 2 / 1000)  # per accelerator on both sides: 0.25, 0.3625
    b = (20 * TOKENS / 1 / 2000, 20 * TOKENS / 1 / 2000)  # 0.5, 0.5
    fractions = measured(conn)
    assert fractions["a"][:2] == pytest.approx(a) and fractions["b"][:2] == pytest.approx(b)
    assert fractions["a"][2:] == [True, None] and fractions["b"][2:] == [True, None]
    row = projected_on(frame, B200)
    assert (row["delivered_fraction_low"], row["delivered_fraction_high"]) == pytest.approx((a[0], b[1]))
    assert row["delivered_fraction_runs"] == 2
    assert row["delivered_output_tokens_per_s_low"] == pytest.approx(4000 * 8 * a[0])
    assert row["delivered_output_tokens_per_s_high"] == pytest.approx(4000 * 8 * b[1])
    assert row["delivered_requests_per_s_high"] == pytest.approx(4000 * 8 * b[1] / TOKENS)
    basis = row["delivered_fraction_basis"]
    assert basis.startswith("measured on 2 runs of ours (")
    assert f"a on {H100} {a[0]:.3f}-{a[1]:.3f}" in basis and f"b on {A100} 0.500-0.500" in basis
    assert "measured on 2 of our runs" in row["method"]
    # the prior stays beside it, as the fallback
    assert (row["delivered_fraction_prior_lo"], row["delivered_fraction_prior_hi"]) == (0.5, 0.8)


def test_a_single_run_gives_min_equal_to_max_with_a_count_of_one_and_says_so(conn):
    load(conn, [run_row("a")], [point("a", 0, 10, 100), point("a", 1, 20, 200)])  # never crosses: low = high
    delivered(conn)
    write_references(conn, [reference_row(H100, 1000.0), reference_row(B200, 4000.0)])
    row = projected_on(project(conn), B200)
    assert row["delivered_fraction_low"] == row["delivered_fraction_high"] == pytest.approx(20 * TOKENS / 1000)
    assert row["delivered_fraction_runs"] == 1
    assert "measured on 1 run of ours" in row["delivered_fraction_basis"]
    assert "one run, so min and max are its own band, no spread across runs" in row["delivered_fraction_basis"]


def test_fractions_outside_the_range_and_infeasible_runs_are_not_learnt_from_and_said(conn):
    # a: H100 delivers 20 x 50 = 1000 tok/s against an MLPerf 500: fraction 2.0, above 1.5
    # b: A100 meets no bound at all: nothing delivered; c: L40S delivers 1000 tok/s against 1e7: 1e-4, below 0.001
    load(
        conn,
        [run_row("a"), run_row("b", accelerator=A100), run_row("c", accelerator=L40S)],
        [point("a", 0, 20, 100), point("b", 0, 10, 5000), point("c", 0, 20, 100)],
    )
    delivered(conn)
    write_references(
        conn,
        [reference_row(H100, 500.0), reference_row(A100, 1000.0), reference_row(L40S, 1e7), reference_row(B200)],
    )
    row = projected_on(project(conn), B200)
    fractions = measured(conn)
    assert fractions["a"][:3] == [2.0, 2.0, False] and "outside (0.001, 1.5]" in fractions["a"][3]
    assert fractions["b"][2] is False and "no load point meets the SLO" in fractions["b"][3]
    assert fractions["c"][:2] == pytest.approx([1e-4, 1e-4]) and "outside (0.001, 1.5]" in fractions["c"][3]
    assert (row["delivered_fraction_low"], row["delivered_fraction_high"], row["delivered_fraction_runs"]) == (
        0.5,
        0.8,
        0,
    )
    basis = row["delivered_fraction_basis"]
    assert basis.startswith("prior [0.5, 0.8] of the profile: no run of ours is learnt from; not learnt from: ")
    assert "a (fraction 2 - 2 outside (0.001, 1.5]" in basis and "b (no load point meets the SLO" in basis
    assert "c (fraction 0.0001 - 0.0001 outside" in basis
    assert "the profile's prior" in row["method"]


def test_a_run_on_an_accelerator_mlperf_never_measured_learns_nothing_and_the_prior_remains(conn):
    load(conn, [run_row("a", accelerator=A100)], [point("a", 0, 10, 100)])
    delivered(conn)
    write_references(conn, [reference_row(B200, 4000.0)])
    row = projected_on(project(conn), B200)
    assert measured(conn)["a"] == [
        None,
        None,
        False,
        f"no MLPerf reference of {A100} and llama-3.1-8b-instruct: this band measures no gap",
    ]
    assert (row["delivered_fraction_low"], row["delivered_fraction_high"]) == (0.5, 0.8)
    assert row["delivered_output_tokens_per_s_high"] == pytest.approx(4000 * 8 * 0.8)
    assert row["delivered_fraction_basis"] == (
        "prior [0.5, 0.8] of the profile: no run of ours shares an accelerator and model with an MLPerf reference"
    )
