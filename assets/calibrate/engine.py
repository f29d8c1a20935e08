"""An iteration-level model of a continuously batching LLM server, simulated request by request.

Each engine step runs the decode token of every running sequence plus up to a token budget of prompt
(prefill) tokens, and takes

    step_s = b0 + b1 x prefill tokens in the step + b2 x decode sequences in the step

(the BLIS form). Sequences run at most `max_num_seqs` at a time, and at most `kv_tokens` tokens of
prompt + answer are held (a request reserves its prompt plus its answer when admitted: no preemption).
Two scheduling families:

  mixed     (vLLM v1) prefill chunks ride in the same step as the decodes, within the token budget
            `max_batched_tokens`, decodes first; `chunked=False` schedules only whole prompts.
  separate  (SGLang, vLLM v0 without chunked prefill) a step is either a prefill step (up to the budget of
            prompt tokens, decodes wait) or a decode step; waiting prompts go first.

A step that only decodes has the same length as the next one until a sequence finishes or a request
arrives, so the simulator jumps over runs of identical decode steps: its cost grows with requests, not
tokens. Queueing, saturation and bursts come out of the simulation; nothing is fitted per percentile.

`replicas` > 1 models data-parallel copies behind a round-robin router (open loop: request i goes to
replica i mod k; closed loop: the clients are spread over the replicas).
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from dataclasses import asdict, dataclass, replace

import numpy as np

from assets.calibrate.traffic import Lengths, LoadSpec

INF = math.inf


@dataclass(frozen=True)
class EngineParams:
    b0_ms: float  # fixed cost of a step
    b1_ms: float  # per prompt token in the step
    b2_ms: float  # per decoding sequence in the step
    b3_ms: float = 0.0  # per prompt token per 1000 tokens of context before it (attention over the prompt)
    max_num_seqs: float = 256  # cap on admitted (running) sequences, per replica
    max_batched_tokens: float = 8192  # token budget per step (prefill + decode in mixed mode)
    kv_tokens: float = INF  # prompt + answer tokens the KV cache holds, per replica
    mixed: bool = True
    chunked: bool = True
    replicas: int = 1
    ttft_overhead_ms: float = 0.0  # per request: HTTP, tokenisation, first-token detokenisation

    def to_dict(self) -> dict:
        return asdict(self)

    def with_(self, **kw) -> EngineParams:
        return replace(self, **kw)


@dataclass
class SimResult:
    issue: np.ndarray  # s, when the client sent the request
    first: np.ndarray  # s, first token (NaN: never)
    finish: np.ndarray  # s, last token (NaN: never / rejected)
    input_tokens: np.ndarray
    output_tokens: np.ndarray
    rejected: np.ndarray  # bool: refused by the server (queue overflow, larger than the KV cache)
    itl_gap_s: np.ndarray  # distinct inter-token gaps ...
    itl_weight: np.ndarray  # ... and how many token gaps had that length
    busy_s: float = 0.0
    prefill_s: float = 0.0  # time attributable to prompt tokens (b1 x prefill tokens)
    decode_s: float = 0.0  # time attributable to decode sequences (b2 x decode tokens)
    steps: int = 0


# ---------------------------------------------------------------------------------------------------------------------
# One engine


def _run_engine(sched, cap, inp, out, p: EngineParams, max_waiting=INF):
    """Simulate one engine. sched: wanted send times (sorted), cap: client in-flight cap."""
    n = len(sched)
    issue = [math.nan] * n
    first = [math.nan] * n
    fin = [math.nan] * n
    rejected = [False] * n
    b0 = p.b0_ms / 1e3
    b1 = p.b1_ms / 1e3
    b2 = p.b2_ms / 1e3
    b3 = p.b3_ms / 1e6  # per token per context token
    S = p.max_num_seqs
    B = max(1, int(p.max_batched_tokens))
    K = p.kv_tokens
    mixed = p.mixed
    chunked = p.chunked
    waiting: deque[int] = deque()
    partial: deque[int] = deque()  # admitted, prompt not fully processed (FCFS)
    rem: dict[int, int] = {}
    heap: list[tuple[int, int]] = []  # (end decode-step index, request)
    G = 0  # decode steps done
    t = 0.0
    nxt = 0
    inflight = 0
    cap_free_t = -INF
    n_run = 0
    kv = 0
    done = 0
    gaps = []
    wts = []
    stall = 0.0  # separate mode: prefill time the current decoders have waited since their last token
    busy = pre_s = dec_s = 0.0
    steps = 0
    heappush = heapq.heappush
    heappop = heapq.heappop
    while done < n:
        # 1. the client sends what is due (requests freed by the finishes of the last step included)
        while nxt < n and inflight < cap:
            s = sched[nxt]
            it = s if s > cap_free_t else cap_free_t
            if it > t:
                break
            issue[nxt] = it
            if len(waiting) >= max_waiting:
                rejected[nxt] = True
                done += 1
                # a refused request frees its client slot at once
            else:
                waiting.append(nxt)
                inflight += 1
            nxt += 1
        if nxt < n and inflight < cap:
            s = sched[nxt]
            t_next = s if s > cap_free_t else cap_free_t
        else:
            t_next = INF
        n_dec = len(heap)
        # 2. one step (or a run of identical decode steps)
        P = 0
        Q = 0.0  # sum over prompt tokens in the step of their context position
        completed = None
        can_prefill = bool(partial) or (bool(waiting) and n_run < S)
        if can_prefill:
            budget = (B - n_dec) if mixed else B
            if budget > 0:
                completed = []
                while partial and budget > 0:
                    r = partial[0]
                    take = rem[r] if rem[r] < budget else budget
                    Q += take * (inp[r] - rem[r] + take * 0.5)
                    rem[r] -= take
                    P += take
                    budget -= take
                    if rem[r] == 0:
                        partial.popleft()
                        completed.append(r)
                    else:
                        break
                while waiting and budget > 0 and n_run < S:
                    r = waiting[0]
                    need = inp[r] + out[r]
                    if kv + need > K:
                        if need > K and n_run == 0:
                            waiting.popleft()
                            rejected[r] = True
                            done += 1
                            inflight -= 1
                            continue
                        break
                    L = inp[r]
                    if not chunked and L > budget and P > 0:
                        break
                    waiting.popleft()
                    n_run += 1
                    kv += need
                    take = L if (L <= budget or not chunked) else budget
                    Q += take * take * 0.5
                    P += take
                    budget -= take
                    if take == L:
                        completed.append(r)
                    else:
                        rem[r] = L - take
                        partial.append(r)
                        break
        if P > 0:
            if mixed:
                dur = b0 + b1 * P + b3 * Q + b2 * n_dec
                dec_s += b2 * n_dec
                if n_dec:
                    G += 1
                    gaps.append(dur)
                    wts.append(n_dec)
            else:
                dur = b0 + b1 * P + b3 * Q
                stall += dur
            pre_s += b1 * P + b3 * Q
            t += dur
            busy += dur
            steps += 1
            for r in completed:
                first[r] = t
                o = out[r]
                if o <= 1:
                    fin[r] = t
                    n_run -= 1
                    kv -= inp[r] + o
                    inflight -= 1
                    done += 1
                    if inflight == cap - 1:
                        cap_free_t = t
                else:
                    heappush(heap, (G + o - 1, r))
        elif n_dec:
            dur = b0 + b2 * n_dec
            k = heap[0][0] - G
            if t_next < INF and n_run < S and not waiting:
                k2 = 1 if t_next <= t else int(math.ceil((t_next - t) / dur))
                if k2 < 1:
                    k2 = 1
                if k2 < k:
                    k = k2
            if k < 1:
                k = 1
            if stall > 0.0:
                gaps.append(stall + dur)
                wts.append(n_dec)
                if k > 1:
                    gaps.append(dur)
                    wts.append((k - 1) * n_dec)
                stall = 0.0
            else:
                gaps.append(dur)
                wts.append(k * n_dec)
            t += k * dur
            busy += k * dur
            dec_s += k * b2 * n_dec
            G += k
            steps += k
        else:
            if t_next == INF:
                # nothing runs and nothing can be sent: what waits can never be admitted
                while waiting:
                    r = waiting.popleft()
                    rejected[r] = True
                    done += 1
                    inflight -= 1
                if done >= n:
                    break
                continue
            if t_next > t:
                t = t_next
            continue
        # 3. what the client sent while the step(s) ran (before the finishes free client slots) ...
        while nxt < n and inflight < cap:
            s = sched[nxt]
            it = s if s > cap_free_t else cap_free_t
            if it > t:
                break
            issue[nxt] = it
            if len(waiting) >= max_waiting:
                rejected[nxt] = True
                done += 1
            else:
                waiting.append(nxt)
                inflight += 1
            nxt += 1
        # ... then the sequences that finished at this step boundary
        while heap and heap[0][0] <= G:
            r = heappop(heap)[1]
            fin[r] = t
            n_run -= 1
            kv -= inp[r] + out[r]
            inflight -= 1
            done += 1
            if inflight == cap - 1:
                cap_free_t = t
    return issue, first, fin, rejected, gaps, wts, busy, pre_s, dec_s, steps


# ---------------------------------------------------------------------------------------------------------------------
# A level: the load generator's requests through the engine(s)


def simulate(
    p: EngineParams,
    load: LoadSpec,
    inp: Lengths | np.ndarray,
    out: Lengths | np.ndarray,
    seed: int = 0,
    max_waiting: float = INF,
) -> SimResult:
    """Run `load` (n requests, open/closed loop or a trace) with the given lengths through the engine."""
    rng = np.random.default_rng(seed)
    n = load.n_requests
    if load.trace is not None:
        ii = np.asarray(load.trace.input_tokens[:n], dtype=np.int64)
        oo = np.asarray(load.trace.output_tokens[:n], dtype=np.int64)
    else:
        ii = inp.sample(n, rng) if isinstance(inp, Lengths) else np.asarray(inp, dtype=np.int64)
        oo = out.sample(n, rng) if isinstance(out, Lengths) else np.asarray(out, dtype=np.int64)
    sched = load.schedule(rng)
    k = max(1, int(p.replicas))
    issue = np.full(n, np.nan)
    first = np.full(n, np.nan)
    fin = np.full(n, np.nan)
    rej = np.zeros(n, dtype=bool)
    gaps_all, wts_all = [], []
    busy = pre = dec = 0.0
    steps = 0
    if k == 1:
        groups = [(np.arange(n), load.client_cap)]
    elif math.isfinite(load.client_cap) and not math.isfinite(load.rate) and load.trace is None:
        # closed loop: C clients spread over min(k, C) replicas, the prompts in proportion
        used = int(min(k, max(1, load.client_cap)))
        caps = np.full(used, load.client_cap // used)
        caps[: int(load.client_cap % used)] += 1
        idx = np.arange(n)
        groups = [(idx[j::used], caps[j]) for j in range(used)]
    else:
        cap_each = load.client_cap / k if math.isfinite(load.client_cap) else INF
        groups = [(np.arange(n)[j::k], cap_each) for j in range(k)]
    for idx, cap in groups:
        if len(idx) == 0:
            continue
        res = _run_engine(sched[idx].tolist(), cap, ii[idx].tolist(), oo[idx].tolist(), p, max_waiting=max_waiting)
        issue[idx] = res[0]
        first[idx] = res[1]
        fin[idx] = res[2]
        rej[idx] = res[3]
        gaps_all.extend(res[4])
        wts_all.extend(res[5])
        busy += res[6]
        pre += res[7]
        dec += res[8]
        steps += res[9]
    return SimResult(
        issue=issue,
        first=first + p.ttft_overhead_ms / 1e3,
        finish=fin + p.ttft_overhead_ms / 1e3,
        input_tokens=ii,
        output_tokens=oo,
        rejected=rej,
        itl_gap_s=np.asarray(gaps_all),
        itl_weight=np.asarray(wts_all, dtype=float),
        busy_s=busy,
        prefill_s=pre,
        decode_s=dec,
        steps=steps,
    )
