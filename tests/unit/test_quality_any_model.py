"""Quality evidence for a model no alias table knows: kept raw (`model_known` false) under the key runs and
profiles of that model are matched on, the unknown model said once with what was tried, and judged by the gate
of a profile naming the model as the team writes it."""

from __future__ import annotations

import json
from pathlib import Path

from assets.config.profiles import parse_profiles
from assets.core import canonical
from assets.runs.collect import collect


def write(folder: Path, name: str, content: object) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def results(model_args: object, **config: object) -> dict:
    return {
        "results": {"hellaswag": {"acc,none": 0.52, "acc_stderr,none": 0.005}},
        "n-samples": {"hellaswag": {"original": 10042, "effective": 10042}},
        "config": {"model": "hf", "model_args": model_args, **config},
        "lm_eval_version": "0.4.9",
    }


def test_a_run_yaml_model_no_alias_table_knows_is_kept_raw_with_what_was_tried(tmp_path):
    write(tmp_path, "zephyr/run.yaml", "model: stabilityai/stablelm-2-zephyr-1_6b\nprecision: fp16\n")
    write(tmp_path, "zephyr/evals/results.json", results("pretrained=stabilityai/stablelm-2-zephyr-1_6b"))
    batch = collect(tmp_path)
    [row] = batch.quality
    assert batch.quality_rejects == []
    assert (row["model"], row["model_known"], row["precision"]) == ("stablelm-2-zephyr-1-6b", False, "fp16")
    assert row["model_raw"] == "stabilityai/stablelm-2-zephyr-1_6b"
    note = row["model_note"]
    assert "tried 'stabilityai/stablelm-2-zephyr-1_6b'" in note and "model_aliases.csv" in note
    assert "run.yaml" in row["model_field"] and "state `model:`" not in note  # never asks for a key already there


def test_an_unknown_quantised_checkpoint_keeps_its_base_key_and_its_precision(tmp_path):
    write(tmp_path, "awq/r.json", {**results(None), "config": {"model": "/models/acme-chat-3b-awq-custom"}})
    [row] = collect(tmp_path).quality
    assert (row["model"], row["precision"], row["model_field"]) == ("acme-chat-3b", "int4", "config.model")
    assert "tried '/models/acme-chat-3b-awq-custom', 'acme-chat-3b'" in row["model_note"]


def test_a_known_model_is_unchanged_and_has_no_note(tmp_path):
    write(tmp_path, "r.json", results("pretrained=Qwen/Qwen3-0.6B,dtype=bfloat16"))
    [row] = collect(tmp_path).quality
    assert (row["model"], row["model_known"], row["model_note"]) == ("qwen3-0.6b", True, None)


def test_profiles_carry_the_same_key_as_the_evidence():
    rows, _ = parse_profiles(
        {
            "profiles": [
                {
                    "name": name,
                    "model": model,
                    "slo": {"ttft_p95_ms": 1000},
                    "delivered_fraction_prior": [0.5, 0.8],
                }
                for name, model in (("z", "stabilityai/stablelm-2-zephyr-1_6b"), ("q", "Qwen/Qwen3-0.6B"))
            ]
        },
        "p.yaml",
    )
    assert {r["profile"]: r["model_key"] for r in rows} == {"z": "stablelm-2-zephyr-1-6b", "q": "qwen3-0.6b"}
    assert canonical.model_and_precision("stabilityai/stablelm-2-zephyr-1_6b").key == "stablelm-2-zephyr-1-6b"
