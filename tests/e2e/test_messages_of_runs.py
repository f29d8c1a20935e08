"""A failed run names the file and says what to do, in words that fit the failure: a bad input is to be corrected,
a network failure is no bad input; steps and checks are named as tables and outcomes, never by Dagster's keys."""

import json
import re

from assets import sql_tables
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


def _offending_for(monkeypatch, check_name: str, sql: str) -> None:
    """A fault planted in one check: it selects the rows `sql` finds in the build (the others run as written)."""
    real = sql_tables.offending_rows

    def offending_rows(conn, check, serving_path):
        if check.name != check_name:
            return real(conn, check, serving_path)
        cursor = conn.execute(sql)
        return [d[0] for d in cursor.description], cursor.fetchall()

    monkeypatch.setattr(sql_tables, "offending_rows", offending_rows)


# Each of the two tests below is a whole `benchbill run` of one round table (about 13 s): what they specify is the
# run's exit status and last words, which only a whole run gives.
def test_a_check_that_fails_beside_the_publish_is_a_warning_of_that_publish_and_the_run_exits_0(
    tmp_path, capsys, monkeypatch
):
    _offending_for(monkeypatch, "flags_state_their_reason", "SELECT result_key FROM benchmark.mlperf_results LIMIT 1")
    warehouse = tmp_path / "warehouse"
    code = main(["run", "--mlperf", str(V51_TABLE), "--warehouse", str(warehouse)])
    out, err = (" ".join(stream.split()) for stream in capsys.readouterr())  # lines folded to the terminal, joined
    assert code == 0, err
    published_at = json.loads((warehouse / "published.json").read_text())["published_at"]
    assert err.endswith(
        f"benchbill: published at {published_at}; 1 check warns of it (each said above; the publish stands): "
        "check benchmark.mlperf_results flags_state_their_reason"
    )
    assert "warning: check benchmark.mlperf_results flags_state_their_reason: warned: 1 row breaks it" in out
    assert "run failed" not in err and "unchanged" not in err


def test_a_blocking_check_stops_the_publish_naming_the_table_the_rows_and_their_input(tmp_path, capsys, monkeypatch):
    _offending_for(
        monkeypatch, "one_row_per_result", "SELECT result_key, round FROM benchmark.mlperf_results ORDER BY 1 LIMIT 2"
    )
    warehouse = tmp_path / "warehouse"
    assert main(["run", "--mlperf", str(V51_TABLE), "--warehouse", str(warehouse)]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert "run failed; nothing is recorded as published yet" in err and not (warehouse / "serving.duckdb").exists()
    failed = err[err.index("check benchmark.mlperf_results one_row_per_result: failed: 2 rows break it") :]
    assert "the first 2: result_key=" in failed and ", round=v5.1 | result_key=" in failed
    assert f"from {V51_TABLE}" in failed and ADVICE["check"] in err and ADVICE["bug"] not in err
