"""Our traffic through a calibrated config: the latency curve and the delivered rate at a profile's SLO.

The projection API (plain functions over a fitted `EngineParams`, reusable wherever a profile's traffic must be
run through a config):

  Traffic                   a profile's arrivals and token mix: a traffic log (its timestamps and lengths) or
                            length distributions with an inter-arrival CV (requirement.workload)
  replay(p, traffic, rate)  `traffic` sent to the engine at `rate` requests/s (open loop: users do not wait for
                            each other); returns the per-level summary of `summary.summarise` (TTFT/TPOT/ITL/E2E
                            p50..p99 ms, achieved_requests_per_s, error_rate, prefill_share, ...) plus the rate
                            asked (requests_per_s), the rate the requests were sent at (sent_requests_per_s) and
                            how a log was sampled (traffic_sample)
  saturation_rate           the most requests/s the config completes on this token mix
  latency_curve             replay at CURVE_POINTS rates from light load to past saturation
  delivered_at_slo          the highest rate of a curve at which every bound holds and the server keeps up
  band                      that rate widened by the config's held-out error: (low, high), never a point

A log is replayed with its own gaps compressed (or stretched) in time to each rate, so its bursts are kept; past
`requests` it is sampled in windows of contiguous requests (traffic.sample_windows), below it tiled. Without a log,
lengths are drawn from the workload's distributions (fixed, lognormal, through stated percentiles, or a lengths
file resampled); `from_means` is lognormal with a coefficient of variation of LENGTH_CV (the old `*_tokens_mean`
keys' assumption).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from assets.calibrate.engine import EngineParams, simulate
from assets.calibrate.summary import summarise
from assets.calibrate.traffic import Lengths, LoadSpec, Trace, sample_windows, scale_trace

LENGTH_CV = 1.0
CURVE_POINTS = 24  # at least 20 rates per curve
CURVE_LOW, CURVE_HIGH = 0.01, 1.25  # of the saturation probe
POINT_REQUESTS = 4000  # requests per point of a curve from token means
LOG_POINT_MIN, LOG_POINT_MAX = 2000, 20_000  # a log's requests per point: tiled up to the first, sampled past the last
REPLAY_MAX = 1_000_000  # one replay of a log: sampled in windows past this many requests
KEEPS_UP = 0.9  # the server keeps up when it completes at least this share of the rate it is sent
SEED = 11


class NoTraffic(ValueError):
    """A profile whose traffic cannot be built (no token mix at all); the message says why, in words."""


@dataclass(frozen=True)
class Traffic:
    """A profile's traffic: a trace (arrival times and lengths) or token-length distributions and an arrival CV.
    `basis` says where it came from, in words; `requests_per_s` is our mean rate where the profile states one."""

    trace: Trace | None
    input_tokens: Lengths
    output_tokens: Lengths
    arrival_cv: float
    basis: str
    requests_per_s: float | None = None

    @property
    def interarrival_cv(self) -> float:
        return self.trace.interarrival_cv() if self.trace is not None else self.arrival_cv

    @property
    def input_tokens_mean(self) -> float:
        return float(np.mean(self.trace.input_tokens)) if self.trace is not None else self.input_tokens.mean

    @property
    def output_tokens_mean(self) -> float:
        return float(np.mean(self.trace.output_tokens)) if self.trace is not None else self.output_tokens.mean


def from_lengths(
    inputs: Lengths, outputs: Lengths, arrival_cv: float | None, requests_per_s: float | None, basis: str
) -> Traffic:
    """Traffic drawn from length distributions at an arrival CV (None: Poisson); `basis` says which, in words."""
    cv = 1.0 if arrival_cv is None else float(arrival_cv)
    return Traffic(None, inputs, outputs, cv, basis, requests_per_s)


def from_means(
    input_mean: float, output_mean: float, arrival_cv: float | None, requests_per_s: float | None = None
) -> Traffic:
    """Traffic from token means (lognormal, CV LENGTH_CV) and an arrival CV (None: Poisson)."""
    cv = 1.0 if arrival_cv is None else float(arrival_cv)
    said = "stated" if arrival_cv is not None else "not stated: Poisson"
    basis = (
        f"workload means {input_mean:g} / {output_mean:g} tokens (lognormal, CV {LENGTH_CV:g}), "
        f"arrival CV {cv:g} ({said})"
    )
    inputs, outputs = Lengths.lognormal(input_mean, LENGTH_CV), Lengths.lognormal(output_mean, LENGTH_CV)
    return from_lengths(inputs, outputs, arrival_cv, requests_per_s, basis)


def from_log(
    starts_s: np.ndarray,
    input_tokens: np.ndarray | None,
    output_tokens: np.ndarray | None,
    source: str,
    requests_per_s: float | None = None,
    fill: tuple[Lengths | None, Lengths | None] = (None, None),
    basis: str | None = None,
) -> Traffic:
    """Traffic from a log's arrivals (s, sorted) and lengths, its time scaled to `requests_per_s` (our volume; None:
    the log's own). A side the log does not give (None) is drawn from its `fill` distribution (the workload's stated
    lengths); with neither, NoTraffic. `basis`: the workload's own words, followed by how the log was replayed."""
    t = np.asarray(starts_s, dtype=float)
    if len(t) < 2 or not t[-1] > t[0]:
        raise NoTraffic(f"the traffic log {source} has {len(t)} arrival(s) over no time span: no arrival pattern")
    lengths_said = "its lengths"
    sides = [input_tokens, output_tokens]
    rng = np.random.default_rng(SEED)
    for i, (side, stated) in enumerate(zip(("input", "output"), fill, strict=True)):
        given = sides[i]
        if given is not None and len(given) == len(t):
            continue
        if stated is None:
            raise NoTraffic(
                f"the traffic log {source} states no {side} lengths and the workload states none: no token mix to run "
                "through the model"
            )
        sides[i] = stated.sample(len(t), rng)
        lengths_said = "lengths stated in the workload where the log states none"
    # a request of no prompt or no answer token still takes a step: counted as one token
    inputs, outputs = (np.maximum(np.asarray(a, np.int64), 1) for a in sides)
    trace = Trace(t - t[0], inputs, outputs, source)
    own = trace.rate
    if requests_per_s is not None:
        trace = scale_trace(trace, requests_per_s)
    said = (
        f"traffic log {source}: its arrivals ({len(t):,} requests, inter-arrival CV {trace.interarrival_cv():.2f}, "
        f"{own:.3g} requests/s{f' scaled to {requests_per_s:.3g}' if requests_per_s else ''}) and {lengths_said}"
    )
    return Traffic(
        trace,
        Lengths.empirical(trace.input_tokens),
        Lengths.empirical(trace.output_tokens),
        trace.interarrival_cv(),
        f"{basis}; replayed: {said}" if basis else said,
        requests_per_s or own,
    )


