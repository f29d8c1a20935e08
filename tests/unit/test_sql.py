"""The SQL marts on a small DuckDB in a temporary folder: SLO band, projection and cost formulas."""

import duckdb
import pytest

from assets.warehouse.sqlfiles import run_sql_file
from assets.warehouse.write import write_table
from schemas.cost.cost_per_request import CostPerRequest
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
    write_prices,
    write_references,
)


@pytest.fixture
def conn(tmp_path):
    connection = duckdb.connect(str(tmp_path / "build.duckdb"))
    yield connection
    connection.close()


def test_crossing_is_interpolated_towards_the_first_failing_point(conn):
    load(conn, [run_row("a")], [point("a", 0, 10, 100), point("a", 1, 20, 200), point("a", 2, 30, 2100)])
    row = delivered(conn)["a"]
    assert row["feasible"] and row["slo_crossed"]
    assert (row["low_load_index"], row["failing_load_index"], row["binding_measure"]) == (1, 2, "ttft_p95_ms")
    assert row["delivered_requests_per_s_low"] == 20
    assert row["delivered_requests_per_s_high"] == pytest.approx(20 + (1000 - 200) / (2100 - 200) * 10)
    assert row["delivered_output_tokens_per_s_high"] == pytest.approx(row["delivered_requests_per_s_high"] * 50)


def test_the_bound_crossed_first_binds(conn):
    # ttft reaches its bound half-way to the failing point, tpot a quarter of the way: tpot binds
    load(conn, [run_row("a")], [point("a", 0, 10, 100, tpot=10), point("a", 1, 20, 1900, tpot=170)])
    row = delivered(conn)["a"]
    assert row["binding_measure"] == "tpot_p95_ms"
    assert row["delivered_requests_per_s_high"] == pytest.approx(10 + (50 - 10) / (170 - 10) * 10)


def test_no_failing_point_gives_a_lower_bound(conn):
    load(conn, [run_row("a")], [point("a", 0, 10, 100), point("a", 1, 20, 200)])
    row = delivered(conn)["a"]
    assert row["feasible"] and not row["slo_crossed"]
    assert row["delivered_requests_per_s_low"] == row["delivered_requests_per_s_high"] == 20


def test_with_repeats_and_no_failing_point_the_band_spans_the_last_point_s_repeats(conn):
    load(conn, [run_row("a")], [point("a", 0, 10, 100), point("a", 1, 20, 200), point("a", 1, 22, 200, repeat=1)])
    row = delivered(conn)["a"]
    assert row["feasible"] and not row["slo_crossed"]
    assert (row["delivered_requests_per_s_low"], row["delivered_requests_per_s_high"]) == (20, 22)


def test_first_point_failing_means_nothing_is_delivered(conn):
    load(conn, [run_row("a")], [point("a", 0, 10, 5000), point("a", 1, 20, 200)])
    row = delivered(conn)["a"]
    assert not row["feasible"] and row["delivered_requests_per_s_low"] is None


def test_points_after_the_first_failure_do_not_count(conn):
    load(conn, [run_row("a")], [point("a", 0, 10, 100), point("a", 1, 20, 5000), point("a", 2, 30, 100)])
    row = delivered(conn)["a"]
    assert row["delivered_requests_per_s_low"] == 10 and row["failing_load_index"] == 1


def test_a_point_without_a_measured_rate_never_enters_the_band(conn):
    # LLMPerf's per-request half alone: latencies but no timestamps, so no rate (NULL with a reason, never 0)
    unmeasured = point("a", 2, 30, 100) | {"achieved_requests_per_s": None}
    load(conn, [run_row("a")], [point("a", 0, 10, 100), point("a", 1, 20, 200), unmeasured])
    reason = conn.execute(
        "SELECT achieved_requests_per_s, achieved_rate_missing_reason FROM observed.load_points WHERE load_index = 2"
    ).fetchone()
    assert reason[0] is None and "no rate" in reason[1]
    row = delivered(conn)["a"]
    assert row["delivered_requests_per_s_low"] == row["delivered_requests_per_s_high"] == 20


def test_a_missing_measure_fails_its_bound(conn):
    load(conn, [run_row("a")], [point("a", 0, 10, 100), point("a", 1, 20, None)])
    row = delivered(conn)["a"]
    assert row["delivered_requests_per_s_low"] == row["delivered_requests_per_s_high"] == 10


