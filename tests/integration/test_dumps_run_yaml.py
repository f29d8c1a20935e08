"""Dump folders: run.yaml sidecars and the real inference-perf reports recognised by content, in one set
of units; bad sidecars and damaged stage files quarantined or named."""

import json
import re

import pytest

from assets.formats.dumps import inference_perf
from assets.runs.collect import collect_all
from tests.support.data import INFERENCE_PERF, WORKED_RUN_YAML, make_dumps


@pytest.fixture
def batch(dumps_tree):
    return collect_all([str(dumps_tree)])


def points_of(batch, label):
    run = next(r for r in batch.runs if r["run_label"] == label)
    return run, [p for p in batch.measurements if p["run_id"] == run["run_id"]]


def test_two_runs_of_seven_load_points(batch):
    assert sorted(r["run_label"] for r in batch.runs) == ["vllm", "vllm+batch_size"]
    assert len(batch.measurements) == 14 and not batch.rejects


def test_run_config_from_run_yaml_is_canonical(batch):
    run, _ = points_of(batch, "vllm")
    assert run["accelerator_id"] == "nvidia-h100-sxm-80gb" and run["accelerator_raw"] == "NVIDIA H100 80GB HBM3"
    assert run["model_id"] == "llama-3.1-8b-instruct" and run["precision"] == "bf16"
    assert (run["runtime"], run["runtime_version"]) == ("vLLM", "0.11.0")
    assert (run["arrival"], run["load_kind"]) == ("constant", "rate")
    assert run["load_points"] == 7 and run["tool"] == "inference-perf"


def test_the_knee_in_ms_and_requests_per_second(batch):
    _, points = points_of(batch, "vllm")
    assert [p["load_index"] for p in points] == list(range(7))
    assert [round(p["offered_rate_per_s"], 2) for p in points] == [1.0, 31.4, 61.79, 92.19, 122.59, 152.98, 183.38]
    stage3, stage4 = points[3], points[4]
    assert stage3["achieved_requests_per_s"] == pytest.approx(91.36, abs=0.005)
    assert stage3["ttft_p95_ms"] == pytest.approx(80, abs=1)
    assert stage4["achieved_requests_per_s"] == pytest.approx(101.23, abs=0.005)
    assert stage4["ttft_p95_ms"] == pytest.approx(3187, abs=1)
    assert stage3["output_tokens_per_s"] == pytest.approx(5693.9, abs=0.05)
    assert stage3["tpot_p95_ms"] == pytest.approx(9.4, abs=0.1)
    assert stage3["input_tokens_mean"] == pytest.approx(204.1, abs=0.01)
    assert all(p["requests_failed"] == 0 and not p["has_requests"] for p in points)


def test_every_file_is_accounted_for(batch):
    statuses = {}
    for f in batch.files:
        statuses.setdefault((f.detected_format, f.status), 0)
        statuses[(f.detected_format, f.status)] += 1
    assert statuses == {
        ("run.yaml sidecar", "read"): 2,
        (inference_perf.STAGE, "read"): 14,
        (inference_perf.SUMMARY, "read"): 2,
        (inference_perf.PROMETHEUS, "skipped"): 16,
    }


def test_files_without_run_yaml_are_quarantined(tmp_path):
    root = tmp_path / "dumps"
    (root / "orphan").mkdir(parents=True)
    (root / "orphan" / "results").symlink_to(INFERENCE_PERF / "vllm" / "results")
    batch = collect_all([str(root)])
    assert not batch.runs and len(batch.rejects) == 7
    assert "no run.yaml" in batch.rejects[0].reason and batch.rejects[0].source.endswith("lifecycle_metrics.json")


def test_run_yaml_missing_keys_quarantines_the_run(tmp_path):
    root = make_dumps(tmp_path / "dumps", variants=["vllm"], run_yaml="accelerator: NVIDIA H100 80GB HBM3\n")
    batch = collect_all([str(root)])
    assert not batch.runs and not batch.measurements
    assert "missing required keys ['accelerator_count', 'model', 'precision'" in batch.rejects[0].reason
    assert batch.rejects[0].source.endswith("vllm/run.yaml")


