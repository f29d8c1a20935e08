"""What a runtime's documented defaults and a run's stated settings fix of the engine model, and what is left to fit."""

from __future__ import annotations

from assets.calibrate.levels import Config


def _ver(v: str | None) -> tuple:
    try:
        return tuple(int(x) for x in str(v).split(".")[:2])
    except (TypeError, ValueError):
        return ()


BIG_MEMORY = (
    "h100",
    "h200",
    "h20",
    "b200",
    "b300",
    "gb200",
    "gh200",
    "mi300",
    "mi325",
    "mi355",
    "h800",
    "rtx-pro-6000",
)


def _big_memory(acc: str | None) -> bool:
    a = (acc or "").lower()
    return any(k in a for k in BIG_MEMORY) and "a100" not in a


def engine_defaults(cfg: Config) -> tuple[dict, dict, list]:
    """Fixed engine settings (from the runtime and what the files state) and which caps are free to fit."""
    s = cfg.settings
    rt = (cfg.runtime or "").lower()
    notes = []
    fixed: dict = {}
    free: dict = {}
    reps = s.get("dp_size") or s.get("data_parallel_size") or s.get("decode_replicas") or s.get("replicas") or 1
    fixed["replicas"] = int(reps)
    if "sglang" in rt:
        fixed.update(mixed=False, chunked=True)
        if s.get("chunked_prefill_size"):
            fixed["max_batched_tokens"] = float(s["chunked_prefill_size"])
        else:
            free["max_batched_tokens"] = 8192.0
        notes.append("SGLang: prefill steps pause decoding")
        if s.get("max_running_requests"):
            fixed["max_num_seqs"] = float(s["max_running_requests"])
        else:
            free["max_num_seqs"] = 1024.0
    else:
        chunked = bool(s.get("enable_chunked_prefill", True))
        v = _ver(cfg.runtime_version)
        if s.get("max_num_batched_tokens"):
            fixed["max_batched_tokens"] = float(s["max_num_batched_tokens"])
            chunked = True if "enable_chunked_prefill" not in s else chunked
        elif not chunked:
            # vLLM without chunked prefill: the budget is max(max_model_len, 2048)
            fixed["max_batched_tokens"] = float(max(int(s.get("max_model_len", 2048)), 2048))
        big = _big_memory(cfg.accelerator) and (not v or v >= (0, 9))
        if not chunked:
            pass
        else:
            # vLLM v1's defaults for the OpenAI server: 8192 tokens / 1024 sequences on GPUs of 70 GiB or more
            # (not A100) from 0.9 on, 2048 / 256 otherwise; fitted when a saturated level can tell
            free["max_batched_tokens"] = 8192.0 if big else 2048.0
        fixed.update(mixed=True, chunked=chunked)
        notes.append(f"{cfg.runtime}: mixed prefill+decode steps, chunked={chunked}")
        if s.get("max_num_seqs"):
            fixed["max_num_seqs"] = float(s["max_num_seqs"])
        else:
            free["max_num_seqs"] = 1024.0 if big else 256.0
    return fixed, free, notes
