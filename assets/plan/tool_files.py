"""A measurement plan's files under `plans/<plan_id>/`: per level and tool, our traffic in the tool's own format and
the config or command line that runs it (tool_commands.py), a `run.sh` per tool, the `run.yaml` sidecars benchbill
ingests the results with (in `results/`, where the results land) and a README saying what to run and how the
results come back. Plain file writing, no Dagster."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from assets.plan import tool_commands, tool_inputs, tool_readme
from assets.plan.spec import PlanFiles
from assets.plan.tool_commands import ARRIVAL, RESULTS, TOOLS, UNKNOWN_MODEL, ToolRun
from assets.runs.sidecar import REQUIRED_KEYS, SIDECAR

DEFAULT_TARGET_URL = tool_commands.PLACEHOLDER_URL
RUN_SCRIPT = "run.sh"
README = "README.md"


def write_plan_files(folder: Path, plan: PlanFiles) -> list[Path]:
    """Write the plan's tool files, run.yaml sidecars and README under `folder`; the paths written (each once), README
    last."""
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    runs: dict[str, list[ToolRun]] = {}
    config_model = plan.model_name or UNKNOWN_MODEL
    for tool in TOOLS:
        runs[tool] = [tool_commands.WRITERS[tool](folder, level, config_model) for level in plan.levels]
        written += [folder / f for run in runs[tool] for f in run.files]
        written.append(tool_inputs.write_text(folder / tool / RUN_SCRIPT, run_script(plan, tool, runs[tool])))
        (folder / tool / RUN_SCRIPT).chmod(0o755)
        written.append(tool_inputs.write_text(folder / RESULTS / tool / SIDECAR, tool_sidecar(tool)))
    written.append(tool_inputs.write_text(folder / RESULTS / SIDECAR, plan_sidecar(plan.run_yaml)))
    written = list(dict.fromkeys(written))  # a file two tools read (the Mooncake trace) is listed once
    relative = [p.relative_to(folder).as_posix() for p in written]
    written.append(tool_inputs.write_text(folder / README, tool_readme.readme(plan, runs, relative)))
    return written


def plan_sidecar(run_yaml: dict[str, Any]) -> str:
    """results/run.yaml: the plan's known run.yaml keys (with `plan: <plan_id>`), then each required key the plan
    does not know as a commented placeholder for the team to fill (never an invented value)."""
    text = "# benchbill run.yaml for this plan's results: `benchbill run --dumps results` ingests them with it.\n"
    text += yaml.safe_dump(run_yaml, sort_keys=False)
    missing = [k for k in REQUIRED_KEYS if k != "arrival" and run_yaml.get(k) in (None, "")]
    for key in missing:
        text += f"# {key}:   # required, not known to the plan: fill in before ingesting\n"
    return text


def tool_sidecar(tool: str) -> str:
    """results/<tool>/run.yaml: the arrival pattern that tool's runs have, and its version as a placeholder."""
    return (
        f"# The {tool} runs of this plan (a deeper run.yaml's keys win over results/run.yaml's).\n"
        + yaml.safe_dump({"arrival": ARRIVAL[tool]}, sort_keys=False)
        + f"# tool_version:   # the {tool} version you ran (not known to the plan)\n"
    )


def run_script(plan: PlanFiles, tool: str, runs: list[ToolRun]) -> str:
    """<tool>/run.sh: every level's command in order, run from the plan folder, TARGET_URL and MODEL_NAME from the
    environment (MODEL_NAME defaulting to the served name where the plan knows it)."""
    model = (
        f'MODEL_NAME="${{MODEL_NAME:-{plan.model_name}}}"'
        if plan.model_name
        else ': "${MODEL_NAME:?set MODEL_NAME to the name the server serves the model under}"'
    )
    lines = [
        "#!/usr/bin/env bash",
        f"# {tool}: the levels of plan {plan.plan_id} ({plan.config_label}), in the plan's order.",
        "set -euo pipefail",
        'cd "$(dirname "$0")/.."',
        f'TARGET_URL="${{TARGET_URL:-{DEFAULT_TARGET_URL}}}"',
        model,
    ]
    for run in runs:
        lines += ["", f"# level {run.level} -> {run.results}", run.command]
    return "\n".join(lines) + "\n"
