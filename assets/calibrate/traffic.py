"""Arrivals and token lengths for the engine model: a rate with an inter-arrival CV, a closed loop, a trace.

Every generator takes a numpy Generator, so a replay is reproducible (same seed, same requests).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np

# ---------------------------------------------------------------------------------------------------------------------
# Token lengths


@dataclass(frozen=True)
class Lengths:
    """A token-length distribution.

    kind:
      fixed      every request has `mean` tokens (benchmark "random" datasets with range ratio 1)
      uniform    uniform integers in [lo, hi] (SGLang/vLLM random datasets with a range ratio)
      lognormal  mean `mean`, coefficient of variation `cv` (real chat data when only the mean is known)
      empirical  resampled from `values` (per-request records, a traffic log)
      percentiles through the stated (p50, p90, p99) `points`: log length piecewise linear in the standard normal
                 quantile z through (0, ln p50), (z90, ln p90), (z99, ln p99), sampled by inverse CDF (z drawn
                 standard normal); below p50 the p50-p90 segment is extended, above p99 the p90-p99 one (a
                 lognormal tail on each side), capped at PERCENTILE_TAIL_MAX x p99; `mean` and `cv` are the
                 distribution's own (numerically, PERCENTILE_GRID points)
    """

    kind: str
    mean: float
    cv: float = 0.0
    lo: int = 0
    hi: int = 0
    values: tuple[int, ...] = field(default=(), repr=False)
    points: tuple[float, ...] = ()

    @staticmethod
    def fixed(mean: float) -> Lengths:
        return Lengths("fixed", float(mean))

    @staticmethod
    def uniform(lo: int, hi: int) -> Lengths:
        return Lengths("uniform", (lo + hi) / 2.0, lo=int(lo), hi=int(hi))

    @staticmethod
    def lognormal(mean: float, cv: float) -> Lengths:
        return Lengths("lognormal", float(mean), cv=float(cv))

    @staticmethod
    def empirical(values) -> Lengths:
        v = tuple(int(x) for x in np.asarray(values).ravel() if x is not None and x > 0)
        if not v:
            raise ValueError("no positive lengths to resample")
        return Lengths("empirical", float(np.mean(v)), cv=float(np.std(v)) / max(float(np.mean(v)), 1e-9), values=v)

    @staticmethod
    def percentiles(p50: float, p90: float, p99: float) -> Lengths:
        """Through the stated p50 <= p90 <= p99 (see the class docstring); ValueError when not ordered."""
        if not 0 < p50 <= p90 <= p99:
            raise ValueError(f"percentiles must be 0 < p50 <= p90 <= p99 (got {p50:g}, {p90:g}, {p99:g})")
        points = (float(p50), float(p90), float(p99))
        z = np.linspace(-PERCENTILE_Z_MAX, PERCENTILE_Z_MAX, PERCENTILE_GRID)
        weights = np.exp(-z * z / 2)
        weights /= weights.sum()
        grid = _through(points, z)
        mean = float((grid * weights).sum())
        cv = float(math.sqrt(max(float((weights * (grid - mean) ** 2).sum()), 0.0))) / mean
        return Lengths("percentiles", mean, cv=cv, points=points)

    def quantile(self, q: float) -> float:
        """The length at quantile `q` (0 < q < 1) of the distribution: exact for fixed, lognormal and percentiles,
        the sample's for empirical, linear for uniform."""
        if self.kind == "fixed" or (self.kind == "lognormal" and self.cv <= 0):
            return self.mean
        if self.kind == "uniform":
            return self.lo + q * (self.hi - self.lo)
        if self.kind == "empirical":
            return float(np.quantile(np.asarray(self.values), q))
        z = NormalDist().inv_cdf(q)
        if self.kind == "lognormal":
            s2 = math.log(1.0 + self.cv**2)
            return math.exp(math.log(self.mean) - s2 / 2.0 + math.sqrt(s2) * z)
        return float(_through(self.points, np.array([z]))[0])

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        if self.kind == "percentiles":
            return np.maximum(1, np.rint(_through(self.points, rng.standard_normal(n)))).astype(np.int64)
        if self.kind == "fixed":
            return np.full(n, max(1, int(round(self.mean))), dtype=np.int64)
        if self.kind == "uniform":
            return rng.integers(max(1, self.lo), max(1, self.hi) + 1, size=n, dtype=np.int64)
        if self.kind == "lognormal":
            if self.cv <= 0:
                return np.full(n, max(1, int(round(self.mean))), dtype=np.int64)
            s2 = math.log(1.0 + self.cv**2)
            mu = math.log(self.mean) - s2 / 2.0
            return np.maximum(1, np.rint(rng.lognormal(mu, math.sqrt(s2), size=n))).astype(np.int64)
        if self.kind == "empirical":
            vals = np.asarray(self.values, dtype=np.int64)
            return vals[rng.integers(0, len(vals), size=n)]
        raise ValueError(f"unknown length kind {self.kind!r}")

    def scaled(self, factor: float) -> Lengths:
        """The same shape with every length multiplied by `factor` (cost sensitivity: prompts x0.5, x2)."""
        if self.kind == "empirical":
            return Lengths.empirical([max(1, round(v * factor)) for v in self.values])
        if self.kind == "uniform":
            return Lengths.uniform(max(1, round(self.lo * factor)), max(1, round(self.hi * factor)))
        if self.kind == "percentiles":
            return Lengths.percentiles(*(point * factor for point in self.points))
        return Lengths(self.kind, self.mean * factor, cv=self.cv)


