"""A plan's levels: the rates around the predicted crossing, our traffic at each exactly, the prediction per level."""

import numpy as np
import pytest

from assets.calibrate import project
from assets.calibrate.engine import EngineParams
from assets.calibrate.traffic import Lengths
from assets.plan import levels
from assets.plan.spec import PREDICTED_METRICS

PARAMS = EngineParams(b0_ms=8.0, b1_ms=0.02, b2_ms=0.08, max_num_seqs=64, max_batched_tokens=4096)


def _log(n: int = 300) -> project.Traffic:
    rng = np.random.default_rng(5)
    starts = np.cumsum(rng.exponential(0.5, n))
    inputs, outputs = rng.integers(10, 900, n), rng.integers(5, 300, n)
    return project.from_log(starts, inputs, outputs, "hand-made log")


def test_a_level_replays_windows_of_the_log_in_order_time_scaled_to_its_rate():
    traffic = _log()
    log = traffic.trace
    assert log is not None
    trace = levels.level_trace(traffic, 4.0, 200)
    assert trace.t[0] == 0.0 and len(trace.t) == 200
    assert 199 / trace.t[-1] == pytest.approx(4.0)
    # 8 windows of 25 contiguous requests at evenly spaced places: lengths as logged, gaps the log's x one factor
    starts = np.linspace(0, len(log.t) - 25, 8).astype(int)
    factor = None
    for w, s in enumerate(starts):
        mine = slice(25 * w, 25 * (w + 1))
        np.testing.assert_array_equal(trace.input_tokens[mine], log.input_tokens[s : s + 25])
        np.testing.assert_array_equal(trace.output_tokens[mine], log.output_tokens[s : s + 25])
        gaps, logged = np.diff(trace.t[mine]), np.diff(log.t[s : s + 25])
        factor = factor or float(gaps[0] / logged[0])
        np.testing.assert_allclose(gaps, logged * factor, rtol=1e-9, atol=1e-12)


def test_a_level_of_the_whole_log_sends_it_in_order():
    traffic = _log(120)
    log = traffic.trace
    assert log is not None
    trace = levels.level_trace(traffic, 2.0, 120)
    np.testing.assert_allclose(trace.t, (log.t - log.t[0]) * (trace.t[-1] / (log.t[-1] - log.t[0])), rtol=1e-12)
    np.testing.assert_array_equal(trace.input_tokens, log.input_tokens)


def test_a_level_longer_than_the_log_tiles_it_whole():
    traffic = _log(50)
    trace = levels.level_trace(traffic, 2.0, 120)
    assert traffic.trace is not None
    np.testing.assert_array_equal(trace.input_tokens, np.tile(traffic.trace.input_tokens, 3)[:120])
    assert np.all(np.diff(trace.t) >= 0)


def test_without_a_log_the_requests_are_drawn_from_the_workload_the_same_each_time():
    traffic = project.from_lengths(Lengths.fixed(512), Lengths.fixed(128), 1.0, None, "stated")
    first, again = levels.level_trace(traffic, 3.0, 500), levels.level_trace(traffic, 3.0, 500)
    np.testing.assert_array_equal(first.t, again.t)
    assert set(first.input_tokens) == {512} and set(first.output_tokens) == {128}
    assert 499 / first.t[-1] == pytest.approx(3.0, rel=0.15)


def test_requests_per_level_cover_a_steady_state_within_bounds():
    assert levels.requests_for(0.1) == levels.MIN_REQUESTS
    assert levels.requests_for(20.0) == int(20 * levels.STEADY_S)
    assert levels.requests_for(10_000.0) == levels.MAX_REQUESTS


def test_levels_bracket_the_predicted_rate_and_carry_a_prediction_each():
    planned = levels.plan_levels(_log(), 5.0, PARAMS)
    assert [lv.rate_multiple for lv in planned] == list(levels.RATE_MULTIPLES)
    assert [lv.requests_per_s for lv in planned] == pytest.approx([5.0 * m for m in levels.RATE_MULTIPLES])
    for lv in planned:
        assert lv.predicted is not None and set(lv.predicted) == set(PREDICTED_METRICS)
        assert lv.predicted["ttft_p50_ms"] is not None and lv.predicted["ttft_p50_ms"] > 0
    assert planned[-1].predicted["ttft_p95_ms"] >= planned[0].predicted["ttft_p95_ms"]


def test_without_an_engine_model_the_levels_are_wide_and_predict_nothing():
    planned = levels.plan_levels(_log(), 5.0, None)
    assert [lv.rate_multiple for lv in planned] == list(levels.WIDE_MULTIPLES)
    assert all(lv.predicted is None for lv in planned)


def test_the_prediction_is_of_exactly_the_requests_written():
    traffic = _log()
    trace = levels.level_trace(traffic, 2.0, 250)
    predicted = levels.predict(PARAMS, traffic, trace, 2.0)
    again = levels.predict(PARAMS, traffic, trace, 2.0)
    assert predicted == again
    assert predicted["achieved_requests_per_s"] == pytest.approx(2.0, rel=0.25)


def test_a_plan_says_when_the_configs_own_context_cap_refuses_our_requests():
    from assets.plan.build import context_note

    traffic = project.from_lengths(Lengths.fixed(700), Lengths.fixed(100), 1.0, None, "stated")
    said = context_note({"max_model_len": 512}, traffic)
    assert said is not None and "max_model_len 512 tokens, which 100% of our requests" in said
    assert context_note({"max_model_len": 4096}, traffic) is None
    assert context_note(None, traffic) is None
