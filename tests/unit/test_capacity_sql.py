"""The capacity plan, the saving against the baseline, what to measure next and the MLPerf scenario a profile
is compared with, on a small DuckDB: every figure recomputed by hand from the formulas in docs/capacity-plan.md."""

import datetime
import math

import duckdb
import polars as pl
import pytest

from assets.calibrate.workload import write_workload
from assets.report.decision import decide
from assets.warehouse.sqlfiles import run_sql_file
from assets.warehouse.write import write_table
from schemas.benchmark.mlperf_results import MlperfResults
from schemas.calibrated.delivered_at_slo import DeliveredAtSlo as CalibratedDelivered
from schemas.cost.cost_per_request import CostPerRequest
from schemas.marts.capacity_plan import CapacityPlan
from schemas.marts.quality_gate import QualityGate
from schemas.marts.quality_to_measure import QualityToMeasure
from schemas.observed.delivered_at_slo import DeliveredAtSlo
from schemas.observed.runs import Runs
from schemas.projected.delivered_at_slo import ProjectedDeliveredAtSlo
from schemas.requirement.profiles import Profiles
from schemas.requirement.slo_bounds import SloBounds
from schemas.requirement.traffic_rate import TrafficRate
from schemas.requirement.traffic_shape import TrafficShape
from tests.support.sql_warehouse import (
    H100,
    LLAMA,
    calibrated_band,
    profile_rows,
    reference_row,
    write_calibrated,
    write_references,
)

B200 = "nvidia-b200-sxm-180gb"
MONTH_H = 730
RATES = [2.0, 6.0, 4.0, 8.0]  # the scaled window rates of our traffic: mean 5, peak 8


@pytest.fixture
def conn(tmp_path):
    connection = duckdb.connect(str(tmp_path / "build.duckdb"))
    empty(connection, "calibrated.delivered_at_slo", CalibratedDelivered)  # no engine model: no calibrated band
    yield connection
    connection.close()


def blank(model):
    return {column: None for column in model.to_schema().columns}


def cost_row(config_key, low, high, usd=2.0, count=1, evidence="observed", accelerator=H100, provider="P"):
    row = blank(CostPerRequest)
    row.update(
        profile="p",
        evidence=evidence,
        config_key=config_key,
        run_label=config_key if evidence == "observed" else None,
        model_id=LLAMA,
        accelerator_id=accelerator,
        accelerator_count=count,
        price_class="on_demand",
        price_provider=provider,
        usd_per_accelerator_hour=usd,
        price_as_of=datetime.date(2026, 1, 1),
        price_source="s",
        billed_requests_per_s_low=low,
        billed_requests_per_s_high=high,
        cost_per_request_usd_low=usd * count / (high * 3600) if high else None,
        cost_per_request_usd_high=usd * count / (low * 3600) if low else None,
        token_cost_basis="b",
    )
    return row


def traffic(conn, rates=RATES, window=60.0, per_day=5 * 86400.0, min_replicas=1, baseline="today"):
    """Profile p with a traffic log whose scaled windows are `rates`."""
    (profile,), bounds = profile_rows()
    profile.update(
        traffic_log="/logs/chat.csv",
        requests_per_day=per_day,
        peak_window_s=window,
        min_replicas=min_replicas,
        baseline_run_label=baseline,
    )
    write_table(conn, "requirement.profiles", pl.DataFrame([profile]), Profiles)
    write_table(conn, "requirement.slo_bounds", pl.DataFrame(bounds), SloBounds)
    shape = blank(TrafficShape)
    mean = sum(rates) / len(rates)
    shape.update(
        profile="p",
        traffic_log="/logs/chat.csv",
        requests=100,
        span_s=window * len(rates) + 1,
        window_s=window,
        windows=len(rates),
        window_mean_rate_per_s=mean,
        peak_rate_per_s=max(rates),
        peak_to_mean=max(rates) / mean,
        requests_per_day=per_day,
        volume_scale=1.0,
        mean_requests_per_s=mean,
        peak_requests_per_s=max(rates),
        source_sha256="x",
        evidence="requirement",
    )
    write_table(conn, "requirement.traffic_shape", pl.DataFrame([shape]), TrafficShape)
    windows = [
        {
            "profile": "p",
            "window_start_s": i * window,
            "requests": int(r * window),
            "rate_per_s": r,
            "scaled_rate_per_s": r,
        }
        for i, r in enumerate(rates)
    ]
    write_table(conn, "requirement.traffic_rate", pl.DataFrame(windows), TrafficRate)


