"""Configs we never ran learn the batching gap from those we ran, on a small DuckDB: projected.measured_fractions
(each run's delivered output tokens/s per accelerator / the MLPerf reference of its accelerator and model) and the
fraction projected.delivered_at_slo applies (the least low and greatest high learnt fraction, else the prior),
every figure recomputed by hand; a config's band calibrated on our traffic (calibrated.delivered_at_slo) stands for
its runs where it may bill."""

import duckdb
import pytest

from tests.support.sql_warehouse import (
    H100,
    calibrated_band,
    delivered,
    load,
    point,
    profile_rows,
    project,
    reference_row,
    run_row,
    stated_mean,
    write_calibrated,
    write_references,
)

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
    assert basis.startswith("learnt from 2 bands of ours (")
    assert f"a on {H100} {a[0]:.3f}-{a[1]:.3f}" in basis and f"b on {A100} 0.500-0.500" in basis
    assert "learnt from 2 of our bands" in row["method"]
    # the prior stays beside it, as the fallback
    assert (row["delivered_fraction_prior_low"], row["delivered_fraction_prior_high"]) == (0.5, 0.8)


def test_a_single_run_gives_min_equal_to_max_with_a_count_of_one_and_says_so(conn):
    load(conn, [run_row("a")], [point("a", 0, 10, 100), point("a", 1, 20, 200)])  # never crosses: low = high
    delivered(conn)
    write_references(conn, [reference_row(H100, 1000.0), reference_row(B200, 4000.0)])
    row = projected_on(project(conn), B200)
    assert row["delivered_fraction_low"] == row["delivered_fraction_high"] == pytest.approx(20 * TOKENS / 1000)
    assert row["delivered_fraction_runs"] == 1
    assert "learnt from 1 band of ours" in row["delivered_fraction_basis"]
    assert "one band, so min and max are its own, no spread across configs" in row["delivered_fraction_basis"]


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
    assert basis.startswith("prior [0.5, 0.8] of the profile: no band of ours is learnt from; not learnt from: ")
    assert "a (fraction 2 - 2 outside (0.001, 1.5]" in basis and "b (no load point meets the SLO" in basis
    assert "c (fraction 0.0001 - 0.0001 outside" in basis
    assert "the profile's prior" in row["method"]


def test_a_run_whose_files_lack_the_bounded_percentile_is_said_unmeasured_not_missed(conn):
    """Dumps with p50 and p99 but no p95, under a p95 SLO: the run is not learnt from, and the projected band's
    basis says the bound was not measured, never that no load point meets the SLO (that is for a run measured and
    missing, b)."""
    unmeasured = []
    for index, rate in enumerate((10, 20)):
        row = point("a", index, rate, None, tpot=None)
        row.update(ttft_p50_ms=100.0, ttft_p99_ms=400.0, tpot_p50_ms=10.0, tpot_p99_ms=20.0)
        unmeasured.append(row)
    load(conn, [run_row("a"), run_row("b", accelerator=A100)], [*unmeasured, point("b", 0, 10, 5000)])
    delivered(conn)
    write_references(conn, [reference_row(H100), reference_row(A100), reference_row(B200)])
    basis = projected_on(project(conn), B200)["delivered_fraction_basis"]
    fractions = measured(conn)
    assert fractions["a"][2] is False
    assert fractions["a"][3] == (
        "the SLO bounds tpot_p95_ms, ttft_p95_ms, which the run's files do not measure: no band measured, no fraction"
    )
    assert "a (the SLO bounds tpot_p95_ms, ttft_p95_ms, which the run's files do not measure" in basis
    assert "b (no load point meets the SLO: nothing delivered, no fraction" in basis
    assert "a (no load point meets the SLO" not in basis


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


def by_source(conn):
    rows = conn.execute(
        "SELECT source, run_labels, delivered_fraction_low, delivered_fraction_high, learnt_from, not_learnt_reason "
        "FROM projected.measured_fractions"
    ).fetchall()
    return {(source, label): rest for source, label, *rest in rows}


