"""What the token mix and the bursts cost (assets/calibrate/sensitivity.py, assets/calibrate/cost_sensitivity.py,
sql/calibrated/cost_sensitivity.sql): on a hand-built engine, doubling prompts or answers never raises the SLO rate,
evenly spaced arrivals are delivered faster than Poisson ones and Poisson faster than bursts; the priced table follows
the cost and monthly-bill arithmetic recomputed by hand; what cannot be priced is said on its row."""

import datetime
import math

import duckdb
import polars as pl
import pytest

from assets.calibrate import project, sensitivity
from assets.calibrate.cost_sensitivity import RATES, SQL, rate_rows, sensitivity_rows, write_cost_sensitivity
from assets.calibrate.engine import EngineParams
from assets.warehouse.sqlfiles import read_sql, run_sql_file
from assets.warehouse.validate import split_valid
from schemas.calibrated.cost_sensitivity import CostSensitivity
from tests.support.engine_rows import engine_columns
from tests.support.workloads import workload_row

ENGINE = EngineParams(b0_ms=6.0, b1_ms=0.02, b2_ms=0.1, b3_ms=0.0006, ttft_overhead_ms=20.0, max_num_seqs=128)
BOUNDS = {"ttft_p95_ms": 1000.0, "tpot_p95_ms": 50.0, "error_rate": 0.01}
H100 = "nvidia-h100-sxm-80gb"


@pytest.fixture(scope="module")
def poisson_variants() -> dict[str, sensitivity.Variant]:
    return {v.variant: v for v in sensitivity.variants(ENGINE, project.from_means(200, 64, None), BOUNDS)}


def test_doubling_prompts_or_answers_never_lowers_the_cost_per_request(poisson_variants):
    ratio = {name: v.rate_ratio for name, v in poisson_variants.items()}
    assert ratio["our_mix"] == 1.0
    # cost per request is the hourly price over the rate: a lower rate is a higher cost
    assert ratio["prompts_x2"] <= 1.0 <= ratio["prompts_x0.5"]
    assert ratio["answers_x2"] <= 1.0 <= ratio["answers_x0.5"]
    assert {v.found for v in poisson_variants.values()} == {"crossing"}
    # doubling the prompts doubles the prefill work: its share of accelerator time rises
    assert poisson_variants["prompts_x2"].prefill_share > poisson_variants["our_mix"].prefill_share
    assert poisson_variants["answers_x2"].prefill_share < poisson_variants["our_mix"].prefill_share
    assert (poisson_variants["prompts_x2"].input_tokens_mean, poisson_variants["answers_x0.5"].output_tokens_mean) == (
        pytest.approx(400.0),
        pytest.approx(32.0),
    )


def test_poisson_arrivals_are_not_priced_again_when_ours_are_poisson(poisson_variants):
    assert sensitivity.POISSON not in poisson_variants


def test_evenly_spaced_arrivals_deliver_more_than_poisson_and_poisson_more_than_bursts():
    # an engine whose queue binds (16 running sequences) under a TTFT bound: arrivals decide how long requests wait
    queued = ENGINE.with_(max_num_seqs=16)
    bounds = {"ttft_p95_ms": 300.0, "error_rate": 0.01}
    rates = [
        sensitivity.slo_rate(queued, project.from_means(200, 64, cv), bounds).requests_per_s for cv in (0.0, 1.0, 4.0)
    ]
    assert rates[0] >= rates[1] > rates[2] > 0


def test_bursty_traffic_is_priced_again_at_poisson_arrivals_with_the_same_token_mix():
    bursty = project.from_means(200, 64, 4.0)
    found = {v.variant: v for v in sensitivity.variants(ENGINE, bursty, BOUNDS)}
    assert found[sensitivity.POISSON].interarrival_cv == 1.0
    assert found[sensitivity.POISSON].input_tokens_mean == pytest.approx(200.0)
    assert found[sensitivity.POISSON].rate_ratio > 1.0  # our bursts cost capacity


def delivered_row(status="delivered", bills=True, low=80.0, high=120.0, error=0.2, **changes) -> dict:
    """A calibrated.delivered_at_slo row (only the columns the sensitivity reads)."""
    row = {
        "profile": "chat",
        "config_key": "cfg-test",
        "config_label": "llama, 1x h100, bf16, vLLM",
        "run_labels": '["sweep"]',
        "model_id": "llama-3.1-8b-instruct",
        "model_key": "llama-3.1-8b-instruct",
        "accelerator_id": H100,
        "accelerator_count": 2,
        "status": status,
        "status_reason": None,
        "bills": bills,
        "delivered_requests_per_s_low": low,
        "delivered_requests_per_s_high": high,
        "band_rel_error": error,
        "band_basis": "median held-out error",
        "heldout_rel_error_median": 0.1,
        "heldout_rel_error_worst": 0.3,
        "traffic_basis": "workload means",
    }
    return row | changes


def variant(name, ratio, found="crossing") -> sensitivity.Variant:
    return sensitivity.Variant(name, 200.0, 64.0, 1.0, ratio, found, 0.3)


