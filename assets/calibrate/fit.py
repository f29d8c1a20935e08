"""Calibration of the engine model of one config from its load levels.

1. What the engine's documented settings fix (scheduling family, token budget, caps, replicas), from the
   runtime, its version and the stated settings (`runtime_defaults.engine_defaults`).
2. A start that depends on the sweep alone (fit_start.py): a first guess of the step costs by least squares on
   identities that hold per level, then the best point of a small grid around it.
3. Refinement by simulation: Levenberg-Marquardt on log(b0, b1, b2, b3, c), each level replayed as the tool
   ran it (its number of requests, open or closed loop, arrival CV, client cap), residuals
   log(simulated / measured) of p50 TTFT, p50 TPOT and the achieved rate (soft-L1), with weak priors, run until a
   step improves the objective by less than LM_TOLERANCE with a fresh Jacobian (converged, not stopped on a path).
4. Each cap no setting states (token budget, KV tokens, running sequences): a log grid then a golden section over
   the same objective, kept only where it lowers it by 3% (only saturated levels can tell; else the runtime's
   default stays, said in the notes).
A held-out refit (`start`) refits the step costs from the fit on every level, its caps kept.
No scipy: numpy least squares and a hand-written LM / golden section.

The same sweeps give the same fit on any machine: BLAS kernels (and numpy's SIMD exp/log) differ by CPU in the last
bits, and a simulation replays discrete events, so those bits would steer the LM to a visibly different fit. Every
point the fit evaluates is therefore rounded first (log step costs to 1e-9, a relative 1e-9 on the step costs), costs
are exact sums (`math.fsum`) and exp/log are the C library's, not numpy's vector kernels (fit_start.py).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from assets.calibrate.bounds import FitBudget
from assets.calibrate.engine import EngineParams, simulate
from assets.calibrate.fit_start import best_start, initial_guess, measured_value, quantised, sumsq
from assets.calibrate.levels import Config, Level
from assets.calibrate.runtime_defaults import engine_defaults
from assets.calibrate.search import search_log
from assets.calibrate.summary import summarise

FIT_METRICS = {"ttft_p50_ms": 1.0, "tpot_p50_ms": 1.0, "achieved_requests_per_s": 1.0}
DEFAULT_SEED = 7
ROBUST_SCALE = 0.25


# ---------------------------------------------------------------------------------------------------------------------


@dataclass
class Fit:
    config_key: str
    params: EngineParams
    levels_used: list  # (workload, effective load) of the levels fitted on
    in_sample: dict  # metric -> median |relative error|
    in_sample_errors: list = field(default_factory=list)  # every |relative error| on the fitted levels
    notes: list = field(default_factory=list)
    seconds: float = 0.0
    sims: int = 0
    saturated_levels: int = 0


def simulate_level(p: EngineParams, lv: Level, seed: int = DEFAULT_SEED) -> dict:
    return summarise(simulate(p, lv.load_spec(), lv.inp, lv.out, seed=seed))


class Simulations:
    """A config's levels simulated at the points of its fits, each (point, level) once: the held-out refits of its
    levels all start from its fit on every level, so their first residuals and Jacobian are the same simulations
    (a simulation is a function of the point, the level's load and its lengths: the same figures, replayed once)."""

    def __init__(self) -> None:
        self.count = 0  # simulations run
        self._done: dict[tuple, tuple[Level, dict]] = {}

    def level(self, p: EngineParams, lv: Level) -> dict:
        """`simulate_level(p, lv)`, run once per point and level (a shortened copy of a level, `_for_fit`, shares
        its lengths: the key names them by identity, and the level kept beside the result keeps them alive)."""
        load = (lv.load_kind, lv.n_requests, lv.concurrency, lv.offered_rate, lv.arrival_cv, lv.client_cap)
        key = (p, load, id(lv.inp), id(lv.out))
        found = self._done.get(key)
        if found is None:
            self.count += 1
            found = self._done[key] = (lv, simulate_level(p, lv))
        return found[1]


def _residuals(p: EngineParams, levels: list[Level], sims: Simulations) -> np.ndarray:
    res = []
    for lv in levels:
        s = sims.level(p, lv)
        for m, w in FIT_METRICS.items():
            mv = measured_value(lv, m)
            if mv is None:
                continue
            sv = s.get(m)
            r = 3.0 if (sv is None or not math.isfinite(sv) or sv <= 0) else math.log(sv / mv)
            # soft-L1 (pseudo-Huber) on the log ratio: one odd level (20 prompts, a warm-up outlier) cannot
            # pull the step costs of every other level; rho(r) = 2 d^2 (sqrt(1 + (r/d)^2) - 1), d = 0.25
            d = ROBUST_SCALE
            res.append(w * math.copysign(math.sqrt(2.0 * d * d * (math.sqrt(1.0 + (r / d) ** 2) - 1.0)), r))
    res += _prior_residuals(p)
    return np.asarray(res)


def _pack(p: EngineParams) -> np.ndarray:
    return quantised(math.log(v) for v in (p.b0_ms, p.b1_ms, p.b2_ms, max(p.b3_ms, 1e-9), p.ttft_overhead_ms))


def _unpack(base: EngineParams, x: np.ndarray) -> EngineParams:
    b0, b1, b2, b3, c = (math.exp(v) for v in quantised(x))
    return base.with_(b0_ms=b0, b1_ms=b1, b2_ms=b2, b3_ms=b3, ttft_overhead_ms=c)


# Weak priors (extra residuals) for what a sweep may not identify: the per-request overhead c (HTTP,
# tokenisation) near 20 ms, and the attention share of a prompt token's cost at 10k tokens of context,
# b3 x 10 / b1, near 0.3 (about what the FLOPs of an 8B-70B dense model give). Weight 0.3 on the log:
# a factor e (2.7x) away costs as much as a 30% miss on one level.
PRIOR_C_MS = 20.0
PRIOR_ATTN_SHARE = 0.3
PRIOR_WEIGHT = 0.3


# and the cost of a prompt token against a decoding sequence's, b1 / b2, near 0.2: both run the same weights
# once per token, decode also reads the sequence's KV cache (where several workloads identify both, the fits
# give 0.1-0.6). Without it a sweep of one token mix leaves b1 free (it trades against b0, c and b2) and the
# prompt cost of another mix is a guess at zero.
PRIOR_B1_B2 = 0.2


def _prior_residuals(p: EngineParams) -> list[float]:
    return [
        PRIOR_WEIGHT * math.log(p.ttft_overhead_ms / PRIOR_C_MS),
        PRIOR_WEIGHT * math.log(max(p.b1_ms, 1e-12) / max(p.b2_ms, 1e-12) / PRIOR_B1_B2),
        PRIOR_WEIGHT * math.log(max(p.b3_ms, 1e-12) * 10.0 / max(p.b1_ms, 1e-12) / PRIOR_ATTN_SHARE),
    ]


def _lm(
    base: EngineParams,
    levels: list[Level],
    sims: Simulations,
    iters: int = 8,
    tol: float = 3e-3,
    budget: FitBudget | None = None,
    confirm: bool = False,
):
    """Levenberg-Marquardt on log(b0, b1, b2, c): one finite-difference Jacobian, then Broyden rank-one
    updates (one simulation of the levels per iteration instead of five); a fresh Jacobian after a failed step, and
    with `confirm` before it stops on a step smaller than `tol` taken on an updated one (converged, not stopped where
    the Broyden updates drifted). Past the `budget`'s time bound it stops where it is (the best point so far)."""
    x = _pack(base)
    r = _residuals(_unpack(base, x), levels, sims)
    cost = sumsq(r)
    mu = 1e-2
    h = 0.08

    def jac(x, r):
        J = np.empty((len(r), len(x)))
        for i in range(len(x)):
            xx = x.copy()
            xx[i] += h
            xx = quantised(xx)
            J[:, i] = (_residuals(_unpack(base, xx), levels, sims) - r) / h
        return J

    J = jac(x, r)
    fresh = True
    for _ in range(iters):
        if budget is not None and budget.over(f"fitting the step costs on {len(levels)} levels"):
            break
        g = J.T @ r
        H = J.T @ J
        step = -np.linalg.solve(H + mu * (np.diag(np.diag(H)) + 1e-9 * np.eye(len(x))), g)
        step = np.clip(step, -1.5, 1.5)
        xn = quantised(x + step)
        rn = _residuals(_unpack(base, xn), levels, sims)
        cn = sumsq(rn)
        # Broyden update of J along the step taken (good or bad, it is information)
        J = J + np.outer(rn - r - J @ step, step) / max(float(step @ step), 1e-12)
        if cn < cost:
            rel = (cost - cn) / max(cost, 1e-12)
            x, r, cost = xn, rn, cn
            mu = max(mu / 3, 1e-4)
            if rel < tol and (fresh or not confirm):
                break  # a small step taken with a fresh Jacobian: converged
            if rel < tol:  # a small step on an updated Jacobian may be its drift: confirmed with a fresh one
                J = jac(x, r)
            fresh = rel < tol
        else:
            mu *= 5
            if not fresh:
                J = jac(x, r)
                fresh = True
            elif mu > 1e3:
                break
    return _unpack(base, x), cost


FIT_MAX_REQUESTS = 3000
# The fit's own LM runs until a step improves the objective by less than this (relative), confirmed with a fresh
# Jacobian, or LM_ITERATIONS steps (fit_start.py: the start and the end do not depend on the path).
LM_ITERATIONS = 25
LM_TOLERANCE = 1e-4


def _for_fit(lv: Level, limit: int = 0) -> Level:
    """A cheaper copy of a long level for the search: the first FIT_MAX_REQUESTS requests, where the level
    reaches a steady state (the server keeps up, or a client cap bounds what is in flight). An open-loop
    level the server cannot keep up with is kept whole: its queue, hence its TTFT, grows with its length."""
    limit = limit or FIT_MAX_REQUESTS
    if lv.n_requests <= limit:
        return lv
    if lv.load_kind == "rate" and not math.isfinite(lv.client_cap) and saturated(lv):
        return lv
    import copy

    short = copy.copy(lv)
    short.n_requests = limit
    return short


# A long level is scored (in-sample and held out) on its first this many requests, where it is in its steady state
# (`_for_fit`); a saturated open-loop level is scored whole. The real sweeps' levels are all shorter.
SCORE_MAX_REQUESTS = 20_000


def simulate_scored(p: EngineParams, lv: Level) -> dict:
    """What `p` predicts for the level as it is scored: at most SCORE_MAX_REQUESTS of its requests (`_for_fit`)."""
    return simulate_level(p, _for_fit(lv, SCORE_MAX_REQUESTS))


def saturated(lv: Level) -> bool:
    """A level where the server, not the load generator, set the rate."""
    ach = lv.measured.get("achieved_requests_per_s") or 0
    if lv.load_kind == "rate" and lv.offered_rate:
        return ach < 0.85 * lv.offered_rate
    return True  # a closed loop always runs as fast as the server lets it


def calibrate(
    cfg: Config,
    levels: list[Level] | None = None,
    exclude_failing: bool = True,
    start: EngineParams | None = None,
    budget: FitBudget | None = None,
    sims: Simulations | None = None,
) -> Fit:
    """Fit the config on `levels` (all of its levels by default). With `start` (the fit on every level), a held-out
    refit: the step costs refitted from there, the caps kept (they are searched once, on every level). Past the
    `budget`'s time bound the best parameters so far are kept (bounds.py). `sims` shares the config's simulations
    between its fits (the held-out refits: validate.py)."""
    t0 = time.time()
    sims = Simulations() if sims is None else sims
    first = sims.count
    levels = list(cfg.levels if levels is None else levels)
    notes: list = []
    if exclude_failing:
        kept = [lv for lv in levels if (lv.measured.get("error_rate") or 0) <= 0.05]
        if len(kept) < len(levels):
            notes.append(f"{len(levels) - len(kept)} level(s) with > 5% failed requests left out of the fit")
        levels = kept
    if start is not None:
        warm = [_for_fit(lv, WARM_MAX_REQUESTS) for lv in levels]
        p, _cost = _lm(start, warm, sims, iters=WARM_ITERATIONS, budget=budget)
        return _finish(cfg, p, levels, notes, t0, sims, first, score=False)
    fixed, free, dnotes = engine_defaults(cfg)
    notes += dnotes
    b0, b1, b2, c = initial_guess(levels)
    base = EngineParams(
        b0_ms=b0,
        b1_ms=b1,
        b2_ms=b2,
        b3_ms=PRIOR_ATTN_SHARE * b1 / 10.0,
        ttft_overhead_ms=c,
        max_num_seqs=fixed.get("max_num_seqs", free.get("max_num_seqs", 256.0)),
        max_batched_tokens=fixed.get("max_batched_tokens", free.get("max_batched_tokens", 8192.0)),
        mixed=fixed["mixed"],
        chunked=fixed["chunked"],
        replicas=fixed["replicas"],
    )
    fit_levels = [_for_fit(lv) for lv in levels]
    x, _ = best_start(_pack(base), lambda x: sumsq(_residuals(_unpack(base, x), fit_levels, sims)))
    p, cost = _lm(_unpack(base, x), fit_levels, sims, LM_ITERATIONS, LM_TOLERANCE, budget, confirm=True)
    n_sat = sum(1 for lv in levels if saturated(lv))
    need = max(
        float(np.max(lv.inp.sample(64, np.random.default_rng(0)) + lv.out.sample(64, np.random.default_rng(1))))
        for lv in levels
    )
    # the most prompt + answer tokens any level could hold at once: a KV cache above it never binds
    demand = max(
        min(lv.n_requests, lv.client_cap if lv.load_kind == "rate" else (lv.concurrency or 1))
        * (lv.inp.mean + lv.out.mean)
        if math.isfinite(min(lv.n_requests, lv.client_cap if lv.load_kind == "rate" else (lv.concurrency or 1)))
        else 0.0
        for lv in levels
    )
    bounds = {
        "max_batched_tokens": (256, 65536),
        "max_num_seqs": (4, 4096),
        "kv_tokens": (need * 1.05, max(need * 2, demand * 1.2)),
    }
    free = dict(free, kv_tokens=math.inf)  # the KV cache size is never stated in the dumps
    for cap in ("max_batched_tokens", "kv_tokens", "max_num_seqs"):
        if cap not in free:
            continue
        if budget is not None and budget.over(f"searching {cap}"):
            budget.stop(f"{cap} not searched: the runtime's default {getattr(p, cap):.0f} kept")
            continue
        if not n_sat:
            notes.append(
                f"no saturated level: {cap} left at the default {getattr(p, cap):.0f}, saturation unidentified"
            )
            continue

        def f(k: int, cap: str = cap, p: EngineParams = p) -> float:
            rr = _residuals(p.with_(**{cap: float(k)}), fit_levels, sims)
            return sumsq(rr)

        k, kc, _ = search_log(f, *bounds[cap])
        if cap == "kv_tokens" and k > bounds[cap][1] * 0.7:
            kc = math.inf  # the largest KV cache tried is as good as none: not identified
        if kc < cost * 0.97:
            p = p.with_(**{cap: float(k)})
            p, cost = _lm(p, fit_levels, sims, LM_ITERATIONS, LM_TOLERANCE, budget, confirm=True)
            notes.append(f"{cap} fitted: {k}")
        else:
            notes.append(
                f"{cap} not identified by the saturated levels (objective flat): default {getattr(p, cap):.0f} kept"
            )
    return _finish(cfg, p, levels, notes, t0, sims, first)


WARM_ITERATIONS = 3
WARM_MAX_REQUESTS = FIT_MAX_REQUESTS  # shorter cuts (1,500) halve the time but break the steady state


def _finish(
    cfg: Config,
    p: EngineParams,
    levels: list[Level],
    notes: list[str],
    t0: float,
    sims: Simulations,
    first: int,
    score: bool = True,
) -> Fit:
    """The fit with its in-sample error on `levels` (with `score`); `sims` counted from `first` on."""
    n_sat = sum(1 for lv in levels if saturated(lv))
    errs: dict = {m: [] for m in FIT_METRICS}
    for lv in levels if score else []:
        s = simulate_scored(p, lv)
        sims.count += 1
        for m in FIT_METRICS:
            mv = measured_value(lv, m)
            if mv and s.get(m) and math.isfinite(s[m]):
                errs[m].append(abs(s[m] / mv - 1))
    in_sample = {m: (float(np.median(v)) if v else math.nan) for m, v in errs.items()}
    return Fit(
        config_key=cfg.key,
        params=p,
        levels_used=[(lv.workload_key, lv.effective_load) for lv in levels],
        in_sample=in_sample,
        notes=notes,
        seconds=time.time() - t0,
        sims=sims.count - first,
        saturated_levels=n_sat,
        in_sample_errors=[e for v in errs.values() for e in v],
    )
