"""The per-level inputs of a plan's load-test tools: our traffic (arrivals and lengths) in each tool's own data format,
lengths only (each tool makes prompts of those lengths itself). Plain file writing, no Dagster; the tools' own parsers
accept these files (tests/integration/test_plan_tool_files_in_the_tools_own_parsers.py)."""

from __future__ import annotations

import csv
import datetime
import io
import math
from pathlib import Path

import numpy as np

from assets.plan.spec import PlanLevel

# The Azure LLM inference trace's timestamps (AzurePublicDataset, as inference-perf reads them): microseconds.
_AZURE_EPOCH = datetime.datetime(2023, 11, 16, tzinfo=datetime.UTC)
_AZURE_HEADER = ("TIMESTAMP", "ContextTokens", "GeneratedTokens")
# vLLM's BurstGPT loader reads `Request tokens` (column 3) and `Response tokens` (column 4) of rows whose `Model` is
# GPT-4 and whose response has tokens; the other columns are the BurstGPT release's own.
_BURSTGPT_HEADER = ("Timestamp", "Model", "Request tokens", "Response tokens", "Total tokens", "Log Type")
_BURSTGPT_MODEL = "GPT-4"


def mooncake_timestamps_ms(level: PlanLevel) -> np.ndarray:
    """The level's arrival offsets in AIPerf's Mooncake `timestamp` unit (ms; floats, no rounding)."""
    return np.asarray(level.arrival_offsets_s, dtype=float) * 1000.0


def mooncake_trace(level: PlanLevel) -> str:
    """The level as a Mooncake trace: one JSON line per request, `timestamp` (ms from the level's start),
    `input_length` and `output_length` (tokens). AIPerf and GuideLLM both replay it, each synthesising prompts of
    exactly `input_length` tokens with the model's tokenizer."""
    # repr of a float is JSON's own (the shortest text that reads back to the same float): no rounding
    return "".join(
        f'{{"timestamp": {t!r}, "input_length": {i}, "output_length": {o}}}\n'
        for t, i, o in zip(
            mooncake_timestamps_ms(level).tolist(),
            np.asarray(level.input_tokens).tolist(),
            np.asarray(level.output_tokens).tolist(),
            strict=True,
        )
    )


def azure_trace(level: PlanLevel) -> str:
    """The level in the Azure LLM inference trace's CSV shape (inference-perf's AzurePublicDataset): arrival times
    as `YYYY-MM-DD HH:MM:SS.ffffff` (microseconds: rounding under 1 us) from a fixed start, ContextTokens and
    GeneratedTokens."""
    micros = np.round(np.asarray(level.arrival_offsets_s, dtype=float) * 1e6).astype(np.int64)
    stamps = np.datetime_as_string(np.datetime64(_AZURE_EPOCH.replace(tzinfo=None), "us") + micros, unit="us")
    rows = zip(stamps.tolist(), np.asarray(level.input_tokens).tolist(), np.asarray(level.output_tokens).tolist())
    header = ",".join(_AZURE_HEADER) + "\n"
    return header + "".join(f"{t.replace('T', ' ')},{i},{o}\n" for t, i, o in rows)


def burstgpt_dataset(level: PlanLevel) -> str:
    """The level as a BurstGPT CSV for `vllm bench serve --dataset-name burstgpt` (per-request input and output
    lengths; vLLM builds each prompt from that many token ids and samples the rows in its own order)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(_BURSTGPT_HEADER)
    for t, i, o in zip(level.arrival_offsets_s, level.input_tokens, level.output_tokens, strict=True):
        writer.writerow((f"{float(t):.6f}", _BURSTGPT_MODEL, int(i), int(o), int(i) + int(o), "Conversation log"))
    return out.getvalue()


def stage_duration_s(level: PlanLevel) -> int:
    """inference-perf's stage duration: whole seconds, at least 1, covering the level's last arrival."""
    return max(1, math.ceil(level.duration_s))


def write_text(path: Path, text: str) -> Path:
    """Write `text` to `path` (creating its folder) and return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