# The stated-percentiles distribution (Lengths.percentiles): the standard normal quantiles of p50, p90 and p99, the
# grid its mean and CV are integrated on, and the cap of its upper tail (a multiple of p99).
PERCENTILE_Z = (0.0, NormalDist().inv_cdf(0.9), NormalDist().inv_cdf(0.99))
PERCENTILE_Z_MAX = 6.0
PERCENTILE_GRID = 4001
PERCENTILE_TAIL_MAX = 10.0


def _through(points: tuple[float, ...], z: np.ndarray) -> np.ndarray:
    """Lengths at standard normal quantiles `z` of the distribution through (p50, p90, p99) `points`: ln length
    piecewise linear in z, the end segments extended, capped at PERCENTILE_TAIL_MAX x p99."""
    logs = [math.log(p) for p in points]
    (z0, z1, z2), (l0, l1, l2) = PERCENTILE_Z, logs
    lower = l0 + (z - z0) * (l1 - l0) / (z1 - z0)
    upper = l1 + (z - z1) * (l2 - l1) / (z2 - z1)
    log_length = np.where(z <= z1, lower, upper)
    return np.minimum(np.exp(log_length), PERCENTILE_TAIL_MAX * points[2])


# ---------------------------------------------------------------------------------------------------------------------
# Arrivals


