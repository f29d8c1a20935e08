"""A plan's load levels: the rates that bracket the predicted SLO crossing, our traffic at each (the exact requests a
tool sends), and what the config's engine model predicts for each, made now.

Rates: RATE_MULTIPLES of the engine model's delivered rate at the SLO on our traffic (before it is widened into a
band), so that the crossing falls inside the levels; a config without an engine model gets WIDE_MULTIPLES of its
billed band's middle and no prediction. Requests per level (docs/plan.md): enough for a steady state and a p99,
STEADY_S seconds of traffic at the level's rate, at least MIN_REQUESTS (ten requests beyond the p99) and at most
MAX_REQUESTS.

Traffic: a traffic log is replayed as it is: a level that holds the whole log sends it in order; a shorter one
sends windows of contiguous requests taken at evenly spaced places of the log (traffic.sample_windows, as the
calibrated curve replays it), so the level meets the log's bursts, not only its first minutes. Their time is
compressed (or stretched) by one factor so that their mean rate is the level's (traffic.scale_trace; the whole log
tiled when a level needs more requests than it holds). Without a log, arrivals are drawn at the workload's
inter-arrival CV and lengths from its stated distributions (seeded: the same plan, the same requests). The
prediction simulates exactly those requests."""

from __future__ import annotations

import math

import numpy as np

from assets.calibrate import project
from assets.calibrate.engine import EngineParams
from assets.calibrate.traffic import Trace, arrival_times, sample_windows, scale_trace
from assets.plan.spec import PREDICTED_METRICS, PlanLevel

RATE_MULTIPLES = (0.5, 0.7, 0.85, 1.0, 1.15, 1.3)
WIDE_MULTIPLES = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0)
STEADY_S = 180.0
MIN_REQUESTS = 1000
MAX_REQUESTS = 20_000
SEED = 23


def requests_for(requests_per_s: float) -> int:
    """Requests a level sends: STEADY_S of traffic at its rate, within MIN_REQUESTS and MAX_REQUESTS."""
    return int(min(MAX_REQUESTS, max(MIN_REQUESTS, math.ceil(requests_per_s * STEADY_S))))


def level_trace(traffic: project.Traffic, requests_per_s: float, requests: int, seed: int = SEED) -> Trace:
    """Our traffic at `requests_per_s`: `requests` of the log in windows spread over it (the whole log when it holds
    no more; tiled past its end), time-scaled, else arrivals and lengths drawn from the workload."""
    if traffic.trace is not None:
        log, _ = sample_windows(traffic.trace, requests)  # the windows themselves brought to the level's mean rate
        whole = len(log.t) == len(traffic.trace.t)  # tiled up to `requests`; windows are not (a few fewer requests)
        scaled = scale_trace(log, requests_per_s, requests if whole else len(log.t))
        return Trace(scaled.t - scaled.t[0], scaled.input_tokens, scaled.output_tokens, scaled.source)
    rng = np.random.default_rng(seed)
    t = arrival_times(requests_per_s, traffic.arrival_cv, requests, rng)
    inputs = np.maximum(traffic.input_tokens.sample(requests, rng).astype(np.int64), 1)
    outputs = np.maximum(traffic.output_tokens.sample(requests, rng).astype(np.int64), 1)
    return Trace(t, inputs, outputs, f"drawn from the workload at {requests_per_s:g}/s")


def _finite(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None


def predict(params: EngineParams, traffic: project.Traffic, trace: Trace, requests_per_s: float) -> dict:
    """The engine model's prediction for exactly the requests of `trace` (PREDICTED_METRICS -> value or None)."""
    exact = project.Traffic(trace, traffic.input_tokens, traffic.output_tokens, traffic.arrival_cv, traffic.basis)
    summary = project.replay(params, exact, requests_per_s, requests=len(trace.t))
    return {m: _finite(summary.get(m)) for m in PREDICTED_METRICS}


def level_rates(center_requests_per_s: float, with_model: bool) -> list[tuple[float, float]]:
    """(multiple, requests/s) of each level: RATE_MULTIPLES of the center with an engine model, else WIDE_MULTIPLES."""
    multiples = RATE_MULTIPLES if with_model else WIDE_MULTIPLES
    return [(m, center_requests_per_s * m) for m in multiples]


def plan_levels(traffic: project.Traffic, center_requests_per_s: float, params: EngineParams | None) -> list[PlanLevel]:
    """The levels around `center_requests_per_s` (level_rates), each with our traffic and, with `params`, the
    prediction."""
    levels = []
    for i, (multiple, rate) in enumerate(level_rates(center_requests_per_s, params is not None), start=1):
        trace = level_trace(traffic, rate, requests_for(rate), seed=SEED + i)
        predicted = predict(params, traffic, trace, rate) if params is not None else None
        levels.append(PlanLevel(i, multiple, rate, trace.t, trace.input_tokens, trace.output_tokens, predicted))
    return levels
