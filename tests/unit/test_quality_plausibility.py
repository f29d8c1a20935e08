"""Plausibility of quality files: an absurd figure (a stderr of 1e308, n-shot 1e300, n-samples.effective 1e300, a
quality CSV n = 1e30, an exact-match score of -0.3, an accuracy of 1.2) is quarantined by name (file, task,
metric) while the rest of the file and the run publish; a results file too large to hold is read whole, not
skipped. Every file is written here, in tmp_path."""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
import pytest

from assets.inputs.files import LARGE_FILE_BYTES
from assets.runs.collect import collect
from assets.runs.quality import write_quality


def results(**tasks: dict) -> dict:
    """An lm-eval 0.4 results document of Qwen3-0.6B at bf16: gsm8k (a real-looking figure) and `tasks`."""
    return {
        "results": {
            "gsm8k": {"exact_match,strict-match": 0.4, "exact_match_stderr,strict-match": 0.0135},
            **{task: {"acc,none": 0.6, "acc_stderr,none": 0.01} for task in tasks},
        },
        "n-shot": {"gsm8k": 5, **{task: row.get("n-shot", 0) for task, row in tasks.items()}},
        "n-samples": {
            "gsm8k": {"original": 1319, "effective": 1319},
            **{task: {"original": 100, "effective": row.get("effective", 100)} for task, row in tasks.items()},
        },
        "config": {"model": "hf", "model_args": "pretrained=Qwen/Qwen3-0.6B,dtype=bfloat16"},
        "lm_eval_version": "0.4.9",
    }


def published(folder: Path, tmp_path: Path):
    """The batch of `folder`, and observed.quality and the quarantine as written (the step does not fail)."""
    batch = collect(folder)
    conn = duckdb.connect(str(tmp_path / "w.duckdb"))
    write_quality(conn, batch.quality, batch.quality_rejects, batch.quality_files)
    kept = conn.execute("SELECT task, metric, samples, n_shot FROM observed.quality ORDER BY task").fetchall()
    quarantined = conn.execute(
        "SELECT source, location, reason FROM audit.quarantine WHERE table_name = 'observed.quality'"
    ).fetchall()
    return kept, quarantined


@pytest.mark.parametrize(
    ("task", "reason"),
    [
        ({"n-shot": 1e300}, r"n-shot must be a whole number from 0 to 1000 \(got 1e\+300\)"),
        ({"effective": 1e300}, r"n-samples.effective must be a whole number from 1 to 1e\+09 \(got 1e\+300\)"),
    ],
    ids=["n-shot 1e300", "n-samples.effective 1e300"],
)
def test_an_absurd_count_quarantines_that_figure_by_name_and_the_rest_publishes(tmp_path, task, reason):
    path = tmp_path / "dumps" / "results.json"
    path.parent.mkdir()
    path.write_text(json.dumps(results(hellaswag=task)))
    kept, quarantined = published(tmp_path / "dumps", tmp_path)
    assert kept == [("gsm8k", "exact_match,strict-match", 1319, 5)]
    [(source, location, why)] = quarantined
    assert (source, location) == (str(path), "results.hellaswag.acc,none")
    assert "task 'hellaswag' metric 'acc,none'" in why
    assert re.search(reason, why), why


# lm-eval figures whose value is outside their metric's range (id: metric key, value).
OUT_OF_RANGE_VALUES = {
    "exact match -0.3": ("exact_match,strict-match", -0.3),
    "accuracy 1.5": ("acc,none", 1.5),
    "bleu -1": ("bleu,none", -1.0),
}


@pytest.mark.parametrize(("metric", "value"), OUT_OF_RANGE_VALUES.values(), ids=list(OUT_OF_RANGE_VALUES))
def test_a_value_outside_its_metrics_range_quarantines_that_figure_by_name(tmp_path, metric, value):
    doc = results(hellaswag={})
    doc["results"]["hellaswag"] = {metric: value, metric.replace(",", "_stderr,"): 0.01}
    path = tmp_path / "dumps" / "results.json"
    path.parent.mkdir()
    path.write_text(json.dumps(doc))
    kept, quarantined = published(tmp_path / "dumps", tmp_path)
    assert kept == [("gsm8k", "exact_match,strict-match", 1319, 5)]
    [(source, location, why)] = quarantined
    assert (source, location) == (str(path), f"results.hellaswag.{metric}")
    assert f"task 'hellaswag' metric {metric!r}: value {value:g} is outside the range of {metric.split(',')[0]}" in why