def _log_at(trace: Trace, rate: float, requests: int) -> tuple[Trace, str]:
    sampled, said = sample_windows(trace, requests)
    if len(sampled.t) < requests:
        said += f", tiled to {requests:,}"
    return scale_trace(sampled, rate, max(requests, len(sampled.t))), said


def replay(
    p: EngineParams, traffic: Traffic, requests_per_s: float, requests: int | None = None, seed: int = SEED
) -> dict[str, Any]:
    """`traffic` at `requests_per_s` through the engine `p`: the per-level summary (see the module docstring).
    `requests`: how many to send (default: POINT_REQUESTS from means; a log's own count within LOG_POINT_MIN and
    LOG_POINT_MAX; at most REPLAY_MAX, past which a log is sampled in windows)."""
    sample = ""
    if traffic.trace is not None:
        n = requests or int(min(max(len(traffic.trace.t), LOG_POINT_MIN), LOG_POINT_MAX))
        trace, sample = _log_at(traffic.trace, requests_per_s, min(n, REPLAY_MAX))
        result = simulate(p, LoadSpec(n_requests=len(trace.t), trace=trace), trace.input_tokens, trace.output_tokens)
    else:
        n = requests or POINT_REQUESTS
        load = LoadSpec(n_requests=n, rate=requests_per_s, cv=traffic.arrival_cv)
        result = simulate(p, load, traffic.input_tokens, traffic.output_tokens, seed=seed)
        sample = f"{n:,} requests drawn from the workload's lengths"
    summary = summarise(result)
    span = float(np.nanmax(result.issue) - np.nanmin(result.issue)) if len(result.issue) > 1 else 0.0
    summary["requests_per_s"] = float(requests_per_s)
    summary["sent_requests_per_s"] = (len(result.issue) - 1) / span if span > 0 else math.nan
    summary["traffic_sample"] = sample
    return summary


