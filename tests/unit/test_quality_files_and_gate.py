"""Quality evidence from small files written here: the generic quality CSV, run.yaml stating model and
precision, and bad input (no model, an unknown model, a metric missing, a value that is no number, stderr
"N/A", an unknown task in a requirement, malformed requirements): a clear message or quarantined rows, never
a wrong status."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import duckdb
import polars as pl
import pytest

from assets.config.profiles import parse_profiles, parse_quality_bounds, write_quality_bounds
from assets.core.errors import IngestError
from assets.core.records import SourceFile
from assets.runs.collect import collect
from assets.runs.quality import write_quality
from assets.warehouse.sqlfiles import run_sql_file
from assets.warehouse.write import write_table
from schemas.marts.quality_gate import QualityGate
from schemas.requirement.profiles import Profiles


def lm_eval_04(model_args: object = "pretrained=Qwen/Qwen3-0.6B,dtype=bfloat16", **results: dict) -> dict:
    """A minimal lm-eval 0.4 results document."""
    return {
        "results": results
        or {"gsm8k": {"alias": "gsm8k", "exact_match,strict-match": 0.4, "exact_match_stderr,strict-match": 0.0135}},
        "n-samples": {"gsm8k": {"original": 1319, "effective": 1319}},
        "config": {"model": "hf", "model_args": model_args},
        "lm_eval_version": "0.4.9",
    }


def write(folder: Path, name: str, content: object) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def reasons(batch) -> list[str]:
    return [r.reason for r in batch.quality_rejects]


def test_a_0_4_file_names_model_and_precision_in_its_arguments(tmp_path):
    write(tmp_path, "a/results.json", lm_eval_04())
    [row] = collect(tmp_path).quality
    assert (row["model"], row["precision"], row["precision_source"]) == ("qwen3-0.6b", "bf16", "dtype argument")
    assert (row["task"], row["metric"], row["value"], row["stderr"], row["samples"]) == (
        "gsm8k",
        "exact_match,strict-match",
        0.4,
        0.0135,
        1319,
    )


def test_rows_with_samples_lists_sample_counts_and_na_stderr(tmp_path):
    """Shapes other repositories committed: `samples` (a list) and `sample_count` (a number) in a task row,
    `acc_stderr,none` "N/A", and no n-samples."""
    doc = lm_eval_04(
        bfcl_v3_simple={
            "name": "bfcl_v3_simple",
            "alias": "bfcl_v3_simple",
            "sample_len": 400,
            "sample_count": 400,
            "samples": ["task metadata"],
            "acc,none": 0.8975,
            "acc_stderr,none": "N/A",
        }
    )
    del doc["n-samples"]
    write(tmp_path, "r.json", doc)
    batch = collect(tmp_path)
    [row] = batch.quality
    assert (row["metric"], row["value"], row["stderr"], row["samples"]) == ("acc", 0.8975, None, 400)
    assert batch.quality_rejects == []


def test_quantised_checkpoint_names_and_arguments_map_to_the_base_model(tmp_path):
    write(tmp_path, "gptq/r.json", lm_eval_04({"pretrained": "Qwen/Qwen3-0.6B-GPTQ-Int4", "dtype": "auto"}))
    write(tmp_path, "w4a16/r.json", lm_eval_04("pretrained=./Llama-3.2-1B-Instruct-quantized.w4a16,dtype=auto"))
    write(tmp_path, "bnb4/r.json", lm_eval_04("pretrained=meta-llama/Llama-3.2-1B-Instruct,load_in_4bit=True"))
    write(tmp_path, "vllm/r.json", lm_eval_04("pretrained=meta-llama/Llama-3.2-1B-Instruct,quantization=fp8"))
    got = {Path(r["source"]).parent.name: (r["model"], r["precision"]) for r in collect(tmp_path).quality}
    assert got == {
        "gptq": ("qwen3-0.6b", "int4"),
        "w4a16": ("llama-3.2-1b-instruct", "int4"),
        "bnb4": ("llama-3.2-1b-instruct", "fp4"),  # bitsandbytes' default 4-bit type
        "vllm": ("llama-3.2-1b-instruct", "fp8"),
    }


def test_run_yaml_states_model_and_precision(tmp_path):
    write(tmp_path, "run.yaml", "model: Qwen/Qwen3-0.6B\nprecision: fp8\n")
    write(tmp_path, "evals/r.json", lm_eval_04("pretrained=/models/local-copy"))
    batch = collect(tmp_path)
    [row] = batch.quality
    assert (row["model"], row["precision"], row["precision_source"]) == ("qwen3-0.6b", "fp8", "run.yaml")
    assert not batch.runs  # a run.yaml above quality files alone is no load test
    assert row["precision_note"] is None


def test_run_yaml_wins_over_the_file_and_the_contradiction_is_said(tmp_path):
    write(tmp_path, "run.yaml", "precision: bf16\n")
    write(tmp_path, "evals/r.json", lm_eval_04("pretrained=Qwen/Qwen3-0.6B-FP8"))
    [row] = collect(tmp_path).quality
    assert row["precision"] == "bf16"
    assert row["precision_note"] == (
        "run.yaml states bf16; the checkpoint name 'Qwen/Qwen3-0.6B-FP8' implies fp8: run.yaml's is used"
    )


def test_a_0_3_file_with_stderr_na_is_kept_without_an_interval(tmp_path):
    doc = {
        "results": {"arc_easy": {"acc": 0.7, "acc_stderr": "N/A", "acc_norm": 0.65, "acc_norm_stderr": 0.01}},
        "versions": {"arc_easy": 0},
        "config": {"model": "hf-causal", "model_args": "pretrained=Qwen/Qwen3-0.6B"},
    }
    write(tmp_path, "r.json", doc)
    batch = collect(tmp_path)
    rows = {r["metric"]: r for r in batch.quality}
    assert rows["acc"]["stderr"] is None and "N/A" in rows["acc"]["stderr_note"]
    assert rows["acc_norm"]["stderr"] == 0.01
    assert rows["acc"]["precision"] == "bf16" and "inferred" in rows["acc"]["precision_note"]
    assert batch.quality_files[0].detected_format == "lm-evaluation-harness results (0.3)"


@pytest.mark.parametrize(
    ("doc", "reason"),
    [
        (lm_eval_04(model_args=""), r"no model"),
        (
            lm_eval_04("pretrained=acme/unheard-of-7b"),
            r"no precision: 'acme/unheard-of-7b' states no quantisation or dtype.*no alias table knows",
        ),
        (lm_eval_04("pretrained=Qwen/Qwen3-0.6B,quantization=fp3.5"), r"precision 'fp3.5'.*not in"),
        (lm_eval_04(gsm8k={"exact_match_stderr,strict-match": 0.01}), r"metric missing"),
        (lm_eval_04(gsm8k={"exact_match,strict-match": "0.4?"}), r"not a finite number"),
        (lm_eval_04(gsm8k={"exact_match,strict-match": 0.4, "exact_match_stderr,strict-match": -1}), r"stderr is not"),
        (lm_eval_04(gsm8k={"alias": "gsm8k"}), r"has no metric"),
    ],
    ids=[
        "no model",
        "unknown model without a precision",
        "unknown precision",
        "metric missing",
        "value text",
        "negative stderr",
        "no metric",
    ],
)
def test_bad_results_files_are_quarantined_with_the_reason(tmp_path, doc, reason):
    write(tmp_path, "r.json", doc)
    batch = collect(tmp_path)
    assert batch.quality == []
    assert any(re.search(reason, r) for r in reasons(batch)), reasons(batch)
    assert batch.quality_files[0].status == "quarantined"


def test_generic_quality_csv(tmp_path):
    write(
        tmp_path,
        "q.csv",
        "model,precision,task,metric,value,stderr,n,source\n"
        'Qwen/Qwen3-0.6B,bf16,gsm8k,"exact_match,strict-match",0.41,0.0135,1319,our eval 2026-11\n'
        'Qwen/Qwen3-0.6B-FP8,,gsm8k,"exact_match,strict-match",0.38,N/A,1319,our eval 2026-11\n'
        "Qwen/Qwen3-0.6B,bf16,wikitext,word_perplexity,not-a-number,,,\n"
        "Qwen/Qwen3-0.6B,bf16,,acc,0.5,,,\n"
        'Qwen/Qwen3-0.6B,bf16,gsm8k,"exact_match,strict-match",0.42,0.01,1319,our eval 2026-11\n',
    )
    batch = collect(tmp_path)
    rows = {(r["precision"], r["value"]): r for r in batch.quality}
    assert set(rows) == {("bf16", 0.41), ("fp8", 0.38)}
    assert rows[("fp8", 0.38)]["precision_source"] == "model name" and rows[("fp8", 0.38)]["stderr"] is None
    assert rows[("bf16", 0.41)]["source_note"] == "our eval 2026-11"
    assert sorted(r.location for r in batch.quality_rejects) == ["line 4", "line 5", "line 6"]
    assert any("duplicate of line 2" in r for r in reasons(batch))


def profile(name: str = "p", model: str = "Qwen/Qwen3-0.6B", quality: object = None) -> dict:
    entry = {"name": name, "model": model, "slo": {"ttft_p95_ms": 1000}, "delivered_fraction_prior": [0.5, 0.8]}
    if quality is not None:
        entry["quality"] = quality
    return entry


@pytest.mark.parametrize(
    ("quality", "message"),
    [
        ([{"task": "gsm8k", "metric": "acc"}], r"exactly one of min, max, min_relative, max_relative \(got none\)"),
        ([{"task": "gsm8k", "metric": "acc", "min": 0.5, "max": 0.9}], r"exactly one of"),
        ([{"task": "gsm8k", "metric": "acc", "min_relative": 0}], r"ratio to the best-evidenced result"),
        ([{"task": "gsm8k", "metric": "acc", "min": "high"}], r"min must be a number"),
        ([{"task": "gsm8k", "min": 0.5}], r"task and metric are required"),
        ([{"task": "gsm8k", "metric": "acc", "minimum": 0.5}], r"unknown keys \['minimum'\]"),
        ([{"task": "g", "metric": "acc", "min": 1}, {"task": "g", "metric": "acc,none", "max": 2}], r"bounded twice"),
        ("gsm8k >= 0.5", r"quality must be a non-empty list"),
    ],
)
def test_malformed_quality_requirements_name_the_profile_and_entry(quality, message):
    content = {"profiles": [profile(quality=quality)]}
    parse_profiles(content, "p.yaml")
    with pytest.raises(IngestError, match=r"p\.yaml: profile 'p'.*" + message):
        parse_quality_bounds(content, "p.yaml")


def gate_for(tmp_path: Path, quality: list[dict], offered: tuple[str, ...]) -> dict[str, dict]:
    """The quality gate of one profile over the files of `tmp_path`, for configs at `offered` precisions."""
    batch = collect(tmp_path / "dumps")
    conn = duckdb.connect(str(tmp_path / "w.duckdb"))
    write_quality(conn, batch.quality, batch.quality_rejects, batch.quality_files)
    content = {"profiles": [profile(quality=quality)]}
    rows, _ = parse_profiles(content, "p.yaml")
    write_table(conn, "requirement.profiles", pl.DataFrame(rows, infer_schema_length=None), Profiles)
    write_quality_bounds(conn, parse_quality_bounds(content, "p.yaml"), SourceFile("p.yaml", None, None, "y", "read"))
    values = ", ".join(f"('p', 'qwen3-0.6b', '{p}', NULL)" for p in offered)  # the run's scheme: its precision
    conn.execute(
        "CREATE TABLE observed.delivered_at_slo AS SELECT profile, model_id, precision, precision_scheme::VARCHAR "
        f"AS precision_scheme FROM (VALUES {values}) t(profile, model_id, precision, precision_scheme)"
    )
    conn.execute("CREATE SCHEMA projected")
    conn.execute("CREATE TABLE projected.delivered_at_slo (profile VARCHAR, model_id VARCHAR, precision VARCHAR)")
    frame = run_sql_file(conn, "marts/quality_gate.sql")
    QualityGate.validate(frame)
    return {row["precision"]: row for row in frame.to_dicts()}


def test_no_stderr_is_inconclusive_however_far_the_value_is_from_the_bound(tmp_path):
    write(
        tmp_path,
        "dumps/q.csv",
        "model,precision,task,metric,value,stderr,n\nQwen/Qwen3-0.6B,bf16,gsm8k,acc,0.99,N/A,1319\n",
    )
    gate = gate_for(tmp_path, [{"task": "gsm8k", "metric": "acc", "min": 0.1}], ("bf16",))
    assert gate["bf16"]["quality_status"] == "inconclusive"
    assert "no stderr" in gate["bf16"]["quality_evidence"]


def test_an_unknown_task_is_untested_and_said_so(tmp_path):
    write(tmp_path, "dumps/r.json", lm_eval_04())
    gate = gate_for(tmp_path, [{"task": "gsm8K", "metric": "exact_match,strict-match", "min": 0.1}], ("bf16",))
    assert gate["bf16"]["quality_status"] == "untested"
    assert "appears in no quality file" in gate["bf16"]["quality_evidence"]


def perplexities(folder: Path, figures: dict[str, str], stderr: str) -> None:
    """A quality CSV of Qwen3-0.6B's wikitext word perplexity per precision, every row with `stderr`."""
    lines = [f"Qwen/Qwen3-0.6B,{p},wikitext,word_perplexity,{v},{stderr},62" for p, v in figures.items()]
    write(folder, "dumps/q.csv", "\n".join(["model,precision,task,metric,value,stderr,n", *lines, ""]))