def test_a_configs_band_calibrated_on_our_traffic_is_learnt_in_place_of_its_runs_measured_band(conn):
    # run a on 1 x H100 sustained 10-14.5 req/s of 50-token answers as measured; our traffic (1000 in, 40 out: the
    # profile's workload, whose output mean the calibrated band's token rates are taken at) through its config's
    # engine model: 8-12 req/s; H100's MLPerf 1000 tokens/s per accelerator
    (profile,), bounds = profile_rows()
    profile.update(input_tokens_stated=stated_mean(1000.0), output_tokens_stated=stated_mean(40.0))
    load(conn, [run_row("a")], [point("a", 0, 10, 100), point("a", 1, 20, 2100)], [profile], bounds)
    write_calibrated(conn, calibrated_band("a", 8.0, 12.0, 1000.0, 40.0))
    delivered(conn)
    write_references(conn, [reference_row(H100, 1000.0), reference_row(B200, 4000.0, total=8)])
    row = projected_on(project(conn), B200)
    fractions = by_source(conn)
    assert fractions[("calibrated", "a")] == pytest.approx([8 * 40 / 1000, 12 * 40 / 1000, True, None])
    measured_a = fractions[("observed", "a")]
    assert measured_a[:2] == pytest.approx([10 * TOKENS / 1000, (10 + 900 / 2000 * 10) * TOKENS / 1000])
    assert measured_a[2] is False
    assert (
        measured_a[3]
        == "its config's band calibrated on our traffic (cfg-a) is learnt from instead: one config, one band"
    )
    assert (row["delivered_fraction_low"], row["delivered_fraction_high"]) == pytest.approx((0.32, 0.48))
    assert row["delivered_fraction_runs"] == 1
    assert row["delivered_output_tokens_per_s_high"] == pytest.approx(4000 * 8 * 0.48)
    assert row["delivered_fraction_basis"].startswith(
        f"learnt from 1 band of ours (a calibrated on our traffic on {H100} 0.320-0.480; "
    )


def test_a_band_that_may_not_bill_is_not_learnt_and_the_runs_measured_band_is(conn):
    load(conn, [run_row("a")], [point("a", 0, 10, 100), point("a", 1, 20, 2100)])
    unreliable = calibrated_band("a", 8.0, 12.0, 1000.0, 40.0) | {"bills": False, "config_status": "unreliable"}
    write_calibrated(conn, unreliable)
    delivered(conn)
    write_references(conn, [reference_row(H100, 1000.0), reference_row(B200, 4000.0, total=8)])
    row = projected_on(project(conn), B200)
    fractions = by_source(conn)
    assert fractions[("calibrated", "a")][2:] == [
        False,
        "the engine model is unreliable: a band that may not bill is not learnt from",
    ]
    assert fractions[("observed", "a")][2:] == [True, None]
    assert row["delivered_fraction_high"] == pytest.approx((10 + 900 / 2000 * 10) * TOKENS / 1000)
    assert "a calibrated (the engine model is unreliable" in row["delivered_fraction_basis"]


def test_a_calibrated_status_other_than_delivered_is_kept_with_its_reason(conn):
    load(conn, [run_row("a")], [point("a", 0, 10, 100), point("a", 1, 20, 2100)])
    missed = calibrated_band("a", None, None, 1000.0, 40.0) | {
        "status": "misses_slo",
        "status_reason": "even the lightest point of the curve misses ttft_p95_ms",
    }
    write_calibrated(conn, missed)
    delivered(conn)
    write_references(conn, [reference_row(H100, 1000.0), reference_row(B200, 4000.0, total=8)])
    project(conn)
    fractions = by_source(conn)
    assert fractions[("calibrated", "a")][2:] == [
        False,
        "calibrated misses_slo (even the lightest point of the curve misses ttft_p95_ms): no band to learn from",
    ]
    assert fractions[("observed", "a")][2] is True