def plan(conn, costs, runs=(), projected=()):
    """marts.capacity_plan over `costs` (requirement.workload resolved first); observed.runs holds `runs` (labels a
    baseline is matched with);
    `projected`: (config_key, delivered_fraction_basis) of projected rows."""
    write_table(conn, "cost.cost_per_request", pl.DataFrame(costs), CostPerRequest)
    write_workload(conn)  # the profile and its traffic log as the test wrote them, resolved
    rows = []
    for key, basis in projected:
        row = blank(ProjectedDeliveredAtSlo)
        row.update(profile="p", mlperf_result_key=key.removeprefix("mlperf:"), delivered_fraction_basis=basis)
        rows.append(row)
    frame = pl.DataFrame(rows, schema=_schema(ProjectedDeliveredAtSlo))
    conn.execute("CREATE SCHEMA IF NOT EXISTS projected")
    conn.register("projected_rows", frame)
    conn.execute("CREATE OR REPLACE TABLE projected.delivered_at_slo AS SELECT * FROM projected_rows")
    empty(conn, "marts.quality_gate", QualityGate)  # no quality requirement: every row untested
    empty(conn, "observed.runs", Runs)  # the runs' schemes: none needed here; their labels only
    for run in runs:
        conn.execute("INSERT INTO observed.runs (run_id, run_label) VALUES (?, ?)", [run, run])
    frame = run_sql_file(conn, "marts/capacity_plan.sql")
    write_table(conn, "marts.capacity_plan", frame, CapacityPlan)
    return {(r["config_key"], r["price_provider"]): r for r in frame.iter_rows(named=True)}


def ranked(conn):
    """marts.config_shortlist's ranking of the capacity plan's rows (the columns analytics.measure_next reads): our
    runs first, then the monthly bill, high end then low."""
    conn.execute(
        "CREATE OR REPLACE TABLE marts.config_shortlist AS SELECT profile, config_key, price_class, price_provider, "
        "row_number() OVER (PARTITION BY profile ORDER BY evidence <> 'observed', monthly_usd_high, monthly_usd_low, "
        "config_key, price_class, price_provider) AS rank_in_profile FROM marts.capacity_plan"
    )


def by_hand(low, high, usd=2.0, count=1, rates=RATES, min_replicas=1):
    """The formulas of docs/capacity-plan.md, written out again."""
    mean, peak = sum(rates) / len(rates), max(rates)
    r_low, r_high = math.ceil(peak / high), math.ceil(peak / low)
    monthly = lambda replicas: replicas * count * usd * MONTH_H  # noqa: E731
    utilisations = (mean / (r_high * low), mean / (r_low * high))
    auto_low = sum(max(min_replicas, math.ceil(r / high)) for r in rates) / len(rates)
    auto_high = sum(max(min_replicas, math.ceil(r / low)) for r in rates) / len(rates)
    return {
        "mean_requests_per_s": mean,
        "peak_requests_per_s": peak,
        "replicas_low": r_low,
        "replicas_high": r_high,
        "monthly_usd_low": monthly(r_low),
        "monthly_usd_high": monthly(r_high),
        "utilisation_low": min(utilisations),
        "utilisation_high": max(utilisations),
        "effective_cost_per_request_usd_low": monthly(r_low) / (mean * MONTH_H * 3600),
        "effective_cost_per_request_usd_high": monthly(r_high) / (mean * MONTH_H * 3600),
        "autoscaled_replicas_mean_low": auto_low,
        "autoscaled_replicas_mean_high": auto_high,
        "autoscaled_monthly_usd_low": monthly(auto_low),
        "autoscaled_monthly_usd_high": monthly(auto_high),
    }