def test_errors_above_the_bound_fail_a_point(conn):
    load(conn, [run_row("a")], [point("a", 0, 10, 100), point("a", 1, 20, 100, error_rate=0.2)])
    row = delivered(conn)["a"]
    assert row["delivered_requests_per_s_low"] == 10 and row["binding_measure"] == "error_rate"


def test_runs_of_another_model_are_not_paired(conn):
    load(conn, [run_row("a", model="deepseek-r1")], [point("a", 0, 10, 100)])
    assert delivered(conn) == {}


def test_runs_of_a_model_no_alias_table_knows_are_paired_by_its_key(conn):
    run = {**run_row("a", model=None), "model_raw": "/models/chat-3b-awq", "model_key": "chat-3b"}
    (profile,), bounds = profile_rows()
    profile.update(model_raw="acme/Chat-3B", model_id=None, model_known=False, model_key="chat-3b")
    load(conn, [run], [point("a", 0, 10, 100)], [profile], bounds)
    assert delivered(conn)["a"]["model_id"] == "chat-3b"  # the key: what its quality evidence is kept under too


def test_projection_and_cost_formulas(conn):
    load(conn, [run_row("a")], [point("a", 0, 10, 100), point("a", 1, 20, 2100)])
    delivered(conn)
    write_references(conn, [reference_row(H100), reference_row("nvidia-b200-sxm-180gb", 4000.0)])
    projected = project(conn)
    # H100 has a run of ours, so only B200 is projected, at the fraction our H100 run measured against H100's
    # MLPerf 1000 tok/s per accelerator: 10 and 14.5 req/s x 50 tokens / 1000 = [0.5, 0.725]; 4000 x 8 x that
    high_rate = 10 + (1000 - 100) / (2100 - 100) * 10
    (row,) = projected.iter_rows(named=True)
    assert row["accelerator_id"] == "nvidia-b200-sxm-180gb"
    assert (row["delivered_fraction_low"], row["delivered_fraction_high"]) == pytest.approx(
        (0.5, high_rate * 50 / 1000)
    )
    assert row["delivered_output_tokens_per_s_low"] == pytest.approx(16000)
    assert row["delivered_output_tokens_per_s_high"] == pytest.approx(32000 * high_rate * 50 / 1000)
    assert row["delivered_requests_per_s_low"] == pytest.approx(16000 / 50)

    # an older price of the same class and provider is superseded by the newest
    in_force = write_prices(
        conn, (H100, "on_demand", 3.6, 2), (H100, "on_demand", 9.9, 1), ("nvidia-b200-sxm-180gb", "tco_model", 1.8, 1)
    )
    assert sorted(in_force["usd_per_accelerator_hour"].to_list()) == [1.8, 3.6]
    cost = run_sql_file(conn, "cost/cost_per_request.sql")
    write_table(conn, "cost.cost_per_request", cost, CostPerRequest)
    rows = {r["accelerator_id"]: r for r in cost.iter_rows(named=True)}
    assert len(rows) == 2
    h100 = rows[H100]
    assert h100["usd_per_accelerator_hour"] == 3.6
    assert h100["cost_per_request_usd_high"] == pytest.approx(3.6 / (10 * 3600))
    assert h100["cost_per_request_usd_low"] == pytest.approx(3.6 / (high_rate * 3600))
    assert h100["cost_per_million_output_tokens_usd_high"] == pytest.approx(3.6 / (500 * 3600) * 1e6)
    b200 = rows["nvidia-b200-sxm-180gb"]
    assert b200["cost_per_request_usd_low"] == pytest.approx(1.8 * 8 / (32000 * high_rate / 1000 * 3600))
    assert b200["cost_per_million_input_tokens_usd_low"] is None


