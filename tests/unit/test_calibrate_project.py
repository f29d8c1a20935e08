"""Our traffic through an engine model (assets/calibrate/project.py, assets/calibrate/our_traffic.py): a curve of 20+
rates from light load to past saturation, the delivered rate at the SLO as a band carrying the held-out error, what
bursts cost, and each case that cannot be done said in words on its own row while the rest builds."""

import json
import math
from types import SimpleNamespace

import numpy as np
import pytest

from assets.calibrate import project, validate
from assets.calibrate.engine import EngineParams
from assets.calibrate.fit import calibrate, simulate_level
from assets.calibrate.levels import METRICS, Config, Level, config_key
from assets.calibrate.our_traffic import project_pair, traffic_of
from assets.calibrate.tables import Calibration
from assets.calibrate.tables import model_row as model_row_of
from assets.calibrate.traffic import Lengths, Trace, sample_windows, scale_trace
from assets.calibrate.validate import validate_config
from tests.support.data import FIXTURES
from tests.support.engine_rows import engine_columns
from tests.support.workloads import mean_of, workload_row

ENGINE = EngineParams(b0_ms=6.0, b1_ms=0.02, b2_ms=0.1, b3_ms=0.0006, ttft_overhead_ms=20.0, max_num_seqs=128)
BOUNDS = {"ttft_p95_ms": 1000.0, "tpot_p95_ms": 50.0, "error_rate": 0.01}


def model_row(status: str = "fitted", **changes) -> dict:
    """A calibrated.engine_models row of ENGINE (only the columns the projection reads)."""
    row = {
        "config_key": "cfg-test",
        "config_label": "llama, 1x h100, bf16, vLLM",
        "model_id": "llama-3.1-8b-instruct",
        "model_key": "llama-3.1-8b-instruct",
        "accelerator_id": "nvidia-h100-sxm-80gb",
        "accelerator_count": 1,
        "precision": "bf16",
        "runtime": "vLLM",
        "runtime_version": "0.11.0",
        "run_labels": json.dumps(["sweep"]),
        "status": status,
        "status_reason": None if status == "fitted" else "median held-out error on p95 TTFT below the knee 40%",
        **engine_columns(ENGINE),
        "metrics_measured": json.dumps(METRICS),
        "measured_tokens_per_s_max": 1e9,
        "saturated_levels": 2,
        "heldout_rel_error_median": 0.1,
        "heldout_rel_error_worst": 0.4,
        "heldout_ttft_p95_below_knee_rel_error_median": 0.2,
    }
    return row | changes


def profile_row(**changes) -> dict:
    """The workload of a profile (requirement.workload) stating means 200 / 64 and 25 requests/s unless changed."""
    return workload_row(**changes)


@pytest.fixture(scope="module")
def poisson_curve() -> list[dict]:
    return project.latency_curve(ENGINE, project.from_means(200, 64, None))


def test_a_curve_has_twenty_rates_or_more_from_light_load_to_past_saturation(poisson_curve):
    rates = [p["requests_per_s"] for p in poisson_curve]
    assert len(rates) >= 20 and rates == sorted(rates)
    lightest, heaviest = poisson_curve[0], poisson_curve[-1]
    assert lightest["achieved_requests_per_s"] == pytest.approx(lightest["requests_per_s"], rel=0.15)
    assert heaviest["achieved_requests_per_s"] < 0.9 * heaviest["requests_per_s"]  # saturated
    assert heaviest["ttft_p95_ms"] > 5 * lightest["ttft_p95_ms"]  # queueing comes out of the model
    assert all(math.isfinite(p[m]) for p in poisson_curve for m in METRICS)


def test_the_delivered_rate_is_where_the_curve_crosses_the_slo_and_its_band_carries_the_error(poisson_curve):
    found = project.delivered_at_slo(poisson_curve, BOUNDS)
    assert found.found == "crossing" and found.binding is not None
    below = [p for p in poisson_curve if p["requests_per_s"] <= found.requests_per_s]
    above = [p for p in poisson_curve if p["requests_per_s"] > found.requests_per_s]
    assert below and above and all(p["ttft_p95_ms"] <= 1000 and p["tpot_p95_ms"] <= 50 for p in below)
    low, high = project.band(found.requests_per_s, 0.25)
    assert low == pytest.approx(found.requests_per_s / 1.25) and high == pytest.approx(found.requests_per_s * 1.25)