def test_a_variants_band_is_our_band_times_its_rate_ratio():
    ours, doubled, missed = rate_rows(
        delivered_row(), [variant("our_mix", 1.0), variant("prompts_x2", 0.5), variant("answers_x2", math.nan)]
    )
    assert (ours["delivered_requests_per_s_low"], ours["delivered_requests_per_s_high"]) == (80.0, 120.0)
    assert (doubled["delivered_requests_per_s_low"], doubled["delivered_requests_per_s_high"]) == (40.0, 60.0)
    assert doubled["delivered_requests_per_s_model"] == pytest.approx(80.0 * 1.2 * 0.5)
    assert missed["status"] == "misses_slo" and "no SLO rate" in missed["status_reason"]


def test_a_config_whose_band_does_not_bill_is_one_row_saying_why():
    (row,) = sensitivity_rows(
        delivered_row(status="misses_slo", bills=False, status_reason="even at 1 requests/s ttft misses"), {}, {}, {}
    )
    assert row["status"] == "not_priced" and "even at 1 requests/s ttft misses" in row["status_reason"]


def price(rows: list[dict]) -> duckdb.DuckDBPyConnection:
    """The SQL over `rows` (rate rows), one price for H100 (the newer of two), a profile at a peak of 250 requests/s:
    calibrated.cost_sensitivity on a connection of its own."""
    conn = duckdb.connect()
    conn.execute("CREATE SCHEMA benchmark; CREATE SCHEMA marts; CREATE SCHEMA calibrated")
    conn.execute(
        "CREATE TABLE benchmark.accelerator_prices AS SELECT * FROM (VALUES "
        f"('{H100}', 'on_demand', 'P', DATE '2024-01-01', 3.0::DOUBLE, 1), ('{H100}', 'on_demand', 'P', "
        "DATE '2025-01-01', 2.5::DOUBLE, 2)) "
        "AS t(accelerator_id, price_class, price_provider, price_as_of, usd_per_accelerator_hour, source_row)"
    )
    conn.register("in_force", run_sql_file(conn, "benchmark/prices_in_force.sql"))  # the newer price, 2.5
    conn.execute("CREATE TABLE benchmark.prices_in_force AS SELECT * FROM in_force")
    conn.execute(
        "CREATE TABLE marts.capacity_plan AS SELECT 'chat' AS profile, 100.0::DOUBLE AS mean_requests_per_s, "
        "250.0::DOUBLE AS peak_requests_per_s"
    )
    conn.register(RATES, pl.DataFrame(rows, schema_overrides={"delivered_requests_per_s_high": pl.Float64}))
    frame = run_sql_file(conn, SQL)
    valid, rejects = split_valid(frame, CostSensitivity, "calibrated.cost_sensitivity")
    assert valid.height == frame.height and rejects == []
    conn.register("priced", frame)
    conn.execute("CREATE TABLE calibrated.cost_sensitivity AS SELECT * FROM priced")
    return conn


@pytest.fixture
def priced() -> list[dict]:
    """Two variants of one config and the same on an accelerator without a price."""
    rows = rate_rows(delivered_row(), [variant("our_mix", 1.0), variant("poisson_arrivals", 1.25)])
    rows.append(rows[0] | {"config_key": "cfg-unpriced", "accelerator_id": "tpu-x"})
    return price(rows).sql("SELECT * FROM calibrated.cost_sensitivity").pl().to_dicts()


def test_a_lower_bound_is_priced_at_its_high_cost_and_passes_the_blocking_check():
    """A sweep that never saturated gives a lower_bound rate (at least 80 requests/s, no high end): its cost is at
    most the price over that rate, with no low cost; the blocking check over the table finds nothing; on an
    accelerator without a price it says so."""
    rows = rate_rows(
        delivered_row(status="lower_bound", high=None, status_reason="never saturated"),
        [variant("our_mix", 1.0), variant("prompts_x2", 0.5)],
    )
    rows.append(rows[0] | {"config_key": "cfg-unpriced", "accelerator_id": "tpu-x"})
    conn = price(rows)
    found = {
        (r["config_key"], r["variant"]): r
        for r in conn.sql("SELECT * FROM calibrated.cost_sensitivity").pl().to_dicts()
    }
    ours, doubled, unpriced = (
        found["cfg-test", "our_mix"],
        found["cfg-test", "prompts_x2"],
        found["cfg-unpriced", "our_mix"],
    )
    per_hour = 2.5 * 2
    assert ours["status"] == doubled["status"] == "lower_bound"
    assert ours["cost_per_request_usd_high"] == pytest.approx(per_hour / 3600 / 80.0)
    assert doubled["cost_per_request_usd_high"] == pytest.approx(per_hour / 3600 / 40.0)
    assert ours["cost_per_request_usd_low"] is None and ours["monthly_usd_high"] == 4 * per_hour * 730
    assert unpriced["status"] == "no_price" and "no price for tpu-x" in unpriced["status_reason"]
    assert conn.execute(read_sql("checks/calibrated/cost_sensitivity__costs_follow_the_band.sql")).fetchall() == []


