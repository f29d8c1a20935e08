"""The fit recovers known step costs from a sweep the simulator itself generated (two workloads, six rates each),
and the status rules of calibrated.engine_models say what a config's levels and held-out errors allow."""

import dataclasses
import math

import pytest

from assets.calibrate.engine import EngineParams
from assets.calibrate.fit import Simulations, calibrate, simulate_level
from assets.calibrate.levels import Config, Level, config_key
from assets.calibrate.tables import calibrate_config, status_of
from assets.calibrate.traffic import Lengths
from assets.calibrate.validate import Row

TRUTH = EngineParams(
    b0_ms=6.0,
    b1_ms=0.02,
    b2_ms=0.1,
    b3_ms=0.0006,
    ttft_overhead_ms=20.0,
    max_num_seqs=256,
    max_batched_tokens=8192,
    mixed=True,
    chunked=True,
)


def _level(key: str, workload: str, index: int, rate: float, inp: int, out: int) -> Level:
    level = Level(
        config_key=key,
        run_id=f"run-{workload}",
        run_label=f"synthetic {workload}",
        workload_key=workload,
        load_index=index,
        load_kind="rate",
        offered_rate=rate,
        concurrency=None,
        n_requests=400,
        arrival_cv=1.0,
        client_cap=math.inf,
        inp=Lengths.fixed(inp),
        out=Lengths.fixed(out),
        measured={},
    )
    simulated = simulate_level(TRUTH, level)
    level.measured = {k: simulated[k] for k in ("ttft_p50_ms", "tpot_p50_ms", "e2e_p50_ms", "ttft_p95_ms")}
    level.measured.update(
        achieved_requests_per_s=simulated["achieved_requests_per_s"],
        error_rate=0.0,
        input_tokens_mean=float(inp),
        output_tokens_mean=float(out),
    )
    return level


@pytest.fixture(scope="module")
def synthetic() -> Config:
    settings = {"max_num_seqs": 256, "max_num_batched_tokens": 8192}
    key = config_key("nvidia-h100-sxm-80gb", 1, "llama-3.1-8b", "bf16", "vLLM", "0.11.0", settings)
    cfg = Config(key, "synthetic", "vLLM", "0.11.0", settings, "nvidia-h100-sxm-80gb", 1, "llama-3.1-8b", "bf16")
    for workload, inp, out in (("short", 200, 100), ("long", 1500, 150)):
        for index, rate in enumerate((1, 5, 10, 20, 30, 40)):
            cfg.levels.append(_level(key, workload, index, rate, inp, out))
    return cfg


def test_the_fit_recovers_the_step_costs_it_was_generated_with(synthetic):
    fit = calibrate(synthetic)
    p = fit.params
    assert p.b0_ms == pytest.approx(TRUTH.b0_ms, rel=0.25)
    assert p.b1_ms == pytest.approx(TRUTH.b1_ms, rel=0.25)
    assert p.b2_ms == pytest.approx(TRUTH.b2_ms, rel=0.25)
    assert p.ttft_overhead_ms == pytest.approx(TRUTH.ttft_overhead_ms, rel=0.25)
    assert max(fit.in_sample.values()) < 0.05  # the levels it fitted, predicted within 5%


def test_held_out_refits_sharing_their_simulations_give_the_same_fits_for_fewer_simulations(synthetic):
    """Every level's held-out refit starts from the fit on every level: with one `Simulations` the refits replay their
    common first points once, and each refit's parameters are the ones it gets alone."""
    full = calibrate(synthetic).params
    alone, shared = [], Simulations()
    together = []
    for held in synthetic.levels[:4]:
        train = [lv for lv in synthetic.levels if lv is not held]
        alone.append(calibrate(synthetic, train, start=full))
        together.append(calibrate(synthetic, train, start=full, sims=shared))
    assert [f.params for f in together] == [f.params for f in alone]
    assert shared.count < sum(f.sims for f in alone)
    assert sum(f.sims for f in together) == shared.count  # each fit counts the simulations it ran


def test_the_config_key_ignores_the_order_of_the_settings_and_tells_versions_apart():
    a = config_key("h100", 1, "m", "bf16", "vLLM", "0.11.0", {"x": 1, "y": 2})
    assert a == config_key("h100", 1, "m", "bf16", "vLLM", "0.11.0", {"y": 2, "x": 1})
    assert a != config_key("h100", 1, "m", "bf16", "vLLM", "0.10.0", {"x": 1, "y": 2})
    assert a != config_key("h100", 2, "m", "bf16", "vLLM", "0.11.0", {"x": 1, "y": 2})