def test_static_and_autoscaled_capacity_follow_the_formulas(conn):
    traffic(conn)
    rows = plan(conn, [cost_row("a", 3.0, 5.0), cost_row("b", 0.7, 0.9, usd=3.0, count=8)])
    for key, (low, high, usd, count) in {"a": (3.0, 5.0, 2.0, 1), "b": (0.7, 0.9, 3.0, 8)}.items():
        row = rows[(key, "P")]
        for column, value in by_hand(low, high, usd, count).items():
            assert row[column] == pytest.approx(value), (key, column)
        assert row["peak_window_s"] == 60 and row["min_replicas"] == 1
    # a: peak 8 over delivered [3, 5] needs 2 to 3 replicas; autoscaled 1,2,1,2 (low) and 1,2,2,3 (high)
    a = rows[("a", "P")]
    assert (a["replicas_low"], a["replicas_high"]) == (2, 3)
    assert (a["monthly_usd_low"], a["monthly_usd_high"]) == (2920, 4380)
    assert (a["autoscaled_monthly_usd_low"], a["autoscaled_monthly_usd_high"]) == (2190, 2920)
    assert (a["utilisation_low"], a["utilisation_high"]) == pytest.approx((0.5, 5 / 9))


def test_min_replicas_floors_the_autoscaled_windows(conn):
    traffic(conn, min_replicas=3)
    (row,) = plan(conn, [cost_row("a", 3.0, 5.0)]).values()
    assert row["autoscaled_replicas_mean_low"] == 3 and row["autoscaled_replicas_mean_high"] == pytest.approx(3)
    assert row["replicas_low"] == 2  # the static plan is for the peak, with no floor


def test_the_saving_against_the_baseline_is_a_band_at_the_same_price(conn):
    traffic(conn, baseline="today")
    rows = plan(
        conn,
        [
            cost_row("a", 3.0, 5.0),
            cost_row("b", 3.0, 5.0, accelerator=B200, provider="R"),
            cost_row("today", 1.0, 2.0),
            cost_row("today", 1.0, 2.0, usd=2.5, provider="Q"),
        ],
    )
    # today: ceil(8/2)=4 to ceil(8/1)=8 replicas at 2.0 (P) and 2.5 (Q) USD/h
    a = rows[("a", "P")]  # provider P prices both: compared at P's price
    assert (a["baseline_monthly_usd_low"], a["baseline_monthly_usd_high"]) == (4 * 2.0 * MONTH_H, 8 * 2.0 * MONTH_H)
    assert a["monthly_saving_usd_low"] == 4 * 2.0 * MONTH_H - 3 * 2.0 * MONTH_H
    assert a["monthly_saving_usd_high"] == 8 * 2.0 * MONTH_H - 2 * 2.0 * MONTH_H
    assert a["baseline_run_label"] == "today" and a["baseline_note"] == "against today at the same price (on_demand, P)"
    b = rows[("b", "R")]  # R has no price for today's accelerator: today's band across its on_demand providers
    baseline_low, baseline_high = 4 * 2.0 * MONTH_H, 8 * 2.5 * MONTH_H
    assert (b["baseline_monthly_usd_low"], b["baseline_monthly_usd_high"]) == (baseline_low, baseline_high)
    assert b["monthly_saving_usd_low"] == baseline_low - 3 * 2.0 * MONTH_H
    assert b["monthly_saving_usd_high"] == baseline_high - 2 * 2.0 * MONTH_H
    assert "at price class on_demand (no R price for it" in b["baseline_note"]
    assert rows[("today", "Q")]["monthly_saving_usd_low"] == rows[("today", "Q")]["monthly_saving_usd_high"] == 0
    # autoscaled: today needs ceil(rate/2) to ceil(rate/1) replicas per window (1,3,2,4 / 2,6,4,8: 2.5 to 5);
    # a needs 1,2,1,2 / 1,2,2,3 (1.5 to 2), both at P's 2.0 USD/h
    assert a["autoscaled_monthly_saving_usd_low"] == pytest.approx((2.5 - 2) * 2.0 * MONTH_H)
    assert a["autoscaled_monthly_saving_usd_high"] == pytest.approx((5 - 1.5) * 2.0 * MONTH_H)
    assert rows[("today", "P")]["autoscaled_monthly_saving_usd_high"] == 0


