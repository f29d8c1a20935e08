"""Where the fit of a config starts: a point that depends on the sweep alone, never on the path a fit took.

1. A first guess of the step costs by least squares on two identities that hold per level (`initial_guess`):
     decode:  TPOT = b0 + b1 x (rate x prompt tokens x TPOT) + b2 x (rate x (answer tokens - 1) x TPOT)
              (a decoding sequence sees every step; Little's law gives the prefill tokens and decoding
               sequences per step from the achieved rate)
     prefill: TTFT at the lowest load of each workload = c + b0 + b1 x prompt tokens
   solved with non-negative coefficients (exact NNLS over the 16 active sets of 4 unknowns).
2. A small grid around it (`best_start`): the decode costs (b0, b2) and the prefill costs (b1, b3, c) each scaled by
   START_SCALES, every point's objective evaluated once, the lowest kept (the guess first among equals). The identities
   hold only below saturation and the simulated medians are not the identities' means, so the guess can sit on the
   far side of a ridge; the grid's best point is in the basin the sweep's data choose, whatever the guess.
The fit then runs Levenberg-Marquardt from there to convergence (fit.py: a step that improves the objective by less
than a relative LM_TOLERANCE, confirmed with a fresh Jacobian), so that its end point is the optimum of that basin,
not where a fixed number of iterations stopped: nudging the start moves the parameters by less than
tests/unit/test_calibrate_fit_start.py states.

Every point is rounded first (log step costs to 1e-9) and costs are exact sums (`math.fsum`): BLAS kernels differ by
CPU in the last bits, and those bits must not choose the fit.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from assets.calibrate.levels import Level

# the decode costs (b0, b2) and the prefill costs (b1, b3, c) each scaled by these around the first guess
START_SCALES = (0.5, 1.0, 2.0)


def measured_value(lv: Level, m: str) -> float | None:
    """A level's measure `m` when it is a finite number above 0, else None (0 ms is no measurement)."""
    v = lv.measured.get(m)
    return v if (v is not None and isinstance(v, (int, float)) and math.isfinite(v) and v > 0) else None


LOG_QUANTUM_DECIMALS = 9


def sumsq(r: np.ndarray) -> float:
    """The sum of squares, correctly rounded (the same on every CPU, unlike a BLAS dot product)."""
    return math.fsum(float(v) * float(v) for v in r)


def quantised(x) -> np.ndarray:
    """A point of the fit in log space, rounded so that last-bit differences between machines vanish."""
    return np.asarray([round(float(v), LOG_QUANTUM_DECIMALS) for v in x])


def _significant(value: float, digits: int = 9) -> float:
    return float(f"{value:.{digits}g}")


def nnls(A: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Exact non-negative least squares for a handful of unknowns (every active set)."""
    n = A.shape[1]
    best, best_cost = np.zeros(n), sumsq(y)
    for mask in range(1, 1 << n):
        cols = [i for i in range(n) if mask >> i & 1]
        x, *_ = np.linalg.lstsq(A[:, cols], y, rcond=None)
        if np.all(x >= 0):
            full = np.zeros(n)
            full[cols] = x
            cost = sumsq(A @ full - y)
            # collinear columns (one token mix: prompt and answer costs trade) give several active sets one cost to
            # the last bits; only a clear improvement replaces the earlier set, so the choice is the same everywhere
            if cost < best_cost * (1 - 1e-9):
                best, best_cost = full, cost
    return best


class NoTiming(ValueError):
    """Levels with no latency to fit on: the message says which measures are missing or 0, in words."""


def initial_guess(levels: list[Level]) -> tuple[float, float, float, float]:
    """(b0, b1, b2, c) in ms from the decode and prefill identities (see the module docstring); NoTiming when no
    level states a latency above 0 to start from."""
    rows, ys = [], []
    for lv in levels:
        t = measured_value(lv, "tpot_p50_ms")
        lam = measured_value(lv, "achieved_requests_per_s")
        li = lv.inp.mean
        lo = lv.out.mean
        if t and lam:
            ts = t / 1e3
            rows.append([1.0, lam * li * ts, lam * max(lo - 1, 0) * ts, 0.0])
            ys.append(t)
    by_wl: dict = {}
    for lv in levels:
        if measured_value(lv, "ttft_p50_ms"):
            k = lv.workload_key
            lo_load = lv.load_size if lv.load_kind == "concurrency" else (lv.offered_rate or 0)
            if k not in by_wl or lo_load < by_wl[k][0]:
                by_wl[k] = (lo_load, lv)
    for _, lv in by_wl.values():
        ttft = lv.measured["ttft_p50_ms"]
        conc = lv.load_size if lv.load_kind == "concurrency" else 1.0
        # conc simultaneous prompts at the start of a closed loop: the median waits for half of them
        waits = (1.0 + conc) / 2.0 if lv.load_kind == "concurrency" else 1.0
        rows.append([waits, lv.inp.mean * waits, 0.0, 1.0])
        ys.append(ttft)
    if not rows:
        raise NoTiming(
            f"no latency to fit: at each of its {len(levels)} levels the median TTFT is 0 ms or missing, and so is "
            "the median TPOT (or nothing was completed); a latency of 0 ms is no measurement: check that the "
            "tool wrote its timings"
        )
    A = np.asarray(rows, dtype=float)
    y = np.asarray(ys, dtype=float)
    w = 1.0 / np.maximum(y, 1e-6)
    x = nnls(A * w[:, None], y * w)
    b0, b1, b2, c = (_significant(float(v)) for v in x)
    return max(b0, 0.05), max(b1, 1e-5), max(b2, 1e-4), max(c, 0.1)


def best_start(x0: np.ndarray, cost: Callable[[np.ndarray], float]) -> tuple[np.ndarray, float]:
    """The lowest-cost point of the grid around `x0` (log b0, b1, b2, b3, c; see the module docstring) and its cost;
    `x0` itself wins ties, then the grid's order."""
    decode, prefill = np.asarray([1.0, 0.0, 1.0, 0.0, 0.0]), np.asarray([0.0, 1.0, 0.0, 1.0, 1.0])
    best, best_cost = x0, cost(x0)
    for d in START_SCALES:
        for p in START_SCALES:
            if d == p == 1.0:
                continue
            x = quantised(x0 + math.log(d) * decode + math.log(p) * prefill)
            c = cost(x)
            if c < best_cost * (1 - 1e-9):
                best, best_cost = x, c
    return best, best_cost
