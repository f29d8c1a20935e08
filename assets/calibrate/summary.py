"""A simulated level summarised the way observed.load_points states a measured one: percentiles, rates, errors."""

from __future__ import annotations

import math

import numpy as np

from assets.calibrate.engine import INF, EngineParams, SimResult, simulate
from assets.calibrate.traffic import LoadSpec

# ---------------------------------------------------------------------------------------------------------------------
# Summaries: the benchmark tools' numbers, one definition

PCTS = (50, 90, 95, 99)


def _weighted_quantiles(values: np.ndarray, weights: np.ndarray, qs) -> list[float]:
    if len(values) == 0 or weights.sum() <= 0:
        return [math.nan] * len(qs)
    o = np.argsort(values)
    v = values[o]
    c = np.cumsum(weights[o])
    c = c / c[-1]
    return [float(v[min(np.searchsorted(c, q / 100.0), len(v) - 1)]) for q in qs]


def summarise(r: SimResult, timeout_s: float = INF, ttft_timeout_s: float = INF) -> dict:
    """Per-level summary in ms / req/s, the way benchbill's observed.load_points defines them.

    error: a request the server refused (queue overflow, larger than the KV cache), or one whose TTFT or
    E2E exceeds the client's timeouts (it is counted failed; the model does not give back the capacity an
    abandoned request would free).
    """
    ttft = (r.first - r.issue) * 1e3
    e2e = (r.finish - r.issue) * 1e3
    ok = ~r.rejected & np.isfinite(e2e) & (e2e <= timeout_s * 1e3) & (ttft <= ttft_timeout_s * 1e3)
    multi = ok & (r.output_tokens > 1)
    tpot = (e2e[multi] - ttft[multi]) / (r.output_tokens[multi] - 1)
    s: dict = {}
    for name, arr in (("ttft", ttft[ok]), ("tpot", tpot), ("e2e", e2e[ok])):
        q = np.percentile(arr, PCTS) if len(arr) else [math.nan] * len(PCTS)
        for pc, v in zip(PCTS, q):
            s[f"{name}_p{pc}_ms"] = float(v)
        s[f"{name}_mean_ms"] = float(arr.mean()) if len(arr) else math.nan
    for pc, v in zip(PCTS, _weighted_quantiles(r.itl_gap_s * 1e3, r.itl_weight, PCTS)):
        s[f"itl_p{pc}_ms"] = v
    n_ok = int(ok.sum())
    n = len(r.issue)
    start = np.nanmin(r.issue) if n else math.nan
    end = np.nanmax(r.finish[ok]) if n_ok else math.nan
    dur = end - start if n_ok else math.nan
    s["requests"] = n
    s["requests_ok"] = n_ok
    s["error_rate"] = 1.0 - n_ok / n if n else math.nan
    s["duration_s"] = float(dur)
    s["achieved_requests_per_s"] = n_ok / dur if n_ok and dur > 0 else math.nan
    s["input_tokens_mean"] = float(r.input_tokens.mean()) if n else math.nan
    s["output_tokens_mean"] = float(r.output_tokens.mean()) if n else math.nan
    s["prefill_share"] = r.prefill_s / max(r.prefill_s + r.decode_s, 1e-12)
    s["busy_fraction"] = r.busy_s / (dur * 1.0) if dur and dur > 0 else math.nan
    return s


def run_level(p: EngineParams, load: LoadSpec, inp, out, seed: int = 0, **kw) -> dict:
    return summarise(simulate(p, load, inp, out, seed=seed), **kw)
