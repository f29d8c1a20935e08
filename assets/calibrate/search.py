"""One-dimensional searches of the calibration (a cap the engine's settings do not state): a coarse log grid, then a
golden section between the best point's neighbours, on integers (a cap is a count)."""

from __future__ import annotations

import math

import numpy as np


def golden_log(f, lo: float, hi: float, iters: int = 10):
    """Minimise f over [lo, hi] on a log scale (integers: the cap is a count)."""
    a, b = math.log(lo), math.log(hi)
    g = (math.sqrt(5) - 1) / 2
    c, d = b - g * (b - a), a + g * (b - a)
    cache: dict[int, float] = {}

    def F(u: float) -> tuple[float, int]:
        k = max(1, int(round(math.exp(u))))
        if k not in cache:
            cache[k] = f(k)
        return cache[k], k

    fc, _ = F(c)
    fd, _ = F(d)
    for _ in range(iters):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc, _ = F(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd, _ = F(d)
    k = min(cache, key=lambda key: cache[key])
    return k, cache[k], cache


def search_log(f, lo: float, hi: float, grid: int = 7, refine: int = 4):
    """A coarse log grid (the objective has plateaus: a cap that never binds changes nothing), then a golden
    section between the best point's neighbours."""
    if hi <= lo:
        hi = lo * 2
    a_log, b_log = math.log(lo), math.log(hi)
    pts = [math.exp(a_log + (b_log - a_log) * i / (grid - 1)) for i in range(grid)]
    vals = [f(max(1, int(round(x)))) for x in pts]
    i = int(np.argmin(vals))
    a, b = pts[max(0, i - 1)], pts[min(grid - 1, i + 1)]
    k, kc, cache = golden_log(f, a, b, iters=refine)
    if vals[i] < kc:
        k, kc = max(1, int(round(pts[i]))), vals[i]
    return k, kc, cache