def test_a_baseline_without_a_row_says_so_and_saves_nothing(conn):
    traffic(conn, baseline="retired")
    (row,) = plan(conn, [cost_row("a", 3.0, 5.0)]).values()
    assert row["monthly_saving_usd_low"] is None and row["monthly_saving_usd_high"] is None
    assert "baseline retired has no priced, SLO-feasible run" in row["baseline_note"]


def test_a_baseline_stated_before_a_split_matches_every_part_and_says_them(conn):
    """run.yaml's label `nerdalert-vllm` split into two runs (two frameworks in one file): the baseline is both."""
    traffic(conn, baseline="nerdalert-vllm")
    parts = ["nerdalert-vllm [framework=sgl]", "nerdalert-vllm [framework=vllm]"]
    rows = plan(conn, [cost_row(parts[0], 3.0, 5.0), cost_row(parts[1], 4.0, 6.0), cost_row("b", 8.0, 9.0)], parts)
    assert [rows[(k, "P")]["is_baseline"] for k in (*parts, "b")] == [True, True, False]
    note = rows[("b", "P")]["baseline_note"]
    assert note.startswith(f"against nerdalert-vllm (its 2 parts {parts[0]}, {parts[1]}) at the same price")
    # the band covers both parts: a (3-5/s) needs 2-3 replicas, vllm (4-6/s) 2; b (8-9/s) 1 for the peak of 8
    assert rows[("b", "P")]["baseline_monthly_usd_high"] == 3 * 2.0 * MONTH_H
    assert rows[("b", "P")]["monthly_saving_usd_high"] == 3 * 2.0 * MONTH_H - 1 * 2.0 * MONTH_H


def test_a_baseline_may_be_a_config_key(conn):
    traffic(conn, baseline="a")
    rows = plan(conn, [cost_row("a", 3.0, 5.0), cost_row("b", 8.0, 9.0)], ["a", "b"])
    assert rows[("a", "P")]["is_baseline"] and rows[("a", "P")]["monthly_saving_usd_high"] == 0.0


def test_a_baseline_that_matches_nothing_names_the_closest_labels(conn):
    traffic(conn, baseline="nerdalert-vlm")
    labels = ["nerdalert-vllm [framework=vllm]", "guidellm", "vllm+batch_size", "zzz"]
    rows = plan(conn, [cost_row(labels[0], 3.0, 5.0)], labels)
    note = rows[(labels[0], "P")]["baseline_note"]
    assert note.startswith("baseline nerdalert-vlm matches no run label, run.yaml label or config_key: did you mean ")
    assert note.split("did you mean ")[1].startswith("nerdalert-vllm [framework=vllm], ")
    assert "zzz" not in note and note.endswith("? no saving")  # the 3 closest only


def test_a_stated_volume_plans_static_capacity_only(conn):
    (profile,), bounds = profile_rows()
    profile.update(mean_requests_per_s=25.0, peak_to_mean=2.5)
    write_table(conn, "requirement.profiles", pl.DataFrame([profile]), Profiles)
    write_table(conn, "requirement.slo_bounds", pl.DataFrame(bounds), SloBounds)
    write_table(conn, "requirement.traffic_shape", pl.DataFrame([], schema=_schema(TrafficShape)), TrafficShape)
    write_table(conn, "requirement.traffic_rate", pl.DataFrame([], schema=_schema(TrafficRate)), TrafficRate)
    (row,) = plan(conn, [cost_row("a", 10.0, 20.0)]).values()
    assert (row["mean_requests_per_s"], row["peak_requests_per_s"]) == (25.0, 62.5)
    assert (row["replicas_low"], row["replicas_high"]) == (4, 7)
    assert row["autoscaled_monthly_usd_low"] is None and "no traffic log: no autoscaled cost" in row["traffic_basis"]


