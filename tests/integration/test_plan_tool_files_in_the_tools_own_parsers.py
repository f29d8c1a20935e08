"""The load-test tools' OWN parsers accept a measurement plan's files: a plan built on the real Azure conversation trace
(../shared/data/traffic, read in place) is written with `write_plan_files`, and each tool's command lines from its
`run.sh` are parsed, in that tool's virtualenv (`make tools-venv` builds .venv-tools/<tool>), by the tool itself:

- AIPerf 0.13: its cyclopts CLI app and `build_benchmark_plan` (what `aiperf profile` does before it runs), its
  Mooncake validator (`aiperf validate mooncake-trace`) and its Mooncake trace loader (`load_dataset`, records
  parsed and grouped; prompts are made from a tokenizer later, so the loader's prompt generator is a stand-in);
- GuideLLM 0.8: its click `run` command (options, scenario file, pydantic validation) with the benchmark replaced by
  a recorder, then its data loader (trace deserializer, column mapper, finalizer) on the AIPerf trace each scenario
  names, making every prompt with a local character-level tokenizer (the model's cannot be downloaded here);
- inference-perf 0.7: its argparse built from the Config model, `read_config` (YAML merged with the command line),
  and its Azure trace reader on the trace the load and the data name.

No model server and no network (HF_HUB_OFFLINE): the model's tokenizer is named, never loaded. GuideLLM alone can
also RUN offline, against its own mock server and with the local tokenizer, so one level is replayed end to end and
read back by benchbill; AIPerf and inference-perf make their prompts with the model's tokenizer, which cannot be
downloaded here. vLLM needs a GPU to
install, so its command is checked against its source (tool_commands.py says so), not here. The checks print what
each tool understood (tests/integration/tool_parsers/); these tests compare it with the plan."""

import csv
import datetime
import json
import os
import shlex
import shutil
import socket
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
import yaml

from assets.plan.spec import PlanFiles, PlanLevel
from assets.plan.tool_commands import ARRIVAL, TOOLS, TOOLS_CHECKED
from assets.plan.tool_files import write_plan_files
from assets.runs.collect import collect_all
from assets.runs.sidecar import merge_sidecars, run_config
from tests.support.data import DATA, REPO_ROOT

AZURE_CONV = DATA / "traffic" / "azure-llm-inference-2023" / "AzureLLMInferenceTrace_conv.csv"
TOOLS_VENV = REPO_ROOT / ".venv-tools"
CHECKS = Path(__file__).parent / "tool_parsers"
URL = "http://gpu-box.internal:8000"
MODEL = "meta-llama/Llama-3.1-8B-Instruct"
REQUESTS = 60
MULTIPLES = (0.5, 1.0, 1.3)
RUN_YAML = {
    "plan": "azure-conv-test",
    "accelerator": "nvidia-h100",
    "accelerator_count": 1,
    "model": MODEL,
    "precision": "bf16",
    "runtime": "vllm",
    "runtime_version": "0.11.0",
}


def azure_requests() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The first REQUESTS requests of the real conversation trace: arrival offsets (s) from the first, lengths."""
    with AZURE_CONV.open() as f:
        rows = [row for _, row in zip(range(REQUESTS), csv.DictReader(f))]
    stamps = [datetime.datetime.fromisoformat(r["TIMESTAMP"][:26]) for r in rows]
    offsets = np.array([(s - stamps[0]).total_seconds() for s in stamps])
    inputs = np.array([int(r["ContextTokens"]) for r in rows])
    return offsets, inputs, np.array([int(r["GeneratedTokens"]) for r in rows])


@pytest.fixture(scope="module")
def plan_folder(tmp_path_factory) -> tuple[Path, PlanFiles]:
    offsets, inputs, outputs = azure_requests()
    base_rate = (len(offsets) - 1) / offsets[-1]
    levels = [
        PlanLevel(n, m, base_rate * m, offsets / m, inputs, outputs, {"ttft_p95_ms": 90.0 * m})
        for n, m in enumerate(MULTIPLES, 1)
    ]
    plan = PlanFiles("azure-conv-test", "chat-8b", "1 x nvidia-h100", RUN_YAML, MODEL, "Azure conv", "test", levels)
    folder = tmp_path_factory.mktemp("plans") / plan.plan_id
    write_plan_files(folder, plan)
    return folder, plan


def tool_bin(tool: str, program: str) -> Path:
    """A program of a tool's virtualenv; the test fails saying how to build it when it is missing."""
    path = TOOLS_VENV / tool / "bin" / program
    if not path.exists():
        pytest.fail(f"{path} is missing: build the load-test tools' virtualenvs with `make tools-venv` (CI does)")
    return path


