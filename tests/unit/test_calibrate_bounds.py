"""Bounded work per config: a sweep of hundreds of levels is fitted on at most MAX_LEVELS_PER_FIT of them (the
lightest and heaviest of each workload kept, the rest evenly spaced, the same every time, said); past the time bound
the fit keeps its best parameters, says what it left undone, and the config is marked unreliable (never bills); a
long fit prints a progress line; a level's million per-request lengths reach the fit as 1,000 order statistics.

The bounds are patched down so that the tests stay small (no timing is asserted: a bound of 0 s is met at once)."""

import json
import math

import numpy as np

from assets.calibrate import bounds
from assets.calibrate.bounds import FitBudget, capped_levels
from assets.calibrate.levels import Config, Level
from assets.calibrate.record_lengths import RECORD_LENGTHS_PER_LEVEL, summarised_lengths
from assets.calibrate.tables import calibrate_config, model_row
from assets.calibrate.traffic import Lengths
from tests.unit.test_calibrate_fit import _level, config_key


def _plain_level(workload: str, index: int, rate: float) -> Level:
    """A level with no measurement (the cap looks only at workloads and loads)."""
    return Level("k", "run", "run", workload, index, "rate", rate, None, 100, 1.0, math.inf,
                 Lengths.fixed(100), Lengths.fixed(50), {})  # fmt: skip


def test_a_500_level_sweep_keeps_the_lightest_and_heaviest_of_each_workload_and_40_levels_in_all():
    sweep = [_plain_level(w, i, 0.1 * (i + 1)) for w in ("chat", "rag") for i in range(250)]
    kept, note = capped_levels(sweep)
    assert len(kept) == bounds.MAX_LEVELS_PER_FIT == 40
    for workload in ("chat", "rag"):
        rates = sorted(lv.offered_rate for lv in kept if lv.workload_key == workload)
        assert (rates[0], rates[-1]) == (0.1, 25.0)  # the lightest and the heaviest
    assert note == (
        "500 load levels, more than the 40 a fit takes: fitted and validated on 40 (the lightest and heaviest of each "
        "workload, and 36 of the other 496 evenly spaced by load)"
    )
    again, _ = capped_levels(list(reversed(sweep)))
    assert {id(lv) for lv in again} == {id(lv) for lv in kept}  # deterministic, whatever the order read


def test_a_sweep_within_the_cap_is_fitted_on_every_level_and_nothing_is_said():
    sweep = [_plain_level("chat", i, float(i + 1)) for i in range(40)]
    assert capped_levels(sweep) == (sweep, None)


def _synthetic(rates: tuple[float, ...]) -> Config:
    settings = {"max_num_seqs": 256, "max_num_batched_tokens": 8192}
    key = config_key("nvidia-h100-sxm-80gb", 1, "llama-3.1-8b", "bf16", "vLLM", "0.11.0", settings)
    cfg = Config(key, "synthetic", "vLLM", "0.11.0", settings, "nvidia-h100-sxm-80gb", 1, "llama-3.1-8b", "bf16")
    cfg.levels = [_level(key, "short", index, rate, 200, 100) for index, rate in enumerate(rates)]
    return cfg


def test_a_config_above_the_cap_is_fitted_on_the_kept_levels_said_in_its_notes(monkeypatch):
    monkeypatch.setattr(bounds, "MAX_LEVELS_PER_FIT", 4)
    result = calibrate_config(_synthetic((1, 3, 5, 10, 15, 20, 30, 40)), validate=False)
    assert result.fit is not None and len(result.fit.levels_used) == 4
    assert {load for _w, (_r, load, _cap) in result.fit.levels_used} == {1, 5, 20, 40}
    row = model_row(result)
    assert row["load_levels"] == 8 and len(json.loads(row["load_levels_fitted"])) == 4
    assert "8 load levels, more than the 4 a fit takes: fitted and validated on 4" in row["fit_notes"]


def test_past_the_time_bound_the_best_parameters_are_kept_said_and_the_config_never_bills(monkeypatch):
    monkeypatch.setattr(bounds, "CONFIG_SECONDS_MAX", 0.0)
    result = calibrate_config(_synthetic((1, 5, 10, 20, 30)))
    assert result.fit is not None and math.isfinite(result.fit.params.b0_ms) and result.fit.params.b0_ms > 0
    notes = "; ".join(result.fit.notes)
    assert "time bound of 0 s of CPU per config met while fitting the step costs on 5 levels" in notes
    assert "max_batched_tokens not searched: the runtime's default 8192 kept" in notes
    assert "held-out validation stopped after 0 rows" in notes
    assert result.status == "unreliable" and result.reason.startswith("the time bound cut its fit")


def test_a_long_fit_prints_a_progress_line_naming_the_config(monkeypatch):
    monkeypatch.setattr(bounds, "PROGRESS_EVERY_S", 0.0)
    said: list[str] = []
    budget = FitBudget("llama-3.1-8b, 1x H100", said.append, seconds=1e9)
    assert not budget.over("fitting the step costs on 500 levels")
    assert said and said[0].startswith("llama-3.1-8b, 1x H100: fitting the step costs on 500 levels, 0 s so far")
    assert budget.note is None


def test_a_million_lengths_of_a_level_reach_the_fit_as_1000_order_statistics():
    lengths = np.random.default_rng(5).integers(1, 4000, 1_000_000)
    summary = summarised_lengths(lengths.tolist())
    assert len(summary) == RECORD_LENGTHS_PER_LEVEL == 1000
    assert abs(summary.mean() / lengths.mean() - 1) < 0.002
    for q in (0.05, 0.5, 0.95):
        assert abs(np.quantile(summary, q) / np.quantile(lengths, q) - 1) < 0.01
    assert np.array_equal(summary, summarised_lengths(lengths[::-1].tolist()))  # deterministic
    few = [5, 3, 9]
    assert summarised_lengths(few).tolist() == few  # a small level keeps every length, in its order