@pytest.mark.parametrize(
    "line,problem",
    [
        ("arrival: bursty", "arrival 'bursty' is not one of"),
        ("accelerator_count: two", "accelerator_count must be a whole number"),
        ("colour: blue", "unknown keys ['colour']"),
        ("settings: 128", "settings must be a mapping of engine settings (name: value), got int"),
        (
            "model: [meta-llama/Llama-3.1-8B-Instruct]",
            "['model'] must each be one value (text or a number), not a list",
        ),
        ("runtime: {name: vLLM}", "['runtime'] must each be one value (text or a number), not a list or a mapping"),
    ],
)
def test_run_yaml_bad_values(tmp_path, line, problem):
    key = line.split(":")[0]
    text = "\n".join(k for k in WORKED_RUN_YAML.splitlines() if not k.startswith(key + ":")) + "\n" + line + "\n"
    root = make_dumps(tmp_path / "dumps", variants=["vllm"], run_yaml=text)
    batch = collect_all([str(root)])
    assert not batch.runs and problem in batch.rejects[0].reason


def test_deeper_run_yaml_overrides_shallower(tmp_path):
    root = make_dumps(tmp_path / "dumps", variants=["vllm"])
    (root / "run.yaml").write_text(WORKED_RUN_YAML)
    (root / "vllm" / "run.yaml").write_text("runtime_version: 0.11.1\nlabel: tuned\n")
    batch = collect_all([str(root)])
    assert [(r["run_label"], r["runtime_version"], r["accelerator_id"]) for r in batch.runs] == [
        ("tuned", "0.11.1", "nvidia-h100-sxm-80gb")
    ]


def test_unknown_accelerator_is_kept_raw_and_flagged(tmp_path):
    root = make_dumps(
        tmp_path / "dumps", variants=["vllm"], run_yaml=WORKED_RUN_YAML.replace("NVIDIA H100 80GB HBM3", "Hopper thing")
    )
    run = collect_all([str(root)]).runs[0]
    assert run["accelerator_raw"] == "Hopper thing" and run["accelerator_id"] is None and not run["accelerator_known"]


def sidecar_with(**keys):
    """The worked run.yaml with keys replaced (None: the key left out)."""
    lines = [line for line in WORKED_RUN_YAML.splitlines() if line.split(":")[0] not in keys]
    return "\n".join(lines + [f"{k}: {v}" for k, v in keys.items() if v is not None]) + "\n"


@pytest.mark.parametrize(
    "precision,canonical_name,weight_bits,activation_bits",
    [("nf4", "nf4", 4, 16), ("q2_k", "q2_k", 2, None), ("W8A8", "int8", 8, 8), ("float8_e4m3fn", "fp8", 8, None)],
)
def test_precisions_runtimes_write_are_read_with_their_bits(
    tmp_path, precision, canonical_name, weight_bits, activation_bits
):
    root = make_dumps(tmp_path / "dumps", variants=["vllm"], run_yaml=sidecar_with(precision=precision))
    batch = collect_all([str(root)])
    (run,) = batch.runs
    assert (run["precision_raw"], run["precision"], run["precision_known"]) == (precision, canonical_name, True)
    assert (run["weight_bits"], run["activation_bits"]) == (weight_bits, activation_bits)
    assert run["load_points"] == 7 and not batch.rejects


def test_an_unknown_precision_is_kept_raw_and_flagged_and_the_run_kept(tmp_path):
    root = make_dumps(tmp_path / "dumps", variants=["vllm"], run_yaml=sidecar_with(precision="fp7"))
    batch = collect_all([str(root)])
    (run,) = batch.runs
    assert (run["precision_raw"], run["precision"], run["precision_known"]) == ("fp7", None, False)
    assert "precision 'fp7' is not in the precision table" in run["precision_note"]
    assert run["load_points"] == 7 and len(batch.measurements) == 7 and not batch.rejects


def test_without_a_precision_the_quantised_model_name_gives_it(tmp_path):
    sidecar = sidecar_with(precision=None, model="neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8-dynamic")
    root = make_dumps(tmp_path / "dumps", variants=["vllm"], run_yaml=sidecar)
    (run,) = collect_all([str(root)]).runs
    assert (run["model_id"], run["model_raw"]) == (
        "llama-3.1-8b-instruct",
        "neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8-dynamic",
    )
    assert (run["precision_raw"], run["precision"], run["precision_source"]) == (None, "fp8", "model name")
    assert (run["weight_bits"], run["activation_bits"], run["precision_note"]) == (8, 8, None)


