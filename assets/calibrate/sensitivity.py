"""What the token mix and the bursts cost: a profile's traffic through a config with its prompts or answers halved
and doubled, and at Poisson arrivals, each variant's delivered-at-SLO rate re-derived by the engine model.

  with_mix(traffic, prompts, answers)  the same arrivals with every prompt / answer length multiplied
  at_poisson(traffic)                  the same token mix at inter-arrival CV 1 (a log's lengths, its gaps dropped)
  slo_rate(p, traffic, bounds)         the highest rate meeting every bound, by bisection on the rate (a handful of
                                       replays instead of a full curve), with the prefill share of accelerator time
                                       at that rate
  variants(p, traffic, bounds)         every variant's rate relative to our mix's, found the same way (so the ratio
                                       carries no difference of method), plus our mix's prefill share

A variant's delivered band is the profile x config's calibrated.delivered_at_slo band times that ratio: at our mix
it is that band exactly, and each variant carries the same held-out error.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from assets.calibrate import project
from assets.calibrate.engine import EngineParams
from assets.calibrate.traffic import Lengths, Trace

# (variant, prompt factor, answer factor); our mix first
MIXES = (
    ("our_mix", 1.0, 1.0),
    ("prompts_x0.5", 0.5, 1.0),
    ("prompts_x2", 2.0, 1.0),
    ("answers_x0.5", 1.0, 0.5),
    ("answers_x2", 1.0, 2.0),
)
POISSON = "poisson_arrivals"
POISSON_CV = 1.0
BISECTION_STEPS = 9  # the rate to within (1.25 / 0.01) ** (1 / 2 ** 9) - 1 = 0.95% of itself
SENSITIVITY_REQUESTS = 2000  # requests per replay (a log: its own, within the curve's bounds, capped here)
POISSON_DIFFERS = 0.05  # a profile whose arrivals are within this of CV 1 has no bursts to price


def _scaled(values: np.ndarray, factor: float) -> np.ndarray:
    return np.maximum(1, np.rint(np.asarray(values) * factor)).astype(np.int64)


def with_mix(traffic: project.Traffic, prompts: float, answers: float) -> project.Traffic:
    """`traffic` with every prompt length x `prompts` and every answer length x `answers` (arrivals unchanged)."""
    if prompts == 1.0 and answers == 1.0:
        return traffic
    trace = traffic.trace
    if trace is not None:
        trace = Trace(
            trace.t, _scaled(trace.input_tokens, prompts), _scaled(trace.output_tokens, answers), trace.source
        )
    return replace(
        traffic,
        trace=trace,
        input_tokens=traffic.input_tokens.scaled(prompts),
        output_tokens=traffic.output_tokens.scaled(answers),
        basis=f"{traffic.basis}; prompts x{prompts:g}, answers x{answers:g}",
    )


def at_poisson(traffic: project.Traffic) -> project.Traffic:
    """The same token mix at Poisson arrivals (a log's lengths resampled, its gaps replaced by exponential ones)."""
    inputs, outputs = traffic.input_tokens, traffic.output_tokens
    if traffic.trace is not None:
        inputs, outputs = Lengths.empirical(traffic.trace.input_tokens), Lengths.empirical(traffic.trace.output_tokens)
    return replace(
        traffic,
        trace=None,
        input_tokens=inputs,
        output_tokens=outputs,
        arrival_cv=POISSON_CV,
        basis=f"{traffic.basis}; at Poisson arrivals (inter-arrival CV 1) instead",
    )


def has_bursts(traffic: project.Traffic) -> bool:
    """Whether the traffic's arrivals differ from Poisson (a log, or a stated arrival CV other than 1)."""
    cv = traffic.interarrival_cv
    return traffic.trace is not None or (math.isfinite(cv) and abs(cv - POISSON_CV) > POISSON_DIFFERS)


@dataclass(frozen=True)
class SloRate:
    """The highest rate meeting every bound (NaN: even the lightest rate misses), how it was found (crossing | every
    rate meets | lightest rate misses | no request completes), and the prefill share of accelerator time there."""

    requests_per_s: float
    found: str
    prefill_share: float


def slo_rate(
    p: EngineParams,
    traffic: project.Traffic,
    bounds: dict[str, float],
    steps: int = BISECTION_STEPS,
    requests: int = SENSITIVITY_REQUESTS,
) -> SloRate:
    """Bisection (geometric) on the rate between CURVE_LOW and CURVE_HIGH of the saturation probe: each step replays
    `requests` requests; the crossing is interpolated between the last rate that meets and the first that misses
    (project.delivered_at_slo on those two points)."""
    sat = project.saturation_rate(p, traffic, requests=requests)
    if not (math.isfinite(sat) and sat > 0):
        return SloRate(math.nan, "no request completes", math.nan)

    def at(rate: float) -> dict:
        return project.replay(p, traffic, rate, requests=requests)

    def meets(point: dict) -> bool:
        return project.delivered_at_slo([point], bounds).found == "every point meets"

    low = at(project.CURVE_LOW * sat)
    if not meets(low):
        return SloRate(math.nan, "lightest rate misses", low["prefill_share"])
    high = at(project.CURVE_HIGH * sat)
    if meets(high):
        return SloRate(high["requests_per_s"], "every rate meets", high["prefill_share"])
    for _ in range(steps):
        middle = at(math.sqrt(low["requests_per_s"] * high["requests_per_s"]))
        if meets(middle):
            low = middle
        else:
            high = middle
    found = project.delivered_at_slo([low, high], bounds)
    return SloRate(found.requests_per_s, "crossing", low["prefill_share"])


@dataclass(frozen=True)
class Variant:
    """One variant of our traffic: its name, token means, arrival CV, its SLO rate over our mix's (NaN where either
    misses even at light load), how its rate was found, and its prefill share of accelerator time."""

    variant: str
    input_tokens_mean: float
    output_tokens_mean: float
    interarrival_cv: float
    rate_ratio: float
    found: str
    prefill_share: float


def variants(p: EngineParams, traffic: project.Traffic, bounds: dict[str, float]) -> list[Variant]:
    """Our mix, prompts and answers x0.5 and x2, and (where our arrivals are not Poisson) Poisson arrivals: each
    one's SLO rate relative to our mix's, every one found by the same bisection with the same seed."""
    mixes = [(name, with_mix(traffic, a, b)) for name, a, b in MIXES]
    if has_bursts(traffic):
        mixes.append((POISSON, at_poisson(traffic)))
    found = [(name, t, slo_rate(p, t, bounds)) for name, t in mixes]
    ours = found[0][2].requests_per_s
    out = []
    for name, t, rate in found:
        ratio = rate.requests_per_s / ours if ours > 0 else math.nan
        out.append(
            Variant(
                name,
                t.input_tokens_mean,
                t.output_tokens_mean,
                float(t.interarrival_cv),
                float(ratio),
                rate.found,
                rate.prefill_share,
            )
        )
    return out