def tool_python(tool: str) -> Path:
    return tool_bin(tool, "python")


def command_lines(script: Path, program: tuple[str, ...]) -> list[list[str]]:
    """The argument lists of `program`'s commands in a run.sh, the server and model variables expanded."""
    text = script.read_text().replace("\\\n", " ")
    lines = [line for line in text.splitlines() if line.split()[: len(program)] == list(program)]
    argvs = [[t.replace("$TARGET_URL", URL).replace("$MODEL_NAME", MODEL) for t in shlex.split(line)] for line in lines]
    assert argvs and not any("$" in token for argv in argvs for token in argv), f"{script}: unexpanded variables"
    return [argv[len(program) :] for argv in argvs]


def understood(folder: Path, tool: str, program: tuple[str, ...], tmp_path: Path) -> list[dict]:
    """What `tool` made of its run.sh's commands, run in its own virtualenv from the plan folder, offline."""
    argvs = command_lines(folder / tool / "run.sh", program)
    env = {**os.environ, "HF_HOME": str(tmp_path / "hf"), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    check = CHECKS / f"{tool.replace('-', '_')}_check.py"
    done = subprocess.run(
        [str(tool_python(tool)), str(check), json.dumps(argvs)],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"{tool} refused the plan's files:\n{done.stderr[-4000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_aiperf_parses_the_commands_and_replays_our_trace_on_its_fixed_schedule(plan_folder, tmp_path):
    folder, plan = plan_folder
    seen = understood(folder, "aiperf", ("aiperf",), tmp_path)
    assert len(seen) == len(plan.levels)
    for level, got in zip(plan.levels, seen):
        assert got["command"] == "profile"
        assert got["phases"] == [{"type": "fixed_schedule", "requests": level.requests}]
        assert got["dataset_format"] == "mooncake_trace"
        assert got["validator_errors"] == [] and got["validator_lines"] == level.requests
        assert got["requests"] == [
            [t * 1000.0, i, o] for t, i, o in zip(level.arrival_offsets_s, level.input_tokens, level.output_tokens)
        ]
        assert (got["endpoint_type"], got["streaming"], got["extra"]) == ("completions", True, {"ignore_eos": True})
        assert (got["models"], got["urls"]) == ([MODEL], [URL])
        assert got["artifact_dir"] == f"results/aiperf/level-{level.level}"


def test_guidellm_parses_each_scenario_as_a_replay_of_the_aiperf_trace_and_makes_prompts_of_our_lengths(
    plan_folder, tmp_path
):
    """GuideLLM's trace data makes each prompt with the tokenizer; the model's cannot be downloaded here, so the check
    loads the data with a character-level tokenizer through GuideLLM's own tokenizer factory and counts each prompt
    with it: GuideLLM's deserializer really reads our file and makes prompts of exactly our lengths."""
    folder, plan = plan_folder
    seen = understood(folder, "guidellm", ("guidellm", "run"), tmp_path)
    assert len(seen) == len(plan.levels)
    for level, got in zip(plan.levels, seen):
        assert got["profile"] == {"kind": "replay", "schedule_turn": "timestamp", "time_scale": 1.0}
        ((data),) = got["data"]
        assert (data["kind"], data["time_scale"]) == ("trace_synthetic", 0.001)
        assert (data["source"]["kind"], data["source"]["path"]) == ("json_file", f"aiperf/level-{level.level}.jsonl")
        assert got["constraints"] == []  # the replay ends with the trace
        assert got["outputs"] == [{"kind": "json", "path": f"results/guidellm/level-{level.level}/benchmarks.json"}]
        assert got["backend"] == {
            "kind": "openai_http",
            "target": URL,
            "model": MODEL,
            "request_format": "/v1/completions",
        }
        assert got["tokenizer"] == MODEL  # the model's own tokenizer makes the prompts in a real run
        requests = got["requests"]
        stamps = np.array([r["relative_timestamp"] for r in requests])
        assert np.allclose(stamps, level.arrival_offsets_s, rtol=1e-12, atol=0)  # the trace's ms as seconds
        assert [r["prompt_tokens"] for r in requests] == list(level.input_tokens)
        assert [r["prompt_tokens_counted"] for r in requests] == list(level.input_tokens)
        assert [r["output_tokens"] for r in requests] == list(level.output_tokens)
        assert len({r["prompt"] for r in requests}) == len(requests)  # no prompt repeats


def test_inference_perf_parses_each_config_as_a_replay_of_our_trace(plan_folder, tmp_path):
    folder, plan = plan_folder
    seen = understood(folder, "inference-perf", ("inference-perf",), tmp_path)
    assert len(seen) == len(plan.levels)
    for level, got in zip(plan.levels, seen):
        assert (got["load_type"], got["data_type"]) == ("trace_replay", "random")
        assert got["api"] == {"type": "completion", "streaming": True}
        assert got["server"] == {"base_url": URL, "model_name": MODEL, "ignore_eos": True}
        assert got["tokenizer"] == MODEL
        assert got["storage_path"] == f"results/inference-perf/level-{level.level}" and got["per_request_report"]
        assert got["stages"] == [{"rate": level.requests_per_s, "duration": int(np.ceil(level.duration_s))}]
        for trace in got["requests"].values():
            times, inputs, outputs = (np.array(column) for column in zip(*trace))
            assert np.max(np.abs(times - level.arrival_offsets_s)) < 2e-6  # microsecond stamps, float epoch
            assert list(inputs) == list(level.input_tokens) and list(outputs) == list(level.output_tokens)


def test_the_results_folders_run_yaml_passes_benchbills_sidecar_checks_for_each_tool(plan_folder):
    folder, _ = plan_folder
    top = yaml.safe_load((folder / "results/run.yaml").read_text())
    assert top == RUN_YAML
    for tool in TOOLS:
        merged = merge_sidecars([top, yaml.safe_load((folder / f"results/{tool}/run.yaml").read_text())])
        merged.pop("plan")  # the plan key is the plan store's, checked where plans are read
        assert run_config(merged, ["results/run.yaml", f"results/{tool}/run.yaml"])["arrival"] == ARRIVAL[tool]


def test_real_results_dropped_where_the_readme_says_are_ingested_as_one_run_per_tool(plan_folder, tmp_path):
    """Real published outputs of three tools, copied into a copy of the plan's results folder where each tool
    writes, are read with the plan's run.yaml sidecars: one run per tool, with that tool's arrival pattern."""
    folder, _ = plan_folder
    results = tmp_path / "results"
    shutil.copytree(folder / "results", results)
    top = yaml.safe_load((results / "run.yaml").read_text())
    top.pop("plan")  # benchbill's sidecar check learns the plan key with the plan store
    (results / "run.yaml").write_text(yaml.safe_dump(top))
    dumps = DATA / "dumps"
    stage = dumps / "inference-perf" / "kubecon-na-2025" / "vllm" / "results" / "stage_0_lifecycle_metrics.json"
    for source, target in (
        (dumps / "guidellm" / "guidellm_report_v2_mock_server.json", "guidellm/level-1/benchmarks.json"),
        (stage, "inference-perf/level-1/stage_0_lifecycle_metrics.json"),
        (dumps / "inferencex-vllm-bench" / "qwen35_vllm_tp8_isl1024_osl128_conc4.json", "vllm/level-1.json"),
    ):
        (results / target).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, results / target)
    batch = collect_all([str(results)])
    assert not batch.rejects
    assert {r["tool"]: r["arrival"] for r in batch.runs} == {
        t: ARRIVAL[t] for t in ("guidellm", "inference-perf", "vllm")
    }
    assert {r["model_raw"] for r in batch.runs} == {MODEL}
    assert {m["run_id"] for m in batch.measurements} == {r["run_id"] for r in batch.runs}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_guidellm_replays_a_plan_level_against_its_mock_server_and_benchbill_reads_what_it_wrote(tmp_path):
    """GuideLLM's own mock server (OpenAI-compatible, loopback, no model; it returns max_tokens tokens up to its
    --output-tokens, set above every length here) serves one short level of the real trace; the plan's run.sh runs
    GuideLLM, which replays the level's trace and writes benchmarks.json where the README says; benchbill reads it
    with the plan's run.yaml. Every request comes back, each sent at its arrival in the trace (GuideLLM's scheduled
    start, not a measured time) with one of our output lengths. Offline, `guidellm` on the PATH is a wrapper adding
    `--tokenizer` with a local character-level tokenizer (guidellm_tokenizer.py) for GuideLLM's prompts."""
    offsets, inputs, outputs = (column[:8] for column in azure_requests())
    level = PlanLevel(1, None, 7 / 2.0, offsets * 2.0 / offsets[-1], inputs, outputs)
    folder = tmp_path / "plan"
    write_plan_files(folder, PlanFiles("mock", "chat-8b", "mock", RUN_YAML, "mock-model", "Azure", "test", [level]))
    port = free_port()
    env = {**os.environ, "HF_HOME": str(tmp_path / "hf"), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    guidellm = tool_bin("guidellm", "guidellm")
    tokenizer = tmp_path / "tokenizer"
    subprocess.run([str(tool_python("guidellm")), str(CHECKS / "guidellm_tokenizer.py"), str(tokenizer)], check=True)
    wrapper = tmp_path / "bin" / "guidellm"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\nexec "{guidellm}" "$@" --tokenizer "kind=hf_auto,model={tokenizer}"\n')
    wrapper.chmod(0o755)
    server = subprocess.Popen(
        [str(guidellm), "mock-server", "--host", "127.0.0.1", "--port", str(port)]
        + ["--model", "mock-model", "--ttft-ms", "20", "--itl-ms", "1", "--output-tokens", "100000"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(600):  # up to a minute for the server to listen
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        done = subprocess.run(
            [str(folder / "guidellm" / "run.sh")],
            env={**env, "PATH": f"{wrapper.parent}{os.pathsep}{env['PATH']}"}
            | {"TARGET_URL": f"http://127.0.0.1:{port}", "MODEL_NAME": "mock-model"},
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, f"guidellm run failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    finally:
        server.terminate()
        server.wait(timeout=30)
    results = folder / "results"
    top = yaml.safe_load((results / "run.yaml").read_text())
    top.pop("plan")  # benchbill's sidecar check learns the plan key with the plan store
    (results / "run.yaml").write_text(yaml.safe_dump(top))
    batch = collect_all([str(results)])
    assert not batch.rejects
    ((run,), (point,)) = batch.runs, batch.measurements
    assert (run["tool"], run["tool_version"], run["arrival"]) == ("guidellm", TOOLS_CHECKED["guidellm"], "trace")
    report = json.loads((results / "guidellm" / "level-1" / "benchmarks.json").read_text())
    ((benchmark),) = report["benchmarks"]
    assert benchmark["config"]["strategy"]["type_"] == "trace"
    recorded = benchmark["requests"]["successful"]
    assert len(recorded) == level.requests == point["requests_ok"]
    scheduled = sorted(r["info"]["timings"]["targeted_start"] - r["info"]["scheduler_start_time"] for r in recorded)
    assert np.max(np.abs(np.array(scheduled) - level.arrival_offsets_s)) < 1e-6  # epoch seconds as floats
    assert (point["load_kind"], point["offered_rate_per_s"]) == ("rate", None)  # a replay states no rate
    recorded_outputs = [r["output_tokens"] for r in recorded]
    assert sorted(recorded_outputs) == sorted(outputs.tolist())  # each asked for, and got, one of our lengths
    assert point["output_tokens_mean"] == pytest.approx(np.mean(recorded_outputs))


@pytest.mark.parametrize("tool", sorted(TOOLS_CHECKED))
def test_the_tools_venvs_hold_the_versions_the_readme_names(tool):
    done = subprocess.run(
        [str(tool_python(tool)), "-c", f"import importlib.metadata as m; print(m.version({tool!r}))"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout.strip() == TOOLS_CHECKED[tool]
    assert f"{tool}=={TOOLS_CHECKED[tool]}" in (REPO_ROOT / "tests" / "tools-requirements" / f"{tool}.txt").read_text()