def _row(test: str, metric: str, measured: float, predicted: float, note: str = "") -> Row:
    return Row("cfg", test, "held", "w", "r=1/s", metric, measured, predicted, True, note)


def test_one_level_is_said_in_words_never_an_error():
    status, reason = status_of(1, [])
    assert status == "too_few_levels"
    assert reason is not None and "one load level" in reason


def test_three_levels_are_fitted_but_their_error_cannot_be_measured():
    status, reason = status_of(3, [])
    assert status == "too_few_levels"
    assert reason is not None and "4 are needed" in reason


def test_a_median_held_out_p95_ttft_error_over_a_quarter_is_unreliable():
    rows = [_row("lolo", "ttft_p95_ms", 100.0, v) for v in (130.0, 140.0, 95.0)]
    status, reason = status_of(5, rows)
    assert status == "unreliable"
    assert reason is not None and "p95 TTFT" in reason
    assert status_of(5, [_row("lolo", "ttft_p95_ms", 100.0, v) for v in (120.0, 110.0, 140.0)]) == ("fitted", None)


def test_a_held_out_workload_delivered_at_slo_off_by_over_a_quarter_is_unreliable():
    crossing = "SLO ...; measured: crossing; predicted: crossing"
    rows = [_row("lowo_slo", "delivered_at_slo_requests_per_s", 10.0, 13.0, crossing)]
    status, reason = status_of(8, rows)
    assert status == "unreliable" and reason is not None and "delivered at SLO" in reason
    # a sweep that never crosses the SLO measures only a lower bound: not scored, so it cannot condemn
    censored = [_row("lowo_slo", "delivered_at_slo_requests_per_s", 10.0, 20.0, "measured: censored")]
    assert status_of(8, censored) == ("fitted", None)
    # nor can a workload judged on no level of 100 requests or more: reported, unjudged
    bursts = [dataclasses.replace(rows[0], judged=False)]
    assert status_of(8, bursts) == ("fitted", None)


def test_a_config_the_model_cannot_take_costs_its_own_row_not_the_build(monkeypatch):
    """A fit that raises is said on its config's row (status not_calibrated, where and why); the others build."""
    from assets.calibrate import tables

    configs = ["first", "second"]
    monkeypatch.setattr(tables, "read_configs", lambda conn: configs)
    monkeypatch.setattr(tables, "usable_levels", lambda cfg: 5)

    def calibrate_config(cfg, log=None):
        if cfg == "first":
            raise ValueError("unsupported format string passed to NoneType.__format__")
        return tables.Calibration(cfg, None, [], "fitted", None)

    monkeypatch.setattr(tables, "calibrate_config", calibrate_config)
    results = tables.calibrate_all(None)  # type: ignore[arg-type]
    assert [r.status for r in results] == ["not_calibrated", "fitted"]
    assert results[0].reason.startswith("the model could not be fitted (test_calibrate_fit.py:")
    assert results[0].reason.endswith("ValueError: unsupported format string passed to NoneType.__format__")


def test_a_config_whose_latencies_are_all_zero_is_not_calibrated_saying_why_in_words(synthetic):
    """Latencies of 0 ms at every level are no measurement: the reason says so, never a Python exception's text."""
    cfg = Config(synthetic.key, "zeros", "vLLM", "0.11.0", synthetic.settings, synthetic.accelerator, 1, "m", "bf16")
    for index, rate in enumerate((1, 5, 10, 20, 30)):
        level = _level(synthetic.key, "short", index, rate, 200, 100)
        level.measured.update(ttft_p50_ms=0.0, tpot_p50_ms=0.0, e2e_p50_ms=0.0, ttft_p95_ms=0.0)
        cfg.levels.append(level)
    result = calibrate_config(cfg)
    assert (result.status, result.fit) == ("not_calibrated", None)
    assert result.reason is not None and result.reason.startswith(
        "no latency to fit: at each of its 5 levels the median TTFT is 0 ms or missing, and so is the median TPOT"
    )
    assert "Error" not in result.reason and "unpack" not in result.reason
