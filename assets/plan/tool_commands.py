"""Per tool and level: the input files and config a plan writes and the command line that runs it, every path
relative to the plan folder (the commands run from there), the server and model as the shell variables TARGET_URL
and MODEL_NAME. Flags and config keys as AIPerf 0.13, GuideLLM 0.8, inference-perf 0.7 and `vllm bench serve`
spell them (checked by the tools' own parsers in
tests/integration/test_plan_tool_files_in_the_tools_own_parsers.py; vLLM against its source)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import yaml

from assets.plan import tool_inputs
from assets.plan.spec import PlanLevel

RESULTS = "results"
# The model name a tool's config file holds where the plan does not know the served name (the command line sets it).
UNKNOWN_MODEL = "set-MODEL_NAME"
# The arrival pattern each tool's runs have (run.yaml `arrival`): AIPerf, GuideLLM and inference-perf replay our
# arrivals; vLLM's `bench serve` draws Poisson arrivals at the level's rate.
ARRIVAL = {"aiperf": "trace", "guidellm": "trace", "inference-perf": "trace", "vllm": "poisson"}
TOOLS = tuple(ARRIVAL)
# The tool versions whose own parsers accept these files (tests/tools-requirements/*.txt pin the same).
TOOLS_CHECKED = {"aiperf": "0.13.0", "guidellm": "0.8.1", "inference-perf": "0.7.0"}
# A stand-in the tools' configs need where the command line sets the real value (TARGET_URL, MODEL_NAME).
PLACEHOLDER_URL = "http://localhost:8000"
# GuideLLM's trace data `time_scale` that reads the Mooncake trace's millisecond timestamps as its seconds.
MOONCAKE_MS_TO_S = 0.001


@dataclass(frozen=True)
class ToolRun:
    """One tool's run of one level: the files written for it (relative to the plan folder), its command line and
    where its results land."""

    tool: str
    level: int
    files: tuple[str, ...]
    command: str
    results: str


def level_name(level: PlanLevel) -> str:
    """The file and folder name of a level (`level-3`)."""
    return f"level-{level.level}"


def _input(folder: Path, tool: str, level: PlanLevel, suffix: str, text: str) -> str:
    """Write one of a tool's files for a level (`<tool>/level-N.<suffix>`); its path relative to the plan folder."""
    relative = f"{tool}/{level_name(level)}.{suffix}"
    tool_inputs.write_text(folder / relative, text)
    return relative


def _lines(*parts: str) -> str:
    return " \\\n  ".join(parts)


def mooncake_trace_file(folder: Path, level: PlanLevel) -> str:
    """The level's Mooncake trace, `aiperf/level-N.jsonl` (written once, read by AIPerf and GuideLLM alike)."""
    relative = f"aiperf/{level_name(level)}.jsonl"
    if not (folder / relative).exists():  # the second tool to ask finds it written
        _input(folder, "aiperf", level, "jsonl", tool_inputs.mooncake_trace(level))
    return relative


def aiperf_run(folder: Path, level: PlanLevel, config_model: str) -> ToolRun:
    """AIPerf replays the Mooncake trace on its fixed schedule (timestamps in ms from the start), completions
    endpoint, streaming, every output forced to its length (AIPerf sets min_tokens; ignore_eos for vLLM)."""
    trace = mooncake_trace_file(folder, level)
    results = f"{RESULTS}/aiperf/{level_name(level)}"
    command = _lines(
        'aiperf profile --model "$MODEL_NAME" --url "$TARGET_URL" --endpoint-type completions --streaming',
        f"--input-file {trace} --custom-dataset-type mooncake_trace --fixed-schedule",
        "--extra-inputs ignore_eos:true",
        f"--artifact-dir {results}",
    )
    return ToolRun("aiperf", level.level, (trace,), command, results)