def test_bursty_arrivals_deliver_less_than_poisson_and_evenly_spaced_no_less(poisson_curve):
    poisson = project.delivered_at_slo(poisson_curve, BOUNDS).requests_per_s
    bursty = project.delivered_at_slo(project.latency_curve(ENGINE, project.from_means(200, 64, 6.0)), BOUNDS)
    even = project.delivered_at_slo(project.latency_curve(ENGINE, project.from_means(200, 64, 0.0)), BOUNDS)
    assert bursty.requests_per_s < 0.8 * poisson
    assert even.requests_per_s >= 0.95 * poisson


def test_a_log_is_scaled_in_time_keeping_its_burstiness_and_sampled_in_windows_past_its_budget():
    rng = np.random.default_rng(3)
    t = np.cumsum(rng.gamma(0.1, 10.0, size=5000))  # CV ~3
    trace = Trace(t, np.full(5000, 100), np.full(5000, 20), "synthetic")
    scaled = scale_trace(trace, 50.0, 12_000)
    assert len(scaled.t) == 12_000 and scaled.rate == pytest.approx(50.0, rel=0.01)
    assert scaled.interarrival_cv() == pytest.approx(trace.interarrival_cv(), rel=0.05)
    sampled, said = sample_windows(trace, 1000)
    assert len(sampled.t) == 1000 and said == "8 windows of 125 contiguous requests spread over the log's 5,000"
    assert np.all(np.diff(sampled.t) >= 0)
    assert sample_windows(trace, 5000)[1] == "the whole log (5,000 requests)"


def test_a_profile_through_a_fitted_config_gives_a_billing_band_and_its_curve():
    row, curve = project_pair(profile_row(), BOUNDS, model_row(), [])
    assert row["status"] == "delivered" and row["bills"] and row["status_reason"] is None
    assert row["delivered_requests_per_s_low"] < row["delivered_requests_per_s_high"]
    assert row["band_rel_error"] == 0.2 and "p95 TTFT" in row["band_basis"]
    assert len(curve) >= 20 and {c["config_status"] for c in curve} == {"fitted"}
    with_workloads, _ = project_pair(profile_row(), BOUNDS, model_row(), [0.1, 0.3, 0.2])
    assert with_workloads["band_rel_error"] == pytest.approx(0.2) and "3 workloads" in with_workloads["band_basis"]


def test_an_unreliable_config_has_its_curve_marked_and_never_bills():
    row, curve = project_pair(profile_row(), BOUNDS, model_row("unreliable"), [])
    assert row["status"] == "delivered" and not row["bills"] and "never bills" in row["status_reason"]
    assert curve and {c["config_status"] for c in curve} == {"unreliable"}


def test_a_config_with_one_load_level_says_it_has_no_model():
    one_level = model_row("too_few_levels", step_b0_ms=None, heldout_rel_error_median=None)
    one_level |= {"status_reason": "one load level: no load curve to fit and nothing to hold out; not calibrated"}
    one_level["heldout_ttft_p95_below_knee_rel_error_median"] = None
    row, curve = project_pair(profile_row(), BOUNDS, one_level, [])
    assert row["status"] == "not_calibrated" and not row["bills"] and not curve
    assert "one load level" in row["status_reason"] and row["delivered_requests_per_s_low"] is None


def test_levels_that_never_saturate_give_a_lower_bound_at_what_was_measured():
    unsaturated = model_row(saturated_levels=0, measured_tokens_per_s_max=264.0 * 5)  # 5 req/s of our mix
    row, _ = project_pair(profile_row(), BOUNDS, unsaturated, [])
    assert row["status"] == "lower_bound" and row["bills"] and row["delivered_requests_per_s_high"] is None
    assert row["delivered_requests_per_s_low"] == pytest.approx(5 / 1.2, rel=0.05)
    assert "never saturated" in row["status_reason"]


def test_a_percentile_no_run_of_the_config_measured_is_not_judged():
    p50_only = model_row(metrics_measured=json.dumps(["ttft_p50_ms", "tpot_p50_ms", "tpot_p99_ms"]))
    row, curve = project_pair(profile_row(), BOUNDS, p50_only, [])
    assert row["status"] == "not_judged" and not row["bills"] and curve  # tpot p95: p99 measured covers it
    assert "never measured ttft_p95_ms" in row["status_reason"] and "tpot_p95_ms" not in row["status_reason"]


