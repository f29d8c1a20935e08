"""The SQL marts on a small DuckDB in a temporary folder: SLO band, projection and cost formulas."""

import datetime

import duckdb
import polars as pl
import pytest

from assets.warehouse.sqlfiles import run_sql_file
from assets.warehouse.validate import frame_from_rows
from assets.warehouse.write import write_table
from schemas.benchmark.accelerator_prices import AcceleratorPrices
from schemas.benchmark.mlperf_profile_reference import MlperfProfileReference
from schemas.benchmark.mlperf_reference import MlperfReference
from schemas.benchmark.prices_in_force import PricesInForce
from schemas.calibrated.delivered_at_slo import DeliveredAtSlo as CalibratedDelivered
from schemas.cost.cost_per_request import CostPerRequest
from schemas.observed.delivered_at_slo import DeliveredAtSlo
from schemas.observed.load_point_measures import LoadPointMeasures
from schemas.observed.load_points import LoadPoints
from schemas.observed.measurements import Measurements
from schemas.observed.request_percentiles import RequestPercentiles
from schemas.observed.request_stats import RequestStats
from schemas.observed.runs import Runs
from schemas.projected.delivered_at_slo import ProjectedDeliveredAtSlo
from schemas.projected.measured_fractions import MeasuredFractions
from schemas.requirement.profiles import Profiles
from schemas.requirement.slo_bounds import SloBounds
from schemas.requirement.traffic_shape import TrafficShape

H100 = "nvidia-h100-sxm-80gb"
LLAMA = "llama-3.1-8b-instruct"


def run_row(run_id, model=LLAMA, accelerator=H100, count=1):
    return {
        "run_id": run_id,
        "run_label": run_id,
        "tool": "t",
        "tool_version": None,
        "accelerator_raw": "x",
        "accelerator_id": accelerator,
        "accelerator_known": accelerator is not None,
        "accelerator_count": count,
        "model_raw": "m",
        "model_id": model,
        "model_known": model is not None,
        "model_key": model or "m",
        "precision_raw": "bf16",
        "precision": "bf16",
        "precision_known": True,
        "precision_source": "run.yaml",
        "weight_bits": 16,
        "activation_bits": None,
        "precision_scheme": "bf16",
        "precision_note": None,
        "runtime": "vLLM",
        "runtime_version": "0.11.0",
        "runtime_settings": None,
        "arrival": "constant",
        "load_kind": "rate",
        "load_points": 0,
        "repeats_max": 1,
        "requests": 0,
        "formats": "f",
        "workload": None,
        "sidecar": "s",
        "report_dir": "d",
        "source_sha256": "x",
        "evidence": "observed",
    }


def point(run_id, index, rate, ttft, tpot=10.0, error_rate=0.0, repeat=0):
    """A measurement (one repeat of one load level) as a tool would report it."""
    row = {c: None for c in Measurements.to_schema().columns}
    failed = round(100 * error_rate)
    row.update(
        run_id=run_id,
        load_index=index,
        repeat_index=repeat,
        load_kind="rate",
        offered_rate_per_s=rate,
        achieved_requests_per_s=rate,
        requests_sent=100,
        requests_ok=100 - failed,
        requests_failed=failed,
        ttft_p95_ms=ttft,
        tpot_p95_ms=tpot,
        output_tokens_per_s=rate * 50,
        input_tokens_per_s=rate * 200,
        total_tokens_per_s=rate * 250,
        mean_input_tokens=200.0,
        mean_output_tokens=50.0,
        has_requests=False,
        tool_definitions="d",
        source="s",
        source_sha256="x",
        location="l",
        evidence="observed",
    )
    return row