def test_a_stderr_of_1e308_never_outranks_the_real_figure(tmp_path):
    real = results()
    absurd = results()
    absurd["results"]["gsm8k"]["exact_match_stderr,strict-match"] = 1e308
    absurd["n-samples"]["gsm8k"] = {"original": 1319, "effective": 1000000}
    for name, doc in (("real", real), ("absurd", absurd)):
        (tmp_path / "dumps" / name).mkdir(parents=True)
        (tmp_path / "dumps" / name / "results.json").write_text(json.dumps(doc))
    kept, quarantined = published(tmp_path / "dumps", tmp_path)
    assert kept == [("gsm8k", "exact_match,strict-match", 1319, 5)]  # the real file's
    [(source, location, why)] = quarantined
    assert ("absurd" in source, location) == (True, "results.gsm8k.exact_match,strict-match")
    assert "stderr 1e+308 is larger than a fraction's range, 1" in why


# Quality CSV rows whose figure is absurd (id: row, the reason's pattern); the first three have absurd counts or
# stderrs, OUT_OF_RANGE_ROWS values outside their metric's range (docs/reliability.md counts these with
# OUT_OF_RANGE_VALUES).
ABSURD_ROWS = {
    "n 1e30": ("gsm8k,acc,0.4,0.01,1e30", r"n \(documents\) must be a whole number from 1 to 1e\+09 \(got 1e\+30\)"),
    "stderr 1e308": ("gsm8k,acc,0.4,1e308,100", r"stderr '1e308': stderr 1e\+308 is larger than a fraction's range"),
    "stderr wider than a perplexity": (
        "wikitext,word_perplexity,12.5,40,62",
        r"stderr 40 is larger than the value itself, 12.5",
    ),
}
OUT_OF_RANGE_ROWS = {
    "exact match -0.3": (
        "gsm8k,exact_match,-0.3,0.01,1319",
        r"value -0.3 is outside the range of exact_match: it must be a number from 0 to 1",
    ),
    "accuracy 1.2": (
        "arc,acc_norm,1.2,0.01,100",
        r"value 1.2 is outside the range of acc_norm: it must be a number from 0 to 1",
    ),
    "f1 above 100": (
        "squadv2,f1,130,1,100",
        r"value 130 is outside the range of f1: it must be a number from 0 to 100",
    ),
    "pass@1 of 2": (
        "humaneval,pass@1,2,0.01,164",
        r"value 2 is outside the range of pass@1: it must be a number from 0 to 1",
    ),
    "perplexity below 1": (
        "wikitext,word_perplexity,0.5,,62",
        r"value 0.5 is outside the range of word_perplexity: it must be at least 1",
    ),
}


@pytest.mark.parametrize(
    ("row", "reason"), [*ABSURD_ROWS.values(), *OUT_OF_RANGE_ROWS.values()], ids=[*ABSURD_ROWS, *OUT_OF_RANGE_ROWS]
)
def test_a_quality_csv_row_with_an_absurd_figure_is_quarantined_by_line_task_and_metric(tmp_path, row, reason):
    path = tmp_path / "dumps" / "q.csv"
    path.parent.mkdir()
    path.write_text(
        f"model,precision,task,metric,value,stderr,n\nQwen/Qwen3-0.6B,bf16,mmlu,acc,0.6,0.004,14042\nQwen/Qwen3-0.6B,bf16,{row}\n"
    )
    kept, quarantined = published(tmp_path / "dumps", tmp_path)
    assert kept == [("mmlu", "acc", 14042, None)]
    [(_source, location, why)] = quarantined
    assert location == "line 3" and f"task '{row.split(',')[0]}'" in why
    assert re.search(reason, why), why


def test_a_results_file_too_large_to_hold_is_read_whole_not_skipped(tmp_path):
    many = results(**{f"task_{i:05d}": {} for i in range(2000)})
    configs = {f"task_{i:05d}": {"description": "x" * 9000} for i in range(2000)}  # what makes such files large
    doc = {"results": many.pop("results"), "configs": configs, **many}  # lm-eval's order: config past the head
    path = tmp_path / "dumps" / "results_2026-12-01T00-00-00.json"
    path.parent.mkdir()
    path.write_text(json.dumps(doc))
    assert path.stat().st_size > LARGE_FILE_BYTES
    batch = collect(tmp_path / "dumps")
    assert [(f.status, f.rows) for f in batch.quality_files] == [("read", 2001)]
    assert len(batch.quality) == 2001 and batch.quality_rejects == []