def test_run_yaml_wins_over_the_model_name_and_the_contradiction_is_noted(tmp_path):
    sidecar = sidecar_with(precision="bf16", model="neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8")
    root = make_dumps(tmp_path / "dumps", variants=["vllm"], run_yaml=sidecar)
    (run,) = collect_all([str(root)]).runs
    assert (run["precision"], run["precision_source"], run["weight_bits"]) == ("bf16", "run.yaml", 16)
    assert run["precision_note"] == (
        "run.yaml precision bf16 contradicts the model name 'neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8', "
        "which implies fp8; run.yaml's is used"
    )


def test_agreeing_precisions_take_the_more_specific_activation_bits_and_say_nothing(tmp_path):
    sidecar = sidecar_with(precision="fp8", model="RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8-dynamic")
    root = make_dumps(tmp_path / "dumps", variants=["vllm"], run_yaml=sidecar)
    (run,) = collect_all([str(root)]).runs
    assert (run["precision"], run["activation_bits"], run["precision_note"]) == ("fp8", 8, None)


@pytest.mark.parametrize(
    "overrides,reason",
    [
        ("{when: {server: sgl}}", "overrides must be a list of {when: ..., set: ...}"),
        ("[{when: {server: sgl}}]", "override 1 must have exactly the keys when and set"),
        ("[{when: {server: sgl}, set: {overrides: []}}]", "override 1 sets ['overrides']"),
        ("[{when: {server: sgl}, set: {accelerator_count: 0}}]", "override 1: "),
    ],
)
def test_a_malformed_override_quarantines_its_run_naming_it(tmp_path, overrides, reason):
    root = make_dumps(tmp_path / "dumps", variants=["vllm"], run_yaml=sidecar_with(overrides=overrides))
    batch = collect_all([str(root)])
    assert not batch.runs and reason in batch.rejects[0].reason


def test_an_override_applies_only_to_the_files_matching_it(tmp_path):
    # inference-perf states no server setting: an override for another server changes nothing
    sidecar = sidecar_with(overrides="[{when: {server: sgl}, set: {runtime: SGLang}}]")
    (run,) = collect_all([str(make_dumps(tmp_path / "dumps", variants=["vllm"], run_yaml=sidecar))]).runs
    assert run["runtime"] == "vLLM"


def test_without_a_precision_key_the_run_is_quarantined_saying_so(tmp_path):
    root = make_dumps(tmp_path / "dumps", variants=["vllm"], run_yaml=sidecar_with(precision=None))
    batch = collect_all([str(root)])
    assert not batch.runs and batch.rejects[0].source.endswith("vllm/run.yaml")
    assert re.search(r"missing required keys \['precision'\]", batch.rejects[0].reason)


@pytest.mark.parametrize("precision", ["N/A", "UNSET", "unknown"])
def test_a_precision_stated_as_unknown_keeps_the_run_flagged(tmp_path, precision):
    # a hosted API (johnsonafool's LLMPerf run of gpt-4.1-nano) does not say what precision serves it
    root = make_dumps(tmp_path / "dumps", variants=["vllm"], run_yaml=sidecar_with(precision=precision))
    (run,) = collect_all([str(root)]).runs
    assert (run["precision"], run["precision_known"], run["precision_raw"]) == (None, False, precision)
    assert "states no precision" in run["precision_note"]


def test_truncated_stage_file_is_quarantined_naming_the_file_and_its_run_is_read_without_it(tmp_path, copied_report):
    stage = copied_report / "stage_3_lifecycle_metrics.json"
    stage.write_text(stage.read_text()[:700])
    (tmp_path / "dumps").mkdir()
    (tmp_path / "dumps" / "run.yaml").write_text(WORKED_RUN_YAML)
    copied_report.rename(tmp_path / "dumps" / "results")
    batch = collect_all([str(tmp_path / "dumps")])
    (reject,) = [r for r in batch.rejects if r.source.endswith("stage_3_lifecycle_metrics.json")]
    assert reject.location == "file" and "stage_3_lifecycle_metrics.json: invalid JSON" in reject.reason
    (run,) = batch.runs
    sources = {m["source"].rsplit("/", 1)[-1] for m in batch.measurements}
    assert "stage_3_lifecycle_metrics.json" not in sources and "stage_2_lifecycle_metrics.json" in sources