def test_the_calibrated_band_rides_beside_the_measured_one_and_only_where_it_may_bill(conn):
    """The run's config's band on our traffic (calibrated.delivered_at_slo) is carried with the model's error; an
    unreliable model's band (bills false) is not; the replicas and the bill still rest on the measured band."""
    (profile,), bounds = profile_rows()
    profile.update(mean_requests_per_s=25.0, peak_to_mean=2.5)
    write_table(conn, "requirement.profiles", pl.DataFrame([profile]), Profiles)
    write_table(conn, "requirement.slo_bounds", pl.DataFrame(bounds), SloBounds)
    empty(conn, "requirement.traffic_shape", TrafficShape)
    empty(conn, "requirement.traffic_rate", TrafficRate)
    unreliable = {"bills": False, "config_status": "unreliable"}
    write_calibrated(
        conn, calibrated_band("a", 8.0, 12.0, None, None), calibrated_band("b", 30.0, 40.0, None, None) | unreliable
    )
    plans = plan(conn, [cost_row("a", 10.0, 20.0), cost_row("b", 10.0, 20.0)])
    a, b = plans[("a", "P")], plans[("b", "P")]
    assert (a["calibrated_requests_per_s_low"], a["calibrated_requests_per_s_high"]) == (8.0, 12.0)
    assert (a["calibrated_heldout_rel_error_median"], a["calibrated_heldout_rel_error_worst"]) == (0.1, 0.3)
    assert a["calibrated_band_rel_error"] == 0.1  # the band's own error, which the decision quotes first
    assert b["calibrated_requests_per_s_low"] is None and b["calibrated_requests_per_s_high"] is None
    assert (a["replicas_low"], a["replicas_high"]) == (b["replicas_low"], b["replicas_high"]) == (4, 7)
    # the bill rests on the band cost.cost_per_request bills on, under its own name
    assert (a["billed_requests_per_s_low"], a["billed_requests_per_s_high"]) == (10.0, 20.0)


def test_the_measured_band_and_the_billed_band_keep_their_own_names(conn):
    """A run billed on its calibrated band: marts.capacity_plan carries the measured band (what the run sustained)
    and the billed one (what replicas and bills rest on) under two names, with the basis and its reason."""
    traffic(conn)
    row = cost_row("a", 18.73, 25.42) | {
        "measured_requests_per_s_low": 110.8,
        "measured_requests_per_s_high": 111.4,
        "billed_basis": "calibrated",
        "billed_basis_reason": "calibrated on our traffic (band error +-16.5%; ...)",
    }
    (a,) = plan(conn, [row]).values()
    assert (a["measured_requests_per_s_low"], a["measured_requests_per_s_high"]) == (110.8, 111.4)
    assert (a["billed_requests_per_s_low"], a["billed_requests_per_s_high"]) == (18.73, 25.42)
    assert (a["billed_basis"], a["billed_basis_reason"]) == (row["billed_basis"], row["billed_basis_reason"])
    assert (a["replicas_low"], a["replicas_high"]) == (1, 1)  # peak 8 on the billed band, not the measured one


def _schema(model):
    return {name: column.dtype.type for name, column in model.to_schema().columns.items()}


def empty(conn, table, model):
    write_table(conn, table, pl.DataFrame([], schema=_schema(model)), model)


def mlperf_result(key, scenario="Server", per_accel=4000.0):
    return {
        "result_key": key,
        "round": "v5.1",
        "division": "closed",
        "submitter": "S",
        "platform": "P",
        "system_name": "Sys",
        "mlperf_model": "llama3.1-8b",
        "scenario": scenario,
        "tokens_per_s_per_accel": per_accel,
    }