def interarrivals(rate: float, cv: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """n inter-arrival gaps (s) with mean 1/rate and coefficient of variation cv.

    cv = 0: evenly spaced; cv = 1: exponential (Poisson); cv != 1: gamma with shape 1/cv^2 (vLLM's
    `--burstiness b` is gamma shape b, i.e. cv = 1/sqrt(b)).
    """
    if rate <= 0 or not math.isfinite(rate):
        return np.zeros(n)
    if cv <= 1e-9:
        return np.full(n, 1.0 / rate)
    shape = 1.0 / (cv * cv)
    return rng.gamma(shape, 1.0 / (rate * shape), size=n)


def arrival_times(rate: float, cv: float, n: int, rng: np.random.Generator, first_at_zero: bool = True) -> np.ndarray:
    """Cumulative arrival times of n requests at `rate` req/s with inter-arrival CV `cv`.

    Benchmark tools send the first request at t=0 and then wait a gap before each next one.
    """
    gaps = interarrivals(rate, cv, n, rng)
    t = np.cumsum(gaps)
    if first_at_zero and n:
        t = t - t[0]
    return t


def burstiness_to_cv(burstiness: float | None) -> float:
    """vLLM / SGLang `burstiness` (gamma shape) to the inter-arrival CV; None or 1 -> Poisson."""
    if burstiness is None or burstiness <= 0:
        return 1.0
    return 1.0 / math.sqrt(burstiness)


@dataclass
class Trace:
    """An actual arrival sequence: times (s from the first request), input and output tokens."""

    t: np.ndarray
    input_tokens: np.ndarray
    output_tokens: np.ndarray
    source: str = ""

    @property
    def span_s(self) -> float:
        return float(self.t[-1] - self.t[0]) if len(self.t) > 1 else 0.0

    @property
    def rate(self) -> float:
        return (len(self.t) - 1) / self.span_s if self.span_s > 0 else float("nan")

    def interarrival_cv(self) -> float:
        g = np.diff(self.t)
        return float(np.std(g) / np.mean(g)) if len(g) > 1 and np.mean(g) > 0 else float("nan")


# ---------------------------------------------------------------------------------------------------------------------
# What a load generator does at one level


@dataclass
class LoadSpec:
    """How a load generator drives one level.

    open loop:   rate (req/s) with inter-arrival cv; client_cap = inf (or a tool's in-flight cap)
    closed loop: rate = inf, client_cap = N clients (each sends its next request when the previous ends)
    both:        `--request-rate R --max-concurrency C` (rate-limited and capped)
    trace:       `trace` gives the arrival times and lengths
    n_requests:  how many requests the level sends (benchmarks are finite: the tail matters)
    """

    n_requests: int
    rate: float = math.inf
    cv: float = 1.0
    client_cap: float = math.inf
    trace: Trace | None = None

    @property
    def closed(self) -> bool:
        return not math.isfinite(self.rate) and self.trace is None

    def schedule(self, rng: np.random.Generator) -> np.ndarray:
        """Times at which the tool wants to send each request (before any client cap)."""
        if self.trace is not None:
            return np.asarray(self.trace.t[: self.n_requests], dtype=float)
        if not math.isfinite(self.rate):
            return np.zeros(self.n_requests)
        return arrival_times(self.rate, self.cv, self.n_requests, rng)


# ---------------------------------------------------------------------------------------------------------------------
# A traffic log replayed at another rate


def scale_trace(trace: Trace, requests_per_s: float, n_requests: int | None = None) -> Trace:
    """The trace's arrival pattern at a new mean rate, tiled to n_requests.

    Time is compressed (or stretched) by one factor, so the burst structure (inter-arrival CV, peak-to-mean
    within the compressed window) is kept; copies of the log follow each other back to back (the gap after
    the last request of a copy is the log's mean gap). Lengths are the log's own, in order.
    """
    n0 = len(trace.t)
    if n0 < 2 or not trace.span_s > 0:
        raise ValueError("a trace needs at least two requests at different times to have a rate")
    factor = trace.rate / requests_per_s
    base = (trace.t - trace.t[0]) * factor
    period = base[-1] + base[-1] / (n0 - 1)
    n = n0 if n_requests is None else int(n_requests)
    reps = -(-n // n0)
    t = (base[None, :] + period * np.arange(reps)[:, None]).ravel()[:n]
    inp = np.tile(trace.input_tokens, reps)[:n]
    out = np.tile(trace.output_tokens, reps)[:n]
    return Trace(t=t, input_tokens=inp, output_tokens=out, source=f"{trace.source} at {requests_per_s:g}/s")


def sample_windows(trace: Trace, n_requests: int, windows: int = 8) -> tuple[Trace, str]:
    """At most n_requests of the trace, and how they were taken, in words: the whole log when it holds no more,
    else `windows` runs of contiguous requests at evenly spaced places of the log (each keeps its own gaps and
    lengths; one mean gap between two runs), so a long log's bursts anywhere in it are represented."""
    n0 = len(trace.t)
    if n0 <= n_requests:
        return trace, f"the whole log ({n0:,} requests)"
    k = max(1, min(windows, n_requests))
    size = n_requests // k
    starts = np.linspace(0, n0 - size, k).astype(np.int64)
    mean_gap = trace.span_s / (n0 - 1)
    times, inputs, outputs = [], [], []
    offset = 0.0
    for s in starts:
        t = trace.t[s : s + size] - trace.t[s] + offset
        times.append(t)
        inputs.append(trace.input_tokens[s : s + size])
        outputs.append(trace.output_tokens[s : s + size])
        offset = float(t[-1]) + mean_gap
    said = f"{k} windows of {size:,} contiguous requests spread over the log's {n0:,}"
    sampled = Trace(np.concatenate(times), np.concatenate(inputs), np.concatenate(outputs), trace.source)
    return sampled, said