def test_max_bounds_judge_lower_is_better_metrics(tmp_path):
    perplexities(tmp_path, {"bf16": "10.0", "fp8": "10.3", "int4": "11.5"}, "0.1")
    gate = gate_for(
        tmp_path, [{"task": "wikitext", "metric": "word_perplexity", "max_relative": 1.05}], ("bf16", "fp8", "int4")
    )
    # the ratio to bf16 carries both stderrs: fp8's 1.03 +/- 1.96 sqrt(0.1^2 + 1.03^2 0.1^2) / 10 straddles 1.05
    # (its own interval alone, [10.104, 10.496], would lie below 10.5); int4's 1.15 interval lies wholly above
    assert {p: r["quality_status"] for p, r in gate.items()} == {
        "bf16": "meets",
        "fp8": "inconclusive",
        "int4": "fails",
    }
    half = 1.96 * math.sqrt(0.1**2 + 1.03**2 * 0.1**2) / 10.0
    assert (gate["fp8"]["ratio_low"], gate["fp8"]["ratio_high"]) == pytest.approx((1.03 - half, 1.03 + half))
    assert "with the reference's stderr too" in gate["fp8"]["quality_evidence"]


def test_a_relative_bound_says_when_the_reference_has_no_stderr(tmp_path):
    write(
        tmp_path,
        "dumps/q.csv",
        "model,precision,task,metric,value,stderr,n\n"
        "Qwen/Qwen3-0.6B,bf16,gsm8k,acc,0.50,,1319\nQwen/Qwen3-0.6B,fp8,gsm8k,acc,0.40,0.01,1319\n",
    )
    gate = gate_for(tmp_path, [{"task": "gsm8k", "metric": "acc", "min_relative": 0.9}], ("fp8",))
    # bound 0.45; fp8's own interval [0.3804, 0.4196] lies below it: fails, on its uncertainty alone
    assert (gate["fp8"]["quality_status"], gate["fp8"]["ratio_low"]) == ("fails", None)
    assert "the reference has no stderr: only this figure's uncertainty is carried" in gate["fp8"]["quality_evidence"]