def saturation_rate(p: EngineParams, traffic: Traffic, requests: int = 3000) -> float:
    """The most requests/s the config completes on this token mix: the achieved rate when every request arrives
    far faster than it can be served."""
    return float(replay(p, traffic, 1e5, requests=requests)["achieved_requests_per_s"])


def latency_curve(p: EngineParams, traffic: Traffic, points: int = CURVE_POINTS) -> list[dict[str, Any]]:
    """`points` rates spaced geometrically from CURVE_LOW to CURVE_HIGH of the saturation probe, each replayed."""
    sat = saturation_rate(p, traffic)
    if not (math.isfinite(sat) and sat > 0):
        raise NoTraffic("the model completes no request of this traffic (every request is larger than its KV cache)")
    rates = np.geomspace(CURVE_LOW * sat, CURVE_HIGH * sat, points)
    return [replay(p, traffic, float(r)) for r in rates]


def _meets(point: dict[str, Any], bounds: dict[str, float]) -> bool:
    held = all(math.isfinite(point.get(k, math.nan)) and point[k] <= b for k, b in bounds.items())
    return held and _keeps_up(point)


def _keeps_up(point: dict[str, Any]) -> bool:
    sent = point.get("sent_requests_per_s")
    sent = sent if sent is not None and math.isfinite(sent) else point["requests_per_s"]
    return bool(point["achieved_requests_per_s"] >= KEEPS_UP * sent)


@dataclass(frozen=True)
class Delivered:
    """The highest rate of a curve meeting the bounds (NaN when the lightest point misses), how it was found
    (crossing | every point meets | lightest point misses) and the bound that stops it."""

    requests_per_s: float
    found: str
    binding: str | None


def delivered_at_slo(curve: list[dict[str, Any]], bounds: dict[str, float]) -> Delivered:
    """Highest rate (interpolated linearly between the last point that meets every bound and the first that does
    not) at which every bound holds and the server keeps up (achieved >= KEEPS_UP x sent)."""
    last = None
    for point in curve:
        if _meets(point, bounds):
            last = point
            continue
        if last is None:
            return Delivered(math.nan, "lightest point misses", _binding(point, bounds))
        fraction, binding = (1.0, None) if _keeps_up(point) else (0.0, "achieved rate (the server falls behind)")
        for key, bound in bounds.items():
            v0, v1 = last.get(key, math.nan), point.get(key, math.nan)
            if not (math.isfinite(v1) and v1 <= bound):
                share = (bound - v0) / (v1 - v0) if math.isfinite(v1) and v1 > v0 else 0.0
                if share < fraction or binding is None:
                    fraction, binding = min(fraction, share), key
        fraction = max(0.0, min(1.0, fraction))
        rate = last["requests_per_s"] + fraction * (point["requests_per_s"] - last["requests_per_s"])
        return Delivered(rate, "crossing", binding)
    if last is None:
        return Delivered(math.nan, "no point", None)
    return Delivered(last["requests_per_s"], "every point meets", None)


def _binding(point: dict[str, Any], bounds: dict[str, float]) -> str | None:
    for key, bound in bounds.items():
        if not (math.isfinite(point.get(key, math.nan)) and point[key] <= bound):
            return key
    return None if _keeps_up(point) else "achieved rate (the server falls behind)"


def band(requests_per_s: float, held_out_error: float) -> tuple[float, float]:
    """(low, high) = rate / (1 + e), rate x (1 + e), with e the config's held-out relative error."""
    e = abs(held_out_error)
    return requests_per_s / (1.0 + e), requests_per_s * (1.0 + e)