def test_a_profile_without_a_token_mix_says_so():
    row, curve = project_pair(profile_row(inputs=None, outputs=None), BOUNDS, model_row(), [])
    assert row["status"] == "no_traffic" and not curve and "no token mix" in row["status_reason"]


def test_a_traffic_log_gives_the_arrivals_and_the_lengths_scaled_to_our_volume():
    log = str(FIXTURES / "traffic" / "trace.jsonl")
    traffic = traffic_of(profile_row(traffic_log=log, inputs=None, outputs=None, requests_per_day=86400.0 * 4))
    assert traffic.trace is not None and len(traffic.trace.t) == 8 and traffic.requests_per_s == pytest.approx(4.0)
    assert traffic.trace.rate == pytest.approx(4.0) and "trace.jsonl" in traffic.basis
    row, curve = project_pair(profile_row(traffic_log=log, inputs=None, outputs=None), BOUNDS, model_row(), [])
    assert row["status"] == "delivered" and "tiled to 2,000" in row["traffic_sample"] and len(curve) >= 20


def test_a_log_without_lengths_takes_them_from_the_stated_lengths_or_says_it_has_none(tmp_path):
    log = tmp_path / "arrivals.csv"
    log.write_text("start_offset_s,input_tokens,output_tokens\n" + "".join(f"{i * 0.7:.1f},,\n" for i in range(40)))
    with_means, _ = project_pair(profile_row(traffic_log=str(log)), BOUNDS, model_row(), [])
    assert with_means["status"] == "delivered" and "lengths stated in the workload" in with_means["traffic_basis"]
    assert "input stated, lognormal mean 200, CV 1 (assumed)" in with_means["traffic_basis"]
    without = profile_row(traffic_log=str(log), inputs=None, outputs=None)
    row, curve = project_pair(without, BOUNDS, model_row(), [])
    assert row["status"] == "no_traffic" and not curve
    assert "states no input lengths and the workload states none" in row["status_reason"]


# --- a held-out workload: the new table against calibrated.validation ------------------------------------------------


SWEPT = ENGINE.with_(max_num_seqs=256)  # the engine of the sweeps below, its caps stated in its settings
SETTINGS = {"max_num_seqs": 256, "max_num_batched_tokens": 8192}


def _synthetic_level(key: str, workload: str, index: int, rate: float, inp: int, out: int) -> Level:
    """A level of 600 requests at `rate` (Poisson, lognormal lengths), measured on the simulator with SWEPT."""
    level = Level(
        key,
        f"run-{workload}",
        workload,
        workload,
        index,
        "rate",
        rate,
        None,
        600,
        1.0,
        math.inf,
        Lengths.lognormal(inp, 1.0),
        Lengths.lognormal(out, 1.0),
        {},
    )
    simulated = simulate_level(SWEPT, level)
    level.measured = {k: simulated[k] for k in ("ttft_p50_ms", "tpot_p50_ms", "e2e_p50_ms", "ttft_p95_ms")}
    level.measured |= {"achieved_requests_per_s": simulated["achieved_requests_per_s"], "error_rate": 0.0}
    level.measured |= {"input_tokens_mean": float(inp), "output_tokens_mean": float(out)}
    return level