@pytest.mark.parametrize(
    "mutate,problem",
    [
        (lambda d: d["successes"]["latency"]["time_to_first_token"].update(p95="N/A"), "not a number"),
        (lambda d: d["successes"].update(count=-4), "whole non-negative count"),
        (lambda d: d["successes"].update(latency=[1, 2]), "must be objects"),
    ],
)
def test_bad_values_in_a_stage_quarantine_that_load_point(tmp_path, copied_report, mutate, problem):
    stage = copied_report / "stage_2_lifecycle_metrics.json"
    payload = json.loads(stage.read_text())
    mutate(payload)
    stage.write_text(json.dumps(payload))
    (tmp_path / "dumps").mkdir()
    (tmp_path / "dumps" / "run.yaml").write_text(WORKED_RUN_YAML)
    copied_report.rename(tmp_path / "dumps" / "results")
    batch = collect_all([str(tmp_path / "dumps")])
    assert len(batch.measurements) == 6 and batch.runs[0]["load_points"] == 6
    assert problem in batch.rejects[0].reason and batch.rejects[0].source.endswith("stage_2_lifecycle_metrics.json")


def test_duplicate_labels_across_folders(tmp_path):
    first = make_dumps(tmp_path / "a", variants=["vllm"])
    second = make_dumps(tmp_path / "b", variants=["vllm"])
    batch = collect_all([str(first), str(second)])
    assert len(batch.runs) == 1 and len(batch.measurements) == 7
    assert "duplicate run label 'vllm'" in batch.rejects[0].reason


@pytest.mark.parametrize(
    "text,problem",
    [
        ("accelerator: [unclosed\nmodel: x\n", "not a readable YAML file"),
        ("- accelerator: H100\n- model: x\n", "expected a mapping of run settings, got list"),
        ("", "expected a mapping of run settings, got NoneType"),
    ],
)
def test_an_unreadable_run_yaml_quarantines_only_the_runs_it_governs(tmp_path, text, problem):
    """A run.yaml that is not YAML or not a mapping costs only its own run: one quarantine row names it and says
    why, every file below it is listed as quarantined naming it, and the run beside it reads as if alone."""
    root = make_dumps(tmp_path / "dumps")
    (root / "vllm+batch_size" / "run.yaml").write_text(text)
    batch = collect_all([str(root)])
    alone = make_dumps(tmp_path / "alone", variants=["vllm"])
    moved = [
        {k: v.replace(str(alone), str(root)) if isinstance(v, str) else v for k, v in m.items()}
        for m in collect_all([str(alone)]).measurements
    ]
    assert [r["run_label"] for r in batch.runs] == ["vllm"]
    assert batch.measurements == moved
    (reject,) = batch.rejects
    assert reject.source == str(root / "vllm+batch_size" / "run.yaml")
    assert reject.location == f"run {root / 'vllm+batch_size'}" and problem in reject.reason
    assert reject.reason.endswith(
        "every file it governs (below its folder) is quarantined with it; the other runs read on"
    )
    below = [f for f in batch.files if "/vllm+batch_size/results/stage_" in f.source and "lifecycle" in f.source]
    assert len(below) == 7 and {f.status for f in below} == {"quarantined"}
    assert {f.note for f in below} == {f"governed by {reject.source}, which cannot be read"}
    (sidecar,) = [f for f in batch.files if f.source == reject.source]
    assert (sidecar.status, problem in sidecar.note) == ("quarantined", True)


def test_an_unreadable_run_yaml_above_others_costs_every_run_below_it_and_no_other(tmp_path):
    """A run.yaml that cannot be read above deeper ones: the runs below it are quarantined too (their keys would
    merge with its keys), never read with a shallower file's keys."""
    root = make_dumps(tmp_path / "dumps" / "lab", variants=["vllm"]).parent
    make_dumps(root / "other", variants=["vllm+batch_size"])
    (root / "lab" / "run.yaml").write_text("accelerator: [unclosed\n")
    (root / "run.yaml").write_text("tool_version: '1'\n")
    batch = collect_all([str(root)])
    assert [r["run_label"] for r in batch.runs] == ["other/vllm+batch_size"]
    assert [r.source for r in batch.rejects] == [str(root / "lab" / "run.yaml")]
    stages = [f for f in batch.files if "/lab/vllm/results/stage_" in f.source and "lifecycle" in f.source]
    assert len(stages) == 7 and {f.status for f in stages} == {"quarantined"}
