"""A measurement plan's tool files (assets/plan/tool_files.py), read back as files: the AIPerf trace replays the level's
arrivals and lengths exactly (GuideLLM's scenario replays the same file), the other tools' data carry the same lengths,
the README names every file written and says what is not known, and the run.yaml sidecars hold only what the plan
knows. The tools' own parsers read the same files in
tests/integration/test_plan_tool_files_in_the_tools_own_parsers.py."""

import csv
import datetime
import json

import numpy as np
import pytest
import yaml

from assets.plan.spec import PlanFiles, PlanLevel
from assets.plan.tool_commands import ARRIVAL, TOOLS
from assets.plan.tool_files import README, write_plan_files

# Offsets with more digits than a millisecond and than a float's decimal repr rounds nicely.
OFFSETS_S = np.array([0.0, 0.1234567891, 0.5000004, 1.3333333333333333, 2.718281828459045])
INPUTS = np.array([374, 1, 8190, 91, 2048])
OUTPUTS = np.array([44, 1, 16, 1200, 7])
RUN_YAML = {"plan": "p-test", "accelerator": "nvidia-h100", "accelerator_count": 2, "model": "llama-3.1-8b"}


def plan_of(model_name: str | None, predicted: bool) -> PlanFiles:
    prediction = {"ttft_p50_ms": 41.5, "ttft_p95_ms": 88.0, "e2e_p99_ms": 5120.0, "achieved_requests_per_s": 1.84}
    levels = [
        PlanLevel(
            level=n,
            rate_multiple=multiple,
            requests_per_s=2.0 * multiple,
            arrival_offsets_s=OFFSETS_S / multiple,
            input_tokens=INPUTS,
            output_tokens=OUTPUTS,
            predicted=dict(prediction) if predicted else None,
        )
        for n, multiple in ((1, 0.7), (2, 1.15))
    ]
    return PlanFiles(
        plan_id="p-test",
        profile="chat-8b",
        config_label="2 x nvidia-h100, llama-3.1-8b",
        run_yaml=dict(RUN_YAML),
        model_name=model_name,
        traffic_basis="a hand-made trace",
        why="the recommendation's band overlaps the next config's",
        levels=levels,
    )


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    folder = tmp_path_factory.mktemp("plan")
    plan = plan_of("meta-llama/Llama-3.1-8B-Instruct", predicted=True)
    return folder, plan, write_plan_files(folder, plan)


def test_the_aiperf_trace_replays_the_levels_arrivals_and_lengths_exactly(written):
    folder, plan, _ = written
    for level in plan.levels:
        rows = [json.loads(line) for line in (folder / f"aiperf/level-{level.level}.jsonl").read_text().splitlines()]
        assert [r["timestamp"] for r in rows] == list(level.arrival_offsets_s * 1000.0)  # ms, not rounded
        assert [r["input_length"] for r in rows] == list(level.input_tokens)
        assert [r["output_length"] for r in rows] == list(level.output_tokens)
        assert all(set(r) == {"timestamp", "input_length", "output_length"} for r in rows)


def test_the_inference_perf_trace_holds_the_arrivals_to_the_microsecond_and_the_lengths_exactly(written):
    folder, plan, _ = written
    level = plan.levels[1]
    with (folder / "inference-perf/level-2.csv").open() as f:
        rows = list(csv.DictReader(f))
    stamps = [datetime.datetime.strptime(r["TIMESTAMP"], "%Y-%m-%d %H:%M:%S.%f") for r in rows]
    offsets = np.array([(s - stamps[0]).total_seconds() for s in stamps])
    assert np.max(np.abs(offsets - level.arrival_offsets_s)) <= 0.5e-6
    assert [int(r["ContextTokens"]) for r in rows] == list(level.input_tokens)
    assert [int(r["GeneratedTokens"]) for r in rows] == list(level.output_tokens)


def test_guidellm_replays_the_aiperf_trace_itself_and_vllms_data_carry_the_levels_lengths(written):
    folder, plan, paths = written
    level = plan.levels[0]
    scenario = yaml.safe_load((folder / "guidellm/level-1.yaml").read_text())["spec"]
    assert scenario["profile"] == {"kind": "replay", "schedule_turn": "timestamp"}
    assert scenario["data"] == [
        {
            "kind": "trace_synthetic",
            "time_scale": 0.001,
            "source": {"kind": "json_file", "path": "aiperf/level-1.jsonl"},
        }
    ]  # the Mooncake trace's ms read as GuideLLM's seconds
    assert "constraints" not in scenario  # the run ends with the trace
    assert sorted(p.relative_to(folder).as_posix() for p in (folder / "guidellm").iterdir()) == [
        "guidellm/level-1.yaml",
        "guidellm/level-2.yaml",
        "guidellm/run.sh",
    ]  # no second copy of our traffic, no prompt text
    assert len(paths) == len(set(paths))  # the shared trace is listed once
    with (folder / "vllm/level-1.csv").open() as f:
        burst = list(csv.reader(f))
    # vLLM's BurstGPT loader: rows whose Model is GPT-4, columns 3 and 4 the request and response tokens
    assert burst[0][1:4] == ["Model", "Request tokens", "Response tokens"]
    assert [(r[1], int(r[2]), int(r[3])) for r in burst[1:]] == [
        ("GPT-4", int(i), int(o)) for i, o in zip(level.input_tokens, level.output_tokens)
    ]


def test_the_readme_names_every_file_written_and_the_prediction_per_level(written):
    folder, plan, paths = written
    readme = (folder / README).read_text()
    assert paths[-1] == folder / README
    for path in paths[:-1]:
        assert path.is_file()
        assert f"`{path.relative_to(folder).as_posix()}`" in readme
    assert {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()} == {
        p.relative_to(folder).as_posix() for p in paths
    }
    first = "| 1 | 0.70 | 1.400 | 5 | 3.9 | 41.5 / 88.0 / n/a | n/a / n/a / n/a | n/a / n/a / 5,120.0 | 1.840 |"
    assert first in readme
    assert plan.why in readme and plan.traffic_basis in readme
    assert "benchbill run --dumps plans/p-test/results" in readme
    assert "`MODEL_NAME` defaults to `meta-llama/Llama-3.1-8B-Instruct`" in readme
    assert "USD" not in readme and "price" not in readme.lower()


def test_the_run_yaml_holds_only_what_the_plan_knows_and_each_tools_arrival(written):
    folder, _, _ = written
    text = (folder / "results/run.yaml").read_text()
    assert yaml.safe_load(text) == RUN_YAML
    for key in ("precision", "runtime", "runtime_version"):  # required, unknown: commented, never invented
        assert f"# {key}:" in text
    for tool in TOOLS:
        sidecar = (folder / f"results/{tool}/run.yaml").read_text()
        assert yaml.safe_load(sidecar) == {"arrival": ARRIVAL[tool]}
        assert "# tool_version:" in sidecar


def test_without_a_served_name_the_scripts_ask_for_one_and_without_a_model_no_prediction_is_claimed(tmp_path):
    write_plan_files(tmp_path, plan_of(None, predicted=False))
    readme = (tmp_path / README).read_text()
    assert "`MODEL_NAME` has no default" in readme
    assert "No prediction: the config has no engine model yet" in readme
    assert "TTFT p50" not in readme
    for tool in TOOLS:
        assert ': "${MODEL_NAME:?' in (tmp_path / tool / "run.sh").read_text()
