"""A failed run names the file and says what to do, in words that fit the failure: a bad input is to be corrected,
a network failure is no bad input; steps and checks are named as tables and outcomes, never by Dagster's keys."""

import re

from assets.inputs import fetch
from pipelines.cli import main
from pipelines.failures import ADVICE
from tests.support.data import V51_TABLE
from tests.support.httpserver import ScriptedServer

STEP_KEY = re.compile(r"\b\w+__\w+\b|freshness_check_[0-9a-f]{8}")


def test_a_failed_run_names_the_file_and_what_to_do(tmp_path, capsys):
    missing = tmp_path / "nowhere" / "summary_results.json"
    assert main(["run", "--mlperf", str(missing), "--warehouse", str(tmp_path / "warehouse")]) == 1
    err = capsys.readouterr().err
    assert f"{missing}: no such file or folder" in err and ADVICE["input"] in err
    assert ADVICE["network"] not in err


def test_a_network_failure_says_to_check_the_network_not_to_correct_the_file(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(fetch, "ATTEMPTS", 2)
    monkeypatch.setattr(fetch, "BACKOFF_S", 0.01)
    with ScriptedServer() as server:
        server.respond("/summary_results.json", (503, {}, b"down for maintenance"))
        sources = tmp_path / "sources.yaml"
        sources.write_text(
            f"allowed_hosts: [127.0.0.1]\nrounds:\n  - round: v5.1\n    url: {server.url('/summary_results.json')}\n"
        )
        code = main(["run", "--sources", str(sources), "--warehouse", str(tmp_path / "warehouse")])
    err = capsys.readouterr().err
    assert code == 1
    step = (
        "building benchmark.mlperf_results, benchmark.mlperf_run_conditions and benchmark.mlperf_source_disagreements"
    )
    assert f"  {step} failed: " in err  # the summary line, in the warehouse's names
    assert "failed after 2 attempts; last problem: HTTP 503" in err
    assert ADVICE["network"] in err and ADVICE["input"] not in err
    assert "correct the file, URL or row" not in err


def test_a_run_says_each_step_and_each_check_in_words(tmp_path, capsys):
    code = main(["run", "--mlperf", str(V51_TABLE), "--warehouse", str(tmp_path / "warehouse")])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "- building marts.config_shortlist\n" in err
    assert "- building requirement.profiles and requirement.slo_bounds\n" in err
    assert "  check benchmark.mlperf_results one_row_per_result: passed\n" in err
    assert "  check publish.serving_duckdb freshness_check: passed\n" in err
    assert not STEP_KEY.findall(err.replace("benchbill", "")), STEP_KEY.findall(err)
