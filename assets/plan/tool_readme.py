"""The README of a plan folder: what the plan is, its levels and the prediction made now, what to run with each
tool, where the results go and how they come back. It states no price and no version of a tool the team runs; the
tool versions it names are the ones benchbill's tests checked the files with."""

from __future__ import annotations

from assets.plan.spec import PlanFiles, PlanLevel
from assets.plan.tool_commands import ARRIVAL, RESULTS, TOOLS_CHECKED, ToolRun
from assets.runs.sidecar import SIDECAR

_TOOL_TITLES = {
    "aiperf": "AIPerf",
    "guidellm": "GuideLLM",
    "inference-perf": "inference-perf",
    "vllm": "vLLM `vllm bench serve`",
}
_TOOL_NOTES = {
    "aiperf": (
        "Replays our arrivals exactly: `aiperf/level-N.jsonl` is a Mooncake trace whose `timestamp` is each "
        "request's arrival in milliseconds from the level's start (not rounded), with our `input_length` and "
        "`output_length`; `--fixed-schedule` sends each request at its timestamp. AIPerf builds prompts of exactly "
        "`input_length` tokens with the model's tokenizer and asks for `output_length` tokens (min_tokens and "
        "ignore_eos)."
    ),
    "guidellm": (
        "Replays our arrivals exactly, on the same trace as AIPerf: `guidellm/level-N.yaml` is the scenario, whose "
        "`replay` profile sends each request of `aiperf/level-N.jsonl` at its timestamp (`schedule_turn: "
        "timestamp`; the data's `time_scale: 0.001` reads the trace's milliseconds as seconds) and whose "
        "`trace_synthetic` data makes each prompt of exactly `input_length` tokens with the model's tokenizer "
        "(different random text per request: no long prefix shared between requests) and asks for `output_length` "
        "tokens (max_tokens with ignore_eos). The run ends when the trace does. The tokenizer is the model's "
        "(`MODEL_NAME`); where the served name is not a Hugging Face model id, add "
        "`--tokenizer kind=hf_auto,model=<id or path>`."
    ),
    "inference-perf": (
        "Replays our arrivals and lengths: `inference-perf/level-N.csv` is our traffic in the Azure LLM inference "
        "trace's shape (timestamps to the microsecond), read both as the load (`trace_replay`) and as the data "
        "(`random` with that trace: prompts of exactly our lengths in the model's tokenizer); "
        "`inference-perf/level-N.yaml` is the config (its server and tokenizer are set by the command line). The "
        "stage's rate and duration are nominal: the trace decides both."
    ),
    "vllm": (
        "The level's rate as Poisson arrivals (vLLM's `--request-rate`) for the level's requests; "
        "`vllm/level-N.csv` holds our lengths in the BurstGPT CSV shape, because vLLM's custom JSONL dataset takes "
        "one output length for every request. vLLM keeps only rows whose `Model` is GPT-4 (every row here says "
        "so), builds each prompt from that many token ids and takes the rows in its own shuffled order. Needs "
        "vLLM installed (a GPU machine); not checked by a parser here."
    ),
}
_METRICS = (("TTFT", "ttft"), ("TPOT", "tpot"), ("E2E", "e2e"))


def _number(value: float | None, digits: int = 1) -> str:
    return "n/a" if value is None else f"{value:,.{digits}f}"


def _triple(level: PlanLevel, metric: str) -> str:
    predicted = level.predicted or {}
    return " / ".join(_number(predicted.get(f"{metric}_{p}_ms")) for p in ("p50", "p95", "p99"))


def levels_table(plan: PlanFiles) -> list[str]:
    """The table of levels: rate, requests, duration and, where the plan predicts, the prediction per level."""
    predicting = any(level.predicted is not None for level in plan.levels)
    head = ["level", "x predicted rate", "requests/s", "requests", "duration (s)"]
    if predicting:
        head += [f"{name} p50 / p95 / p99 (ms)" for name, _ in _METRICS] + ["achieved requests/s"]
    rows = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for level in plan.levels:
        cells = [
            str(level.level),
            _number(level.rate_multiple, 2),
            _number(level.requests_per_s, 3),
            f"{level.requests:,}",
            _number(level.duration_s),
        ]
        if predicting:
            cells += [_triple(level, metric) for _, metric in _METRICS]
            cells.append(_number((level.predicted or {}).get("achieved_requests_per_s"), 3))
        rows.append("| " + " | ".join(cells) + " |")
    if not predicting:
        rows += ["", "No prediction: the config has no engine model yet, so this plan measures without predicting."]
    return rows


def readme(plan: PlanFiles, runs: dict[str, list[ToolRun]], files: list[str]) -> str:
    """The plan folder's README.md (`files`: every file written, relative to the plan folder)."""
    model = (
        f"`MODEL_NAME` defaults to `{plan.model_name}`"
        if plan.model_name
        else "`MODEL_NAME` has no default: set it to the name your server serves the model under"
    )
    checked = ", ".join(f"{_TOOL_TITLES[t]} {v}" for t, v in TOOLS_CHECKED.items())
    lines = [
        f"# Measurement plan {plan.plan_id}",
        "",
        f"Profile `{plan.profile}`, config **{plan.config_label}**.",
        "",
        f"Why: {plan.why}",
        "",
        f"Our traffic: {plan.traffic_basis}",
        "",
        "## Levels",
        "",
        *levels_table(plan),
        "",
        "## What to run",
        "",
        "Run every command from this folder (each tool's `run.sh` does, level by level). The server is the shell "
        f"variable `TARGET_URL` (default `http://localhost:8000`); {model}. Run one tool's levels at a time, "
        "against a server that runs nothing else.",
        "",
        f"The files were checked with the parsers of {checked} (benchbill's tests); vLLM's flags against its source.",
    ]
    for tool, tool_runs in runs.items():
        lines += ["", f"### {_TOOL_TITLES[tool]}", "", _TOOL_NOTES[tool], "", f"`{tool}/run.sh`, or per level:", ""]
        for run in tool_runs:
            lines += [f"Level {run.level} (results: `{run.results}`):", "", "```bash", run.command, "```", ""]
    lines += [
        "## How the results come back",
        "",
        f"Each tool writes into `{RESULTS}/<tool>/`. `{RESULTS}/{SIDECAR}` holds the config as run.yaml keys and "
        f"`plan: {plan.plan_id}`; `{RESULTS}/<tool>/{SIDECAR}` adds that tool's arrival pattern "
        f"({', '.join(f'{t}: {a}' for t, a in ARRIVAL.items())}). Fill in the commented keys (the tool version you "
        "ran, and any required key the plan does not know), then ingest:",
        "",
        "```bash",
        f"benchbill run --dumps plans/{plan.plan_id}/{RESULTS}",
        "```",
        "",
        "(from the folder holding `plans/`: the warehouse, with the other inputs of your usual run). The run.yaml "
        "names this plan, so each level's measurement is scored against the prediction above in "
        "`calibrated.prospective_validation`.",
        "",
        "## Files",
        "",
        *[f"- `{name}`" for name in files],
    ]
    return "\n".join(lines) + "\n"