def test_a_perplexity_without_stderr_is_judged_on_its_point_value(tmp_path):
    perplexities(tmp_path, {"bf16": "17.25", "fp8": "17.54", "nvfp4": "18.66", "int4": "51.6"}, "N/A")
    gate = gate_for(
        tmp_path, [{"task": "wikitext", "metric": "word_perplexity", "max_relative": 1.05}], ("fp8", "nvfp4", "int4")
    )
    # bound 1.05 x 17.25 = 18.1125: fp8 within, nvfp4 and int4 outside; no interval, no sampling error
    assert {p: r["quality_status"] for p, r in gate.items()} == {
        "bf16": "meets",  # the reference itself
        "fp8": "meets",
        "nvfp4": "fails",
        "int4": "fails",
    }
    assert gate["fp8"]["threshold"] == pytest.approx(1.05 * 17.25)
    assert "point value: the harness reports no sampling error for this metric" in gate["fp8"]["quality_evidence"]


def test_a_tolerance_absorbs_run_to_run_noise_of_a_point_value(tmp_path):
    for name in ("strict", "loose"):
        write(
            tmp_path / name,
            "dumps/q.csv",
            "model,precision,task,metric,value,stderr,n\nQwen/Qwen3-0.6B,fp8,wikitext,bits_per_byte,0.69,N/A,62\n",
        )
    bound = {"task": "wikitext", "metric": "bits_per_byte", "max": 0.68}
    strict = gate_for(tmp_path / "strict", [bound], ("fp8",))
    loose = gate_for(tmp_path / "loose", [{**bound, "tolerance": 0.02}], ("fp8",))
    assert (strict["fp8"]["quality_status"], loose["fp8"]["quality_status"]) == ("fails", "meets")
    assert loose["fp8"]["threshold"] == pytest.approx(0.70)
    assert "+ tolerance 0.02" in loose["fp8"]["quality_evidence"]