def profile_rows(name="p", model=LLAMA, ttft=1000.0, tpot=50.0, error_rate=0.01, prior=(0.5, 0.8)):
    profile = {
        "profile": name,
        "model_raw": model,
        "model_id": model,
        "model_known": True,
        "model_key": model,
        "delivered_fraction_prior_lo": prior[0],
        "delivered_fraction_prior_hi": prior[1],
        "error_rate_max": error_rate,
        "input_tokens_mean": None,
        "output_tokens_mean": 50.0,
        "arrival_cv": None,
        "traffic_log": None,
        "requests_per_day": None,
        "mean_requests_per_s": None,
        "peak_to_mean": None,
        "peak_window_s": 60.0,
        "min_replicas": 1,
        "baseline_run_label": None,
        "slo_text": "t",
        "source": "s",
        "evidence": "requirement",
    }
    bounds = [
        {"profile": name, "measure": "ttft_p95_ms", "bound": ttft},
        {"profile": name, "measure": "tpot_p95_ms", "bound": tpot},
        {"profile": name, "measure": "error_rate", "bound": error_rate},
    ]
    return [profile], bounds


@pytest.fixture
def conn(tmp_path):
    connection = duckdb.connect(str(tmp_path / "build.duckdb"))
    yield connection
    connection.close()


def load(conn, runs, points, profiles=None, bounds=None):
    """Write runs, measurements (tool aggregates only: no request records) and profiles, then build the SQL
    tables in order."""
    profiles, bounds = (profiles, bounds) if profiles else profile_rows()
    write_table(conn, "observed.runs", frame_from_rows(runs, Runs), Runs)
    write_table(
        conn,
        "observed.measurements",
        pl.DataFrame(
            points,
            schema_overrides={
                c: pl.Float64 for c in Measurements.to_schema().columns if c.endswith(("_ms", "_per_s", "_tokens"))
            },
        ),
        Measurements,
    )
    write_table(conn, "observed.request_stats", frame_from_rows([], RequestStats), RequestStats)
    write_table(conn, "calibrated.delivered_at_slo", frame_from_rows([], CalibratedDelivered), CalibratedDelivered)
    write_table(conn, "observed.request_percentiles", frame_from_rows([], RequestPercentiles), RequestPercentiles)
    write_table(conn, "requirement.traffic_shape", frame_from_rows([], TrafficShape), TrafficShape)
    write_table(conn, "requirement.profiles", pl.DataFrame(profiles), Profiles)
    write_table(conn, "requirement.slo_bounds", pl.DataFrame(bounds), SloBounds)
    write_table(
        conn, "observed.load_point_measures", run_sql_file(conn, "observed/load_point_measures.sql"), LoadPointMeasures
    )
    write_table(conn, "observed.load_points", run_sql_file(conn, "observed/load_points.sql"), LoadPoints)


def delivered(conn):
    frame = run_sql_file(conn, "observed/delivered_at_slo.sql")
    write_table(conn, "observed.delivered_at_slo", frame, DeliveredAtSlo)
    return {r["run_id"]: r for r in frame.iter_rows(named=True)}


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


def reference_row(accelerator, per_accel=1000.0, total=8):
    return {
        "accelerator_id": accelerator,
        "model_id": LLAMA,
        "round": "v5.1",
        "division": "closed",
        "submitter": "S",
        "platform": "P",
        "system_name": "Sys",
        "mlperf_model": "llama3.1-8b",
        "accuracy_target": None,
        "availability": "available",
        "precision": "fp8",
        "software": "vLLM 0.10.0",
        "runtime": "vLLM",
        "runtime_version": "0.10.0",
        "total_accelerators": total,
        "server_result_key": f"k-{accelerator}",
        "server_tokens_per_s_per_accel": per_accel,
        "offline_result_key": None,
        "offline_tokens_per_s_per_accel": None,
        "interactive_result_key": None,
        "interactive_tokens_per_s_per_accel": None,
        "output_tokens_per_sample": None,
        "dataset": "d",
        "source": "f",
        "details_url": None,
        "evidence": "benchmark",
    }


def write_references(conn, rows):
    """benchmark.mlperf_reference from `rows`, and the scenario each profile is compared with."""
    write_table(conn, "benchmark.mlperf_reference", pl.DataFrame(rows), MlperfReference)
    frame = run_sql_file(conn, "benchmark/mlperf_profile_reference.sql")
    write_table(conn, "benchmark.mlperf_profile_reference", frame, MlperfProfileReference)


