"""A well-posed fit: where it starts depends on the sweep alone (the best point of a small grid around the first
guess), and it runs to convergence, so a start nudged by a factor of 3 either way gives the same engine model:
the step costs b0, b1, b2 and the request overhead within 2%, the attention cost b3 (weakly identified: a prior
holds it) within 5%, the caps the same."""

import math

import numpy as np
import pytest

from assets.calibrate import fit
from assets.calibrate.fit_start import START_SCALES, best_start
from tests.unit.test_calibrate_fit import synthetic  # noqa: F401 - the fixture: two workloads, six rates each

STEP_COSTS_WITHIN = 0.02
ATTENTION_WITHIN = 0.05


@pytest.mark.parametrize("scale", [0.3, 0.6, 1.5, 3.0])
def test_a_perturbed_start_gives_the_same_engine_model(synthetic, monkeypatch, scale):  # noqa: F811
    reference = fit.calibrate(synthetic).params
    guess = fit.initial_guess
    monkeypatch.setattr(fit, "initial_guess", lambda levels: tuple(v * scale for v in guess(levels)))
    moved = fit.calibrate(synthetic).params
    for name in ("b0_ms", "b1_ms", "b2_ms", "ttft_overhead_ms"):
        assert getattr(moved, name) == pytest.approx(getattr(reference, name), rel=STEP_COSTS_WITHIN), name
    assert moved.b3_ms == pytest.approx(reference.b3_ms, rel=ATTENTION_WITHIN)
    caps = ("max_num_seqs", "max_batched_tokens", "kv_tokens")
    assert [getattr(moved, c) for c in caps] == [getattr(reference, c) for c in caps]


def test_the_start_is_the_lowest_point_of_the_grid_around_the_guess():
    # a bowl whose bottom is the decode costs halved and the prefill costs doubled: a point of the grid
    bottom = np.asarray([math.log(0.5), math.log(2), math.log(0.5), math.log(2), math.log(2)])
    start, cost = best_start(np.zeros(5), lambda x: float(((x - bottom) ** 2).sum()))
    assert np.allclose(start, bottom) and cost == pytest.approx(0.0, abs=1e-12)
    assert 0.5 in START_SCALES and 2.0 in START_SCALES


def test_the_guess_itself_wins_a_tie():
    start, _ = best_start(np.ones(5), lambda x: 1.0)  # a flat objective: every point costs the same
    assert np.array_equal(start, np.ones(5))
