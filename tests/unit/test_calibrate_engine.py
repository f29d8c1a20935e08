"""The engine model's simulator: its event jumps against a step-by-step reference (no jumps) on random engines and
loads, and saturation, queueing and bursts coming out of it."""

import math
from collections import deque

import numpy as np

from assets.calibrate.engine import EngineParams, _run_engine, simulate
from assets.calibrate.summary import summarise
from assets.calibrate.traffic import Lengths, LoadSpec


def _reference(sched, cap, inp, out, p):
    n = len(sched)
    issue, first, fin = [math.nan] * n, [math.nan] * n, [math.nan] * n
    b0, b1, b2, b3 = p.b0_ms / 1e3, p.b1_ms / 1e3, p.b2_ms / 1e3, p.b3_ms / 1e6
    waiting, partial, rem, dec = deque(), deque(), {}, {}
    t, nxt, inflight, capfree, nrun, kv, done = 0.0, 0, 0, -1e18, 0, 0, 0
    while done < n:
        while nxt < n and inflight < cap:
            it = max(sched[nxt], capfree)
            if it > t:
                break
            issue[nxt] = it
            waiting.append(nxt)
            inflight += 1
            nxt += 1
        ndec, P, Q, comp = len(dec), 0, 0.0, []
        budget = (p.max_batched_tokens - ndec) if p.mixed else p.max_batched_tokens
        if (partial or (waiting and nrun < p.max_num_seqs)) and budget > 0:
            while partial and budget > 0:
                r = partial[0]
                take = min(rem[r], budget)
                Q += take * (inp[r] - rem[r] + take * 0.5)
                rem[r] -= take
                P += take
                budget -= take
                if rem[r] == 0:
                    partial.popleft()
                    comp.append(r)
                else:
                    break
            while waiting and budget > 0 and nrun < p.max_num_seqs:
                r = waiting[0]
                need = inp[r] + out[r]
                if kv + need > p.kv_tokens:
                    break
                L = inp[r]
                if not p.chunked and L > budget and P > 0:
                    break
                waiting.popleft()
                nrun += 1
                kv += need
                take = L if (L <= budget or not p.chunked) else budget
                Q += take * take * 0.5
                P += take
                budget -= take
                if take == L:
                    comp.append(r)
                else:
                    rem[r] = L - take
                    partial.append(r)
                    break
        if P > 0:
            if p.mixed:
                t += b0 + b1 * P + b3 * Q + b2 * ndec
                for r in list(dec):
                    dec[r] -= 1
            else:
                t += b0 + b1 * P + b3 * Q
            for r in comp:
                first[r] = t
                if out[r] <= 1:
                    fin[r] = t
                    nrun -= 1
                    kv -= inp[r] + out[r]
                    inflight -= 1
                    done += 1
                    if inflight == cap - 1:
                        capfree = t
                else:
                    dec[r] = out[r] - 1
        elif ndec:
            t += b0 + b2 * ndec
            for r in list(dec):
                dec[r] -= 1
        else:
            t = max(t, max(sched[nxt], capfree) if (nxt < n and inflight < cap) else math.inf)
            continue
        for r in [r for r, v in dec.items() if v <= 0]:
            del dec[r]
            fin[r] = t
            nrun -= 1
            kv -= inp[r] + out[r]
            inflight -= 1
            done += 1
            if inflight == cap - 1:
                capfree = t
    return issue, first, fin


def test_jumps_match_step_by_step():
    rng = np.random.default_rng(1)
    for _ in range(150):
        n = int(rng.integers(5, 80))
        p = EngineParams(
            b0_ms=float(rng.uniform(1, 10)),
            b1_ms=float(rng.uniform(0.001, 0.1)),
            b2_ms=float(rng.uniform(0.01, 0.5)),
            b3_ms=float(rng.uniform(0, 0.05)),
            max_num_seqs=int(rng.integers(1, 20)),
            max_batched_tokens=int(rng.integers(64, 2048)),
            kv_tokens=float(rng.choice([math.inf, 3000.0, 8000.0])),
            mixed=bool(rng.integers(0, 2)),
            chunked=bool(rng.integers(0, 2)),
        )
        inp = rng.integers(1, 1000, n).tolist()
        out = rng.integers(1, 60, n).tolist()
        if rng.integers(0, 2):
            sched, cap = np.sort(rng.uniform(0, 5, n)).tolist(), math.inf  # open loop
        else:
            sched, cap = [0.0] * n, int(rng.integers(1, 10))  # closed loop
        got = _run_engine(sched, cap, inp, out, p)
        ref = _reference(sched, cap, inp, out, p)
        for a, b in zip(got[:3], ref):
            assert np.allclose(np.asarray(a), np.asarray(b), rtol=0, atol=1e-9, equal_nan=True)


def test_saturation_and_burst_come_out():
    p = EngineParams(b0_ms=6.0, b1_ms=0.02, b2_ms=0.1, max_num_seqs=128, max_batched_tokens=2048)
    light = summarise(simulate(p, LoadSpec(n_requests=600, rate=5, cv=1.0), Lengths.fixed(200), Lengths.fixed(60)))
    heavy = summarise(simulate(p, LoadSpec(n_requests=6000, rate=400, cv=1.0), Lengths.fixed(200), Lengths.fixed(60)))
    bursty = summarise(simulate(p, LoadSpec(n_requests=600, rate=5, cv=8.0), Lengths.fixed(200), Lengths.fixed(60)))
    assert heavy["achieved_requests_per_s"] < 400 * 0.8  # saturation
    assert heavy["ttft_p50_ms"] > 10 * light["ttft_p50_ms"]  # queueing
    assert bursty["ttft_p99_ms"] > 2 * light["ttft_p99_ms"]  # bursts queue at the same mean rate