def test_a_held_out_workloads_delivered_at_slo_in_the_new_table_agrees_with_calibrated_validation():
    """Two workloads swept on a known engine; calibrated.validation holds each out (refit without it) and scores its
    delivered at SLO. The new table's row for a profile with that workload's token mix, arrivals and (relative) SLO,
    through the engine model fitted without it, lands within 25% of the measured rate and near the validation's."""
    key = config_key("nvidia-h100-sxm-80gb", 1, "llama-3.1-8b-instruct", "bf16", "vLLM", "0.11.0", SETTINGS)
    cfg = Config(
        key, "synthetic", "vLLM", "0.11.0", SETTINGS, "nvidia-h100-sxm-80gb", 1, "llama-3.1-8b-instruct", "bf16"
    )
    for workload, inp, out, rates in (
        ("short", 200, 100, (5, 20, 40, 60, 80)),
        ("long", 1500, 150, (2, 5, 8, 10, 12, 14, 16)),
    ):
        cfg.levels += [_synthetic_level(key, workload, i, r, inp, out) for i, r in enumerate(rates)]
    rows = validate_config(cfg, calibrate(cfg))
    scored = {r.held_out: r for r in rows if r.test == "lowo_slo" and r.scored}
    assert set(scored) == {"short", "long"}
    slo_errors = [abs(r.rel_error) for r in scored.values()]
    for workload, held in scored.items():
        train = [lv for lv in cfg.levels if lv.workload_key != workload]
        without = Config(key, "synthetic", "vLLM", "0.11.0", SETTINGS, cfg.accelerator, 1, cfg.model, "bf16", train)
        model = model_row_of(Calibration(without, calibrate(cfg, train), [], "fitted"))
        lightest = min((lv for lv in cfg.levels if lv.workload_key == workload), key=lambda lv: lv.load_size)
        bounds = {m: 2.0 * lightest.measured[m] for m in ("ttft_p50_ms", "tpot_p50_ms")}  # validation's SLO
        profile = profile_row(inputs=mean_of(lightest.inp.mean), outputs=mean_of(lightest.out.mean), arrival_cv=1.0)
        row, _ = project_pair(profile, bounds, model, slo_errors)
        assert row["status"] == "delivered", row["status_reason"]
        point = math.sqrt(row["delivered_requests_per_s_low"] * row["delivered_requests_per_s_high"])
        assert point == pytest.approx(held.measured, rel=0.25), workload
        assert point == pytest.approx(held.predicted, rel=0.15), workload
        assert row["band_rel_error"] == pytest.approx(float(np.median(slo_errors)))


def test_a_logged_request_of_no_answer_token_counts_as_one_and_keeps_the_logs_lengths():
    t = np.arange(50) * 0.5
    traffic = project.from_log(t, np.full(50, 300), np.r_[0, np.full(49, 40)], "log.csv")
    assert traffic.trace is not None and traffic.trace.output_tokens[0] == 1 and "its lengths" in traffic.basis


def test_a_held_out_workload_is_judged_only_on_its_levels_of_a_hundred_requests_or_more(monkeypatch):
    """A level of 20 prompts is a burst, not a steady state: a held-out workload's such levels are predicted and
    reported with their reason, never counted; its delivered at SLO is found on its longer levels, and a workload
    with fewer than two of those has its delivered at SLO reported, unjudged. Leaving a level out is unchanged."""
    monkeypatch.setattr(
        validate, "calibrate", lambda cfg, train=None, start=None, budget=None, sims=None: SimpleNamespace(params=SWEPT)
    )
    key = config_key("nvidia-h100-sxm-80gb", 1, "llama-3.1-8b-instruct", "bf16", "vLLM", "0.11.0", SETTINGS)
    cfg = Config(
        key, "synthetic", "vLLM", "0.11.0", SETTINGS, "nvidia-h100-sxm-80gb", 1, "llama-3.1-8b-instruct", "bf16"
    )
    for workload, inp, out, rates, short in (
        ("steady", 200, 100, (5, 20, 40, 60, 80), 0),
        ("partly", 1500, 150, (2, 5, 8, 10, 12, 14, 16), 2),  # its two lightest levels sent 20 requests
        ("bursts", 800, 120, (4, 8, 12), 3),  # every level 20 requests
    ):
        levels = [_synthetic_level(key, workload, i, r, inp, out) for i, r in enumerate(rates)]
        for level in levels[:short]:
            level.n_requests = 20
        cfg.levels += levels
    rows = validate_config(cfg)
    requests = {(lv.workload_key, f"r={lv.offered_rate:g}/s"): lv.n_requests for lv in cfg.levels}
    workload_out = [r for r in rows if r.test == "lowo"]
    assert workload_out and all(r.judged == (requests[(r.workload, r.load)] >= 100) for r in workload_out)
    assert all(
        not r.scored and "20 requests, under 100: not a steady state" in r.note for r in workload_out if not r.judged
    )
    assert any(r.scored for r in rows if r.test == "lolo" and requests[(r.workload, r.load)] == 20)
    slo = {r.held_out: r for r in rows if r.test == "lowo_slo"}
    assert slo["steady"].judged and "shorter" not in slo["steady"].note
    assert (
        slo["partly"].judged
        and "found on its 5 levels of 100 requests or more (2 shorter left out)" in slo["partly"].note
    )
    assert not slo["bursts"].judged and not slo["bursts"].scored and math.isfinite(slo["bursts"].measured)
    assert "3 of its 3 levels have under 100 requests (as few as 20): not a steady state, reported, unjudged" in (
        slo["bursts"].note
    )