def measure_next(conn, *result_keys):
    """analytics.measure_next over the capacity plan written, with the MLPerf results `result_keys` (the columns the
    view reads), no observed band and no quality to measure."""
    conn.register("results", pl.DataFrame([mlperf_result(key) for key in result_keys]))
    conn.execute(
        "CREATE SCHEMA IF NOT EXISTS benchmark; CREATE TABLE benchmark.mlperf_results AS SELECT * FROM results"
    )
    write_table(conn, "observed.delivered_at_slo", pl.DataFrame([], schema=_schema(DeliveredAtSlo)), DeliveredAtSlo)
    empty(conn, "marts.quality_to_measure", QualityToMeasure)
    ranked(conn)
    return run_sql_file(conn, "analytics/measure_next.sql").to_dicts()


def test_a_projected_config_that_may_beat_the_best_observed_one_is_named_with_its_saving(conn):
    traffic(conn)
    plan(
        conn,
        [
            cost_row("a", 3.0, 5.0),  # best observed: 2920 - 4380 USD a month
            cost_row("slow", 1.0, 2.0),  # dearer: never the comparison
            cost_row("mlperf:k-b200", 6.0, 10.0, evidence="projected", accelerator=B200),  # 1460 - 2920
            cost_row("mlperf:k-dear", 0.5, 1.0, evidence="projected", accelerator=B200),  # 11680 - 23360
        ],
        projected=[("mlperf:k-b200", "measured on 1 run of ours (a ...)"), ("mlperf:k-dear", "prior [0.5, 0.8] ...")],
    )
    basis = dict(conn.execute("SELECT config_key, delivered_fraction_basis FROM marts.capacity_plan").fetchall())
    assert basis == {
        "a": None,
        "slow": None,
        "mlperf:k-b200": "measured on 1 run of ours (a ...)",
        "mlperf:k-dear": "prior [0.5, 0.8] ...",
    }
    rows = measure_next(conn, "k-b200", "k-dear")
    (row,) = rows
    assert row["at_recommended_price_class"] is True
    assert (row["kind"], row["config_key"], row["best_observed_config_key"]) == (
        "projected_may_beat",
        "mlperf:k-b200",
        "a",
    )
    assert row["possible_monthly_saving_usd_low"] == 2 * 2.0 * MONTH_H - 2 * 2.0 * MONTH_H
    assert row["possible_monthly_saving_usd_high"] == 3 * 2.0 * MONTH_H - 1 * 2.0 * MONTH_H
    assert row["mlperf_result_key"] == "k-b200"
    assert row["mlperf_result"] == "v5.1 closed S Sys llama3.1-8b Server: 4000.0 tokens/s per accelerator"


def test_a_projected_config_whose_best_case_saves_nothing_is_not_worth_a_run(conn):
    """A projected config that ties the best observed one at best (2.7 to 3 req/s: 3 replicas for the peak of 8,
    4,380 USD a month; a: 2,920 to 4,380) overlaps its cost band, but its possible saving is -1,460 to 0: not
    offered as something to measure next."""
    traffic(conn)
    plan(
        conn,
        [
            cost_row("a", 3.0, 5.0),
            cost_row("mlperf:k-tie", 2.7, 3.0, evidence="projected", accelerator=B200),
        ],
        projected=[("mlperf:k-tie", "prior [0.5, 0.8] ...")],
    )
    rows = measure_next(conn, "k-tie")
    tie = conn.execute(
        "SELECT monthly_usd_low, monthly_usd_high FROM marts.capacity_plan WHERE config_key = 'mlperf:k-tie'"
    ).fetchone()
    assert tie == (3 * 2.0 * MONTH_H, 3 * 2.0 * MONTH_H)  # = a's high end: the saving at best is 0
    assert rows == []


