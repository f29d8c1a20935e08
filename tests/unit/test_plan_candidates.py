"""Why a config is in a profile's plan, in words, and what the measurement could move a month."""

import pytest

from assets.plan.candidates import at_risk


def _row(key: str, low: float, high: float, cost_low: float, cost_high: float, usd: tuple[float, float]) -> dict:
    return {
        "profile": "chat",
        "config_key": key,
        "run_label": key,
        "accelerator_id": "nvidia-h100-sxm-80gb",
        "accelerator_count": 1,
        "billed_basis": "calibrated",
        "billed_requests_per_s_low": low,
        "billed_requests_per_s_high": high,
        "effective_cost_per_request_usd_low": cost_low,
        "effective_cost_per_request_usd_high": cost_high,
        "monthly_usd_low": usd[0],
        "monthly_usd_high": usd[1],
    }


def test_a_narrow_band_well_below_the_runner_up_is_not_at_risk():
    rec = _row("a", 10.0, 10.5, 1e-5, 1.05e-5, (1000, 1050))
    assert at_risk(rec, _row("b", 5.0, 5.2, 2e-5, 2.1e-5, (2000, 2100))) is None


def test_overlapping_costs_put_the_decision_at_risk_and_say_by_how_much():
    rec = _row("a", 10.0, 10.5, 1e-5, 1.1e-5, (1000, 1100))
    runner_up = _row("b", 9.0, 12.0, 1.0e-5, 1.3e-5, (900, 1300))
    found = at_risk(rec, runner_up)
    assert found is not None and found.reason == "decision_at_risk"
    assert "the bands overlap" in found.why and "10% more per request" in found.why
    assert found.stake_usd == pytest.approx(200.0)  # the recommended bill's high end less the runner-up's low end


def test_a_wide_band_says_how_far_the_rate_must_fall_to_change_the_decision():
    rec = _row("a", 10.0, 14.0, 1e-5, 1.4e-5, (1000, 1400))
    runner_up = _row("b", 5.0, 6.0, 2e-5, 2.4e-5, (2000, 2400))
    found = at_risk(rec, runner_up)
    assert found is not None
    assert "40% wide" in found.why
    assert "fall 30% below its band's low end (to 7 requests/s)" in found.why
    assert found.stake_usd == pytest.approx(400.0)  # the bill's own band: the runner-up costs more at best