def test_a_sampled_metric_without_stderr_stays_inconclusive_even_over_the_whole_set_in_a_csv(tmp_path):
    write(
        tmp_path, "dumps/q.csv", "model,precision,task,metric,value,stderr,n\nQwen/Qwen3-0.6B,fp8,gsm8k,acc,0.1,,1319\n"
    )
    gate = gate_for(tmp_path, [{"task": "gsm8k", "metric": "acc", "min": 0.5}], ("fp8",))
    assert gate["fp8"]["quality_status"] == "inconclusive"


def test_an_lm_eval_metric_without_stderr_over_the_whole_test_set_is_a_point_value(tmp_path):
    whole = lm_eval_04(gsm8k={"f1,none": 0.7, "f1_stderr,none": "N/A"})
    part = {**whole, "n-samples": {"gsm8k": {"original": 1319, "effective": 600}}}
    write(tmp_path, "whole/r.json", whole)
    write(tmp_path, "part/r.json", part)
    got = {Path(r["source"]).parent.name: (r["point_value"], r["stderr_note"]) for r in collect(tmp_path).quality}
    assert got["whole"][0] is True and got["whole"][1].startswith("point value: the harness reports no sampling")
    assert got["part"] == (False, "f1_stderr,none is N/A in the file: no interval")