def test_what_to_measure_next_compares_on_like_terms_and_lists_other_price_classes_apart(conn):
    """The recommended config is a (reserved, P: 2 to 3 replicas for the peak of 8, 3 x 1.0 x 730 = 2,190 USD a month
    at most); a projected B200 compares with it at reserved from P, though Q sells it cheaper; at capacity_block
    (where a costs 3 x 5.0 x 730 = 10,950 at most) its saving is listed apart, never as one on the recommended bill."""
    traffic(conn)
    rows = [
        {**cost_row("a", 3.0, 5.0, usd=1.0), "price_class": "reserved"},
        {**cost_row("a", 3.0, 5.0, usd=5.0), "price_class": "capacity_block"},
        {
            **cost_row("mlperf:k-b200", 6.0, 10.0, usd=0.9, evidence="projected", accelerator=B200),
            "price_class": "reserved",
        },
        {
            **cost_row("mlperf:k-b200", 6.0, 10.0, usd=0.5, evidence="projected", accelerator=B200, provider="Q"),
            "price_class": "reserved",
        },
        {
            **cost_row("mlperf:k-b200", 6.0, 10.0, usd=2.0, evidence="projected", accelerator=B200),
            "price_class": "capacity_block",
        },
    ]
    plan(conn, rows)
    found = {r["price_class"]: r for r in measure_next(conn, "k-b200")}
    like, apart = found["reserved"], found["capacity_block"]
    assert (like["at_recommended_price_class"], like["price_provider"]) == (True, "P")  # a's provider, not Q's
    assert like["possible_monthly_saving_usd_high"] == 3 * 1.0 * MONTH_H - 1 * 0.9 * MONTH_H
    assert "(both P)" in like["what_to_measure"]
    assert apart["at_recommended_price_class"] is False
    assert apart["possible_monthly_saving_usd_high"] == 3 * 5.0 * MONTH_H - 1 * 2.0 * MONTH_H
    assert "(not the recommended config's class, reserved)" in apart["what_to_measure"]
    decision = decide("p", [], list(found.values()))
    assert decision.measure_next == [like] and decision.measure_elsewhere == [apart]


def test_a_wide_band_with_no_point_near_the_crossing_asks_for_the_loads_between(conn):
    from tests.support.sql_warehouse import delivered, load, point, run_row

    # 10 meets, 30 fails far beyond: the band [10, 20] is 100% wide; 20 is where the SLO falls
    load(
        conn,
        [run_row("wide"), run_row("tight")],
        [
            point("wide", 0, 10, 100),
            point("wide", 1, 30, 1900),
            point("tight", 0, 10, 100),
            point("tight", 1, 11, 1100),
        ],
    )
    delivered(conn)
    write_table(conn, "marts.capacity_plan", pl.DataFrame([], schema=_schema(CapacityPlan)), CapacityPlan)
    ranked(conn)
    write_table(conn, "benchmark.mlperf_results", pl.DataFrame([], schema=_schema(MlperfResults)), MlperfResults)
    empty(conn, "marts.quality_to_measure", QualityToMeasure)
    (row,) = run_sql_file(conn, "analytics/measure_next.sql").to_dicts()
    assert (row["kind"], row["config_key"]) == ("sparse_near_slo", "wide")
    assert row["band_width_fraction"] == pytest.approx((10 + (1000 - 100) / (1900 - 100) * 20) / 10 - 1)
    assert (row["last_meeting_load"], row["first_failing_load"], row["loads_to_add"]) == (10, 30, "15.0, 20.0, 25.0")
    assert row["what_to_measure"].startswith("add loads 15.0, 20.0, 25.0 requests/s to wide")