def test_costs_and_the_bursts_bill_follow_the_cost_and_capacity_arithmetic(priced):
    ours, poisson, unpriced = (
        next(r for r in priced if (r["config_key"], r["variant"]) == key)
        for key in (("cfg-test", "our_mix"), ("cfg-test", "poisson_arrivals"), ("cfg-unpriced", "our_mix"))
    )
    per_hour = 2.5 * 2  # the newest price x 2 accelerators
    assert ours["usd_per_accelerator_hour"] == 2.5 and ours["price_as_of"] == datetime.date(2025, 1, 1)
    assert ours["cost_per_request_usd_low"] == pytest.approx(per_hour / 3600 / 120.0)
    assert ours["cost_per_request_usd_high"] == pytest.approx(per_hour / 3600 / 80.0)
    assert ours["cost_per_million_output_tokens_usd_low"] == pytest.approx(per_hour / 3600 / (120.0 * 64) * 1e6)
    # replicas for a peak of 250: ceil(250 / 120) = 3 and ceil(250 / 80) = 4; a month is 730 hours
    assert (ours["monthly_usd_low"], ours["monthly_usd_high"]) == (3 * per_hour * 730, 4 * per_hour * 730)
    # at Poisson arrivals 100 to 150 requests/s: ceil(250 / 150) = 2 and ceil(250 / 100) = 3 replicas
    assert (poisson["monthly_usd_low"], poisson["monthly_usd_high"]) == (2 * per_hour * 730, 3 * per_hour * 730)
    assert poisson["bursts_monthly_usd_low"] == poisson["bursts_monthly_usd_high"] == per_hour * 730
    assert ours["bursts_monthly_usd_low"] is None
    # the change is against our mix's cost at the model's own rate (80 x 1.2 = 96 requests/s)
    assert poisson["cost_per_request_change_low"] == pytest.approx(96 / 150 - 1)
    assert poisson["cost_per_request_change_high"] == pytest.approx(96 / 100 - 1)
    assert unpriced["status"] == "no_price" and "no price for tpu-x" in unpriced["status_reason"]


@pytest.mark.parametrize(
    "changes,column",
    [
        ({"variant": "prompts_x3"}, "variant"),
        ({"prefill_share": 1.5}, "prefill_share"),
        ({"evidence": "observed"}, "evidence"),
    ],
)
def test_a_bad_row_is_rejected_with_the_failed_check(priced, changes, column):
    frame = pl.DataFrame([priced[0], priced[1] | changes], schema=pl.DataFrame(priced).schema)
    valid, rejects = split_valid(frame, CostSensitivity, "calibrated.cost_sensitivity")
    assert valid.height == 1 and len(rejects) == 1 and column in rejects[0].reason


def test_a_bursty_profile_is_priced_at_our_arrivals_and_at_poisson_through_the_whole_table():
    """write_cost_sensitivity on a warehouse of hand-built tables: a profile stating arrival CV 4 gets its bursts'
    monthly cost, our mix at exactly the band of calibrated.delivered_at_slo."""
    conn = duckdb.connect()
    workload = {k: v for k, v in workload_row(arrival_cv=4.0).items() if not k.startswith("_")}
    tables = {
        "requirement.workload": [workload],
        "requirement.slo_bounds": [{"profile": "chat", "measure": m, "bound": b} for m, b in BOUNDS.items()],
        "calibrated.engine_models": [{"config_key": "cfg-test", **engine_columns(ENGINE)}],
        "calibrated.delivered_at_slo": [delivered_row()],
        "benchmark.prices_in_force": [
            {
                "accelerator_id": H100,
                "price_class": "on_demand",
                "price_provider": "P",
                "price_as_of": datetime.date(2025, 1, 1),
            }
            | {"usd_per_accelerator_hour": 2.5, "source_row": 1}
        ],
        "marts.capacity_plan": [{"profile": "chat", "mean_requests_per_s": 25.0, "peak_requests_per_s": 250.0}],
    }
    for table, rows in tables.items():
        conn.execute(f"CREATE SCHEMA IF NOT EXISTS {table.split('.')[0]}")
        conn.register("rows", pl.DataFrame(rows))
        conn.execute(f"CREATE TABLE {table} AS SELECT * FROM rows")
        conn.unregister("rows")
    report = write_cost_sensitivity(conn)
    rows = {r["variant"]: r for r in conn.sql("SELECT * FROM calibrated.cost_sensitivity").pl().to_dicts()}
    assert report.rows == 6 and set(rows) == {name for name, _, _ in sensitivity.MIXES} | {sensitivity.POISSON}
    ours, poisson = rows["our_mix"], rows[sensitivity.POISSON]
    assert (ours["delivered_requests_per_s_low"], ours["delivered_requests_per_s_high"]) == (80.0, 120.0)
    assert ours["interarrival_cv"] == 4.0 and poisson["interarrival_cv"] == 1.0
    assert poisson["rate_ratio"] > 1.0 and poisson["monthly_usd_high"] <= ours["monthly_usd_high"]
    assert poisson["bursts_monthly_usd_high"] == ours["monthly_usd_high"] - poisson["monthly_usd_high"]