@pytest.mark.parametrize(
    ("ours", "basis", "said"),
    [
        ((1000.0, 50.0), "calibrated", "input tokens differ: ours 1000, measured 200 (-80%)"),
        ((200.0, 30.0), "calibrated", "output tokens differ: ours 30, measured 50 (+67%)"),
        ((240.0, 55.0), "measured", "measured as run: its workload matches ours"),  # +-20% and -9%: within 25%
    ],
)
def test_the_bill_rests_on_the_calibrated_band_where_the_runs_token_means_differ_from_ours_by_over_25pc(
    conn, ours, basis, said
):
    """cost.cost_per_request decides the band once: the run measured 200 / 50 tokens per request (point());
    our traffic's means (the profile's resolved workload, requirement.workload) beyond 25% of those bill on the
    calibrated band (8 to 12 req/s), with token rates at our means; within 25%, on the measured band (10 to 14.5
    req/s)."""
    (profile,), bounds = profile_rows()
    profile.update(input_tokens_stated=stated_mean(ours[0]), output_tokens_stated=stated_mean(ours[1]))
    load(conn, [run_row("a")], [point("a", 0, 10, 100), point("a", 1, 20, 2100)], [profile], bounds)
    row = calibrated_band("a", 8.0, 12.0, *ours)
    write_calibrated(conn, row)
    delivered(conn)
    write_references(conn, [reference_row(H100)])
    project(conn)
    write_prices(conn, (H100, "on_demand", 3.6, 1))
    (cost,) = run_sql_file(conn, "cost/cost_per_request.sql").iter_rows(named=True)
    assert cost["billed_basis"] == basis and said in cost["billed_basis_reason"]
    low, high = (8.0, 12.0) if basis == "calibrated" else (10.0, 10 + 900 / 2000 * 10)
    assert (cost["billed_requests_per_s_low"], cost["billed_requests_per_s_high"]) == pytest.approx((low, high))
    # the measured band keeps its own name whichever band bills
    measured = (cost["measured_requests_per_s_low"], cost["measured_requests_per_s_high"])
    assert measured == pytest.approx((10.0, 10 + 900 / 2000 * 10))
    assert cost["cost_per_request_usd_high"] == pytest.approx(3.6 / (low * 3600))
    out_per_request = ours[1] if basis == "calibrated" else 50.0
    assert cost["billed_output_tokens_per_s_high"] == pytest.approx(high * out_per_request)
    if basis == "calibrated":  # the band's own error first (+-10%), then the model's held-out median and worst
        assert cost["calibrated_band_rel_error"] == 0.1
        assert "band error +-10.0%; engine model held-out error median 10%, worst 30%" in cost["billed_basis_reason"]
    else:
        assert cost["calibrated_band_rel_error"] is None


def test_a_run_whose_files_lack_the_bounded_percentile_bills_on_its_calibrated_band(conn):
    """Dumps that state p50 and p99 but no p95, under a p95 SLO: no band is measured (observed.delivered_at_slo names
    the unmeasured bounds), and where the run's config's calibrated band bills as delivered, the bill rests on it
    (billed_basis calibrated, with the reason), the measured band empty; without one, nothing bills."""
    points = []
    for index, rate in enumerate((10, 20)):
        row = point("a", index, rate, None, tpot=None)
        row.update(ttft_p50_ms=100.0, ttft_p99_ms=400.0, tpot_p50_ms=10.0, tpot_p99_ms=20.0)
        points.append(row)
    load(conn, [run_row("a"), run_row("b")], points + [{**p, "run_id": "b"} for p in points])
    write_calibrated(conn, calibrated_band("a", 26.7, 31.3, 200.0, 50.0))
    bands = delivered(conn)
    assert not bands["a"]["feasible"] and "ttft_p95_ms" in bands["a"]["unmeasured_bounds"]
    write_references(conn, [reference_row(H100)])
    project(conn)
    write_prices(conn, (H100, "on_demand", 3.6, 1))
    costs = {r["run_label"]: r for r in run_sql_file(conn, "cost/cost_per_request.sql").iter_rows(named=True)}
    assert set(costs) == {"a"}  # b: no calibrated band, nothing measured: no bill
    cost = costs["a"]
    assert cost["billed_basis"] == "calibrated"
    assert "the run's files do not measure what the SLO bounds: " in cost["billed_basis_reason"]
    assert "ttft_p95_ms (they have ttft_p50_ms, ttft_p99_ms: set the SLO on ttft_p99_ms" in cost["billed_basis_reason"]
    assert (cost["billed_requests_per_s_low"], cost["billed_requests_per_s_high"]) == (26.7, 31.3)
    assert cost["measured_requests_per_s_low"] is None and cost["measured_requests_per_s_high"] is None
    assert cost["cost_per_request_usd_high"] == pytest.approx(3.6 / (26.7 * 3600))