def test_an_unsettled_quality_requirement_is_something_to_measure_before_deciding(conn):
    write_table(conn, "marts.capacity_plan", pl.DataFrame([], schema=_schema(CapacityPlan)), CapacityPlan)
    ranked(conn)
    write_table(conn, "benchmark.mlperf_results", pl.DataFrame([], schema=_schema(MlperfResults)), MlperfResults)
    write_table(conn, "observed.delivered_at_slo", pl.DataFrame([], schema=_schema(DeliveredAtSlo)), DeliveredAtSlo)
    unsettled = {
        "profile": "p",
        "model_id": LLAMA,
        "precision": "fp8",
        "quality_status": "untested",
        "action": "evaluate quality at fp8 before deciding",
        "reason": "no task-quality evaluation at fp8",
    }
    write_table(conn, "marts.quality_to_measure", pl.DataFrame([unsettled]), QualityToMeasure)
    (row,) = run_sql_file(conn, "analytics/measure_next.sql").to_dicts()
    assert (row["kind"], row["profile"], row["model_id"], row["precision"], row["quality_status"]) == (
        "quality_before_deciding",
        "p",
        LLAMA,
        "fp8",
        "untested",
    )
    assert row["what_to_measure"] == "evaluate quality at fp8 before deciding: no task-quality evaluation at fp8"


# --- which MLPerf scenario a profile is compared with ------------------------------------------------------


def references_for(conn, ttft, tpot, interactive=1500.0):
    (profile,), bounds = profile_rows(ttft=ttft, tpot=tpot)
    write_table(conn, "requirement.profiles", pl.DataFrame([profile]), Profiles)
    write_table(conn, "requirement.slo_bounds", pl.DataFrame(bounds), SloBounds)
    ref = reference_row(H100, per_accel=5000.0)
    ref.update(interactive_result_key="k-int" if interactive else None, interactive_tokens_per_s_per_accel=interactive)
    write_references(conn, [ref])
    (row,) = conn.execute("SELECT * FROM benchmark.mlperf_profile_reference").pl().to_dicts()
    return row


def test_a_profile_as_strict_as_interactive_is_compared_with_interactive(conn):
    row = references_for(conn, ttft=400, tpot=30)  # llama3.1-8b Interactive: p99 TTFT 500 ms, TPOT 30 ms
    assert (row["reference_scenario"], row["reference_result_key"]) == ("Interactive", "k-int")
    assert row["reference_tokens_per_s_per_accel"] == 1500 and row["server_tokens_per_s_per_accel"] == 5000
    assert (row["interactive_ttft_p99_ms"], row["interactive_tpot_p99_ms"]) == (500, 30)
    assert "ttft_p95_ms <= 400.0 ms is at least as strict as Interactive's p99 <= 500.0 ms" in row["reference_reason"]
    assert "MLPerf bounds are p99" in row["reference_reason"]


@pytest.mark.parametrize(
    "ttft,tpot,interactive,why",
    [
        (1000, 50, 1500.0, "ttft_p95_ms <= 1000.0 ms is looser than Interactive's p99 <= 500.0 ms"),  # worked case
        (400, 31, 1500.0, "tpot_p95_ms <= 31.0 ms is looser than Interactive's p99 <= 30.0 ms"),
        (400, 30, None, "this system published no Interactive result"),
    ],
)
def test_otherwise_server_and_the_reason_names_the_bound(conn, ttft, tpot, interactive, why):
    row = references_for(conn, ttft, tpot, interactive)
    assert (row["reference_scenario"], row["reference_tokens_per_s_per_accel"]) == ("Server", 5000)
    assert row["reference_reason"].startswith("Server: ") and why in row["reference_reason"]


def test_a_config_without_a_delivered_rate_has_no_capacity_not_the_floor(conn):
    """A projected config whose requests/s are unknown (no output tokens per request) plans nothing: every
    figure empty, never min_replicas or a utilisation from one end alone."""
    traffic(conn, min_replicas=2)
    (row,) = plan(conn, [cost_row("mlperf:k", None, None, evidence="projected", accelerator=B200)]).values()
    columns = ("replicas_low", "monthly_usd_high", "utilisation_low", "utilisation_high")
    assert all(row[c] is None for c in columns)
    assert row["autoscaled_replicas_mean_low"] is None and row["autoscaled_monthly_usd_high"] is None
