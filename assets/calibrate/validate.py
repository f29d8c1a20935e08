"""Held-out error of the engine model: one level left out, one workload left out, an unseen workload's SLO rate.

Definitions (what docs/calibrated-model.md reports):
- a *level* is one load point of one workload; levels a server could not tell apart (a concurrency above the
  number of prompts sent is all the prompts at once) are one effective level and are held out together;
- relative error = predicted / measured - 1; medians and worsts are over |relative error|;
- *below the knee*: TTFT p50 at most twice the lightest level's TTFT p50 of the same workload (queueing has
  not taken over); p95 (and p99) TTFT are scored only there;
- *delivered at SLO* (one workload): the highest achieved rate at which p50 TTFT <= 2 x and p50 TPOT <= 2 x
  the workload's lightest-level values (a relative SLO: the dumps share no absolute one), interpolated linearly
  between the last level that meets it and the first that does not, on the measured levels; the same rule on
  the predicted values at the same levels gives the prediction. Censored when every level meets the SLO (the
  rate is only a lower bound) or the lightest level fails;
- a held-out workload is *judged* only on its levels of at least STEADY_REQUESTS requests: a closed loop of 20
  prompts sent at once is a burst, not a steady state. Its shorter levels are predicted and reported, unjudged
  (`judged` false, the reason in the note); its delivered at SLO is found on its judged levels, and where fewer
  than two remain it is found on every level and reported, unjudged.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from assets.calibrate.bounds import FitBudget
from assets.calibrate.fit import Fit, Simulations, calibrate, simulate_scored
from assets.calibrate.levels import Config, Level

HELD_OUT_METRICS = (
    "ttft_p50_ms",
    "tpot_p50_ms",
    "ttft_p95_ms",
    "ttft_p99_ms",
    "e2e_p50_ms",
    "itl_p50_ms",
    "achieved_requests_per_s",
)
KNEE_ONLY = {"ttft_p95_ms", "ttft_p99_ms"}
STEADY_REQUESTS = 100  # a held-out workload's level is judged from this many requests (per repeat)


@dataclass
class Row:
    config: str
    test: str  # lolo | lowo | lowo_slo
    held_out: str
    workload: str
    load: str
    metric: str
    measured: float
    predicted: float
    below_knee: bool
    note: str = ""
    judged: bool = True  # false: reported, not counted (a held-out workload's level of too few requests)

    @property
    def held_out_kind(self) -> str:
        return "level" if self.test == "lolo" else "workload"

    @property
    def scored(self) -> bool:
        """Counted in the error figures (see the module docstring)."""
        if not self.judged or not math.isfinite(self.rel_error) or "failed" in self.note:
            return False
        if self.test == "lowo_slo":
            return "measured: crossing" in self.note
        return not (self.metric in KNEE_ONLY and not self.below_knee)

    @property
    def rel_error(self) -> float:
        if not self.measured or not math.isfinite(self.predicted):
            return math.nan
        return self.predicted / self.measured - 1.0


def _group_levels(levels: list[Level]) -> dict:
    g = defaultdict(list)
    for lv in levels:
        g[(lv.workload_key, lv.effective_load)].append(lv)
    return g


def knee_flags(levels: list[Level]) -> dict:
    """id(level) -> below the knee (TTFT p50 <= 2 x the lightest level's of its workload)."""
    by_wl = defaultdict(list)
    for lv in levels:
        by_wl[lv.workload_key].append(lv)
    out = {}
    for lvs in by_wl.values():
        lightest = min(lvs, key=lambda lv: lv.load_size)
        ref = lightest.measured.get("ttft_p50_ms")
        for lv in lvs:
            v = lv.measured.get("ttft_p50_ms")
            out[id(lv)] = bool(ref and v and v <= 2.0 * ref)
    return out


def _load_str(lv: Level) -> str:
    """A level's load in a few characters (`load_text`)."""
    return load_text(lv.load_kind, lv.offered_rate, lv.concurrency, lv.client_cap)


def load_text(load_kind: str, offered_rate: float | None, concurrency: float | None, client_cap: float | None) -> str:
    """A load in a few characters, as calibrated.validation spells it: r=<req/s> [cap=<clients>], or c=<clients>; a
    value not stated is said as `?`."""

    def g(value: float | None) -> str:
        return "?" if value is None else f"{value:g}"

    if load_kind == "concurrency":
        return f"c={g(concurrency)}"
    cap = f" cap={g(client_cap)}" if client_cap is not None and math.isfinite(client_cap) else ""
    return f"r={g(offered_rate)}/s{cap}"


def steady(lv: Level) -> bool:
    """A level long enough to judge a held-out workload on: STEADY_REQUESTS requests or more per repeat."""
    return lv.n_requests >= STEADY_REQUESTS


def _unjudged_note(lv: Level) -> str:
    return (
        f"{lv.n_requests} requests, under {STEADY_REQUESTS}: not a steady state, reported, unjudged as a held-out "
        "workload's level"
    )


def _score(cfg: Config, test: str, held: str, lvs: list[Level], fit, knees: dict) -> tuple[list[Row], dict]:
    """The rows of the levels `lvs` predicted by `fit` (a held-out workload's short levels unjudged), and each
    level's prediction by id."""
    rows = []
    preds = {}
    for lv in lvs:
        s = simulate_scored(fit.params, lv)
        preds[id(lv)] = s
        for m in HELD_OUT_METRICS:
            mv = lv.measured.get(m)
            if mv is None or not isinstance(mv, (int, float)) or not math.isfinite(mv) or mv <= 0:
                continue
            if m in KNEE_ONLY and not knees[id(lv)]:
                continue
            notes = list(lv.notes)
            if (lv.measured.get("error_rate") or 0) > 0.05:
                notes.append(f"{lv.measured['error_rate']:.0%} of requests failed")
            judged = test != "lowo" or steady(lv)
            if not judged:
                notes.append(_unjudged_note(lv))
            rows.append(
                Row(
                    cfg.key,
                    test,
                    held,
                    lv.workload_key,
                    _load_str(lv),
                    m,
                    float(mv),
                    float(s.get(m, math.nan)),
                    knees[id(lv)],
                    "; ".join(notes),
                    judged,
                )
            )
    return rows, preds


def slo_of(lvs: list[Level]) -> dict | None:
    lightest = min(lvs, key=lambda lv: lv.load_size)
    t, p = lightest.measured.get("ttft_p50_ms"), lightest.measured.get("tpot_p50_ms")
    if not t or not p:
        return None
    return {"ttft_p50_ms": 2.0 * t, "tpot_p50_ms": 2.0 * p}


def delivered_at_slo(points: list[tuple[float, dict]], slo: dict) -> tuple[float, str]:
    """points: (achieved rate, metrics) in increasing load. Returns (rate, status)."""
    last = None
    for ach, m in points:
        ok = all(m.get(k) is not None and math.isfinite(m[k]) and m[k] <= b for k, b in slo.items())
        if ok:
            last = (ach, m)
            continue
        if last is None:
            return math.nan, "lightest level fails"
        fr = 1.0
        for k, b in slo.items():
            v1, v0 = m.get(k), last[1].get(k)
            if v1 is None or v0 is None or not math.isfinite(v1):
                fr = 0.0
                continue
            if v1 > b:
                fr = min(fr, 0.0 if v1 <= v0 else (b - v0) / (v1 - v0))
        fr = max(0.0, min(1.0, fr))
        return last[0] + fr * (ach - last[0]), "crossing"
    if last is None:
        return math.nan, "no level"
    return last[0], "censored: every level meets the SLO"


def validate_config(
    cfg: Config, full: Fit | None = None, budget: FitBudget | None = None, sims: Simulations | None = None
) -> list[Row]:
    """Every held-out prediction of the config. Leaving a level out refits the step costs from `full` (the fit on
    every level), its caps kept (all from that one point: their first simulations are shared, `sims`, those of the fit
    on every level among them when it ran with them); leaving a workload out refits from scratch. Past the `budget`'s
    time bound no more is held out (said in the budget's note)."""
    rows: list[Row] = []
    sims = Simulations() if sims is None else sims
    knees = knee_flags(cfg.levels)
    groups = _group_levels(cfg.levels)
    # leave one (effective) level out
    for (wl, eff), held in groups.items():
        train = [lv for lv in cfg.levels if (lv.workload_key, lv.effective_load) != (wl, eff)]
        if len({(lv.workload_key, lv.effective_load) for lv in train}) < 3:
            continue
        if _out_of_time(budget, "holding out levels", f"held-out validation stopped after {len(rows)} rows"):
            return rows
        fit = calibrate(cfg, train, start=full.params if full else None, budget=budget, sims=sims)
        r, _ = _score(cfg, "lolo", _load_str(held[0]), held, fit, knees)
        rows += r
    # leave one workload out
    wls = cfg.workloads
    if len(wls) >= 2:
        for wl in wls:
            train = [lv for lv in cfg.levels if lv.workload_key != wl]
            test = [lv for lv in cfg.levels if lv.workload_key == wl]
            if _out_of_time(budget, "holding out workloads", f"held-out validation stopped after {len(rows)} rows"):
                return rows
            fit = calibrate(cfg, train, budget=budget)
            r, preds = _score(cfg, "lowo", wl, test, fit, knees)
            rows += r
            slo_row = _held_out_slo(cfg, wl, test, preds)
            if slo_row is not None:
                rows.append(slo_row)
    return rows


def _held_out_slo(cfg: Config, wl: str, test: list[Level], preds: dict) -> Row | None:
    """The held-out workload's delivered at SLO, measured and predicted, on its steady levels; on every level,
    unjudged, where fewer than two effective levels are steady; None with fewer than two levels or no SLO."""
    steady_levels = [lv for lv in test if steady(lv)]
    judged = len(_group_levels(steady_levels)) >= 2
    lvs = steady_levels if judged else test
    if len(_group_levels(lvs)) < 2:
        return None
    slo = slo_of(lvs)
    if slo is None:
        return None
    order = sorted(lvs, key=lambda lv: (lv.load_size, lv.load_index))
    ok_order = [lv for lv in order if (lv.measured.get("error_rate") or 0) <= 0.05]
    dm, sm = delivered_at_slo([(lv.measured["achieved_requests_per_s"], lv.measured) for lv in ok_order], slo)
    dp, sp = delivered_at_slo([(preds[id(lv)]["achieved_requests_per_s"], preds[id(lv)]) for lv in ok_order], slo)
    note = (
        f"SLO p50 TTFT <= {slo['ttft_p50_ms']:.0f} ms, p50 TPOT <= {slo['tpot_p50_ms']:.1f} ms; "
        f"measured: {sm}; predicted: {sp}"
    )
    short = len(test) - len(steady_levels)
    if not judged:
        fewest = min(lv.n_requests for lv in test)
        note += (
            f"; {short} of its {len(test)} levels have under {STEADY_REQUESTS} requests (as few as {fewest}): "
            "not a steady state, reported, unjudged"
        )
    elif short:
        note += f"; found on its {len(lvs)} levels of {STEADY_REQUESTS} requests or more ({short} shorter left out)"
    return Row(cfg.key, "lowo_slo", wl, wl, "sweep", "delivered_at_slo_requests_per_s", dm, dp, True, note, judged)


def _out_of_time(budget: FitBudget | None, doing: str, stopped: str) -> bool:
    """Whether the time bound is met (then `stopped` is said)."""
    if budget is None or not budget.over(doing):
        return False
    budget.stop(stopped)
    return True