def guidellm_run(folder: Path, level: PlanLevel, config_model: str) -> ToolRun:
    """GuideLLM replays AIPerf's Mooncake trace (the same file): its `replay` profile sends each request at its
    timestamp (`schedule_turn: timestamp`; the data's `time_scale` turns ms into s), its `trace_synthetic` data makes
    each prompt of `input_length` tokens with the model's tokenizer and asks for `output_length` (max_tokens with
    ignore_eos). No request cap: the run ends when the trace does. The scenario holds all but server and model."""
    trace = mooncake_trace_file(folder, level)
    results = f"{RESULTS}/guidellm/{level_name(level)}"
    spec = {
        "spec": {
            "profile": {"kind": "replay", "schedule_turn": "timestamp"},
            "data": [
                {
                    "kind": "trace_synthetic",
                    "time_scale": MOONCAKE_MS_TO_S,
                    "source": {"kind": "json_file", "path": trace},
                }
            ],
            "outputs": [{"kind": "json", "path": f"{results}/benchmarks.json"}],
        }
    }
    scenario = _input(folder, "guidellm", level, "yaml", yaml.safe_dump(spec, sort_keys=False))
    command = _lines(
        f"guidellm run --scenario {scenario}",
        '--backend "kind=openai_http,target=$TARGET_URL,model=$MODEL_NAME,request_format=/v1/completions"',
    )
    return ToolRun("guidellm", level.level, (trace, scenario), command, f"{results}/benchmarks.json")


def inference_perf_run(folder: Path, level: PlanLevel, config_model: str) -> ToolRun:
    """inference-perf replays the Azure-shaped trace (load `trace_replay`: our arrivals; data `random` with the same
    trace: our lengths, prompts of exactly that many tokens of the model's tokenizer), one stage, completions API
    streaming, per-stage and per-request reports into the level's results folder."""
    trace = _input(folder, "inference-perf", level, "csv", tool_inputs.azure_trace(level))
    results = f"{RESULTS}/inference-perf/{level_name(level)}"
    config = {
        "api": {"type": "completion", "streaming": True},
        "data": {"type": "random", "trace": {"file": trace, "format": "AzurePublicDataset"}},
        "load": {
            "type": "trace_replay",
            "trace": {"file": trace, "format": "AzurePublicDataset"},
            "stages": [{"rate": float(level.requests_per_s), "duration": tool_inputs.stage_duration_s(level)}],
        },
        "report": {"request_lifecycle": {"summary": True, "per_stage": True, "per_request": True}},
        "storage": {"local_storage": {"path": results}},
        "server": {
            "type": "vllm",
            "model_name": config_model,
            "base_url": PLACEHOLDER_URL,
            "ignore_eos": True,
        },
        "tokenizer": {"pretrained_model_name_or_path": config_model},
    }
    config_file = _input(folder, "inference-perf", level, "yaml", yaml.safe_dump(config, sort_keys=False))
    command = _lines(
        f"inference-perf --config_file {config_file}",
        '--server.base_url "$TARGET_URL" --server.model_name "$MODEL_NAME"',
        '--tokenizer.pretrained_model_name_or_path "$MODEL_NAME"',
    )
    return ToolRun("inference-perf", level.level, (trace, config_file), command, results)


def vllm_run(folder: Path, level: PlanLevel, config_model: str) -> ToolRun:
    """`vllm bench serve` at the level's rate (Poisson arrivals, vLLM's only open-loop pattern besides gamma) for
    the level's requests, on a BurstGPT CSV of our lengths (vLLM's custom JSONL takes one output length for all),
    outputs forced to their length, p50/p90/p95/p99 of every latency saved."""
    name = level_name(level)
    data = _input(folder, "vllm", level, "csv", tool_inputs.burstgpt_dataset(level))
    results = f"{RESULTS}/vllm"
    command = _lines(
        'vllm bench serve --backend openai --endpoint /v1/completions --base-url "$TARGET_URL" --model "$MODEL_NAME"',
        f"--dataset-name burstgpt --dataset-path {data} --num-prompts {level.requests}",
        f"--request-rate {float(level.requests_per_s)!r} --ignore-eos --seed 0",
        "--percentile-metrics ttft,tpot,itl,e2el --metric-percentiles 50,90,95,99",
        f"--save-result --save-detailed --result-dir {results} --result-filename {name}.json",
    )
    return ToolRun("vllm", level.level, (data,), command, f"{results}/{name}.json")


WRITERS: dict[str, Callable[[Path, PlanLevel, str], ToolRun]] = {
    "aiperf": aiperf_run,
    "guidellm": guidellm_run,
    "inference-perf": inference_perf_run,
    "vllm": vllm_run,
}