def project(conn):
    """projected.measured_fractions, then projected.delivered_at_slo, as the assets build them; the projected rows
    (requirement.traffic_shape empty, no traffic log, unless the test wrote one)."""
    if not conn.execute(
        "SELECT 1 FROM information_schema.tables WHERE table_schema = 'requirement' AND table_name = 'traffic_shape'"
    ).fetchall():
        no_log = {name: column.dtype.type for name, column in TrafficShape.to_schema().columns.items()}
        write_table(conn, "requirement.traffic_shape", pl.DataFrame([], schema=no_log), TrafficShape)
    write_table(
        conn, "projected.measured_fractions", run_sql_file(conn, "projected/measured_fractions.sql"), MeasuredFractions
    )
    projected = run_sql_file(conn, "projected/delivered_at_slo.sql")
    write_table(conn, "projected.delivered_at_slo", projected, ProjectedDeliveredAtSlo)
    return projected


def prices(*rows):
    return pl.DataFrame(
        [
            {
                "accelerator_raw": a,
                "accelerator_id": a,
                "accelerator_known": True,
                "price_class": c,
                "usd_per_accelerator_hour": usd,
                "provider": "P",
                "price_source": "s",
                "as_of": datetime.date(2026, 1, d),
                "source": "f",
                "source_row": i,
                "evidence": "benchmark",
            }
            for i, (a, c, usd, d) in enumerate(rows)
        ]
    )


def write_prices(conn, *rows):
    """benchmark.accelerator_prices from `rows` (accelerator, class, USD, day of January), then the prices in force
    as the asset builds them."""
    write_table(conn, "benchmark.accelerator_prices", prices(*rows), AcceleratorPrices)
    in_force = run_sql_file(conn, "benchmark/prices_in_force.sql")
    write_table(conn, "benchmark.prices_in_force", in_force, PricesInForce)
    return in_force


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


def calibrated_band(run_label, low, high, input_tokens, output_tokens):
    row = {column: None for column in CalibratedDelivered.to_schema().columns}
    row.update(
        profile="p", model_id=LLAMA, config_key=f"cfg-{run_label}", config_label=run_label, accelerator_id=H100,
        accelerator_count=1, runtime="vLLM", run_labels=f'["{run_label}"]', config_status="fitted",
        status="delivered", slo_text="ttft_p95_ms <= 1000", band_rel_error=0.1, evidence="calibrated", bills=True,
        delivered_requests_per_s_low=low, delivered_requests_per_s_high=high, heldout_rel_error_median=0.1,
        heldout_rel_error_worst=0.3, input_tokens_mean=input_tokens, output_tokens_mean=output_tokens,
    )  # fmt: skip
    return row


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
    our traffic's means beyond 25% of those bill on the calibrated band (8 to 12 req/s), with token rates at our
    means; within 25%, on the measured band (10 to 14.5 req/s)."""
    load(conn, [run_row("a")], [point("a", 0, 10, 100), point("a", 1, 20, 2100)])
    row = calibrated_band("a", 8.0, 12.0, *ours)
    frame = pl.DataFrame([row], schema={n: c.dtype.type for n, c in CalibratedDelivered.to_schema().columns.items()})
    write_table(conn, "calibrated.delivered_at_slo", frame, CalibratedDelivered)
    delivered(conn)
    write_references(conn, [reference_row(H100)])
    project(conn)
    write_prices(conn, (H100, "on_demand", 3.6, 1))
    (cost,) = run_sql_file(conn, "cost/cost_per_request.sql").iter_rows(named=True)
    assert cost["delivered_basis"] == basis and said in cost["delivered_basis_reason"]
    low, high = (8.0, 12.0) if basis == "calibrated" else (10.0, 10 + 900 / 2000 * 10)
    assert (cost["delivered_requests_per_s_low"], cost["delivered_requests_per_s_high"]) == pytest.approx((low, high))
    assert cost["cost_per_request_usd_high"] == pytest.approx(3.6 / (low * 3600))
    out_per_request = ours[1] if basis == "calibrated" else 50.0
    assert cost["delivered_output_tokens_per_s_high"] == pytest.approx(high * out_per_request)
