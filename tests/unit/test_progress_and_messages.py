"""Long downloads show progress; a missing input says where relative paths start; chart ticks are round; steps,
checks and failures are said in words; colour only on a terminal."""

import io
import sys

import dagster as dg
import duckdb
import pytest
from dagster._utils.error import SerializableErrorInfo

from assets.core.errors import IngestError, NetworkError
from assets.inputs.fetch import fetch_url
from assets.inputs.files import read_local
from assets.report.charts import linear_ticks, log_ticks
from pipelines import query, settings
from pipelines.definitions import defs
from pipelines.failures import FAILURE_KINDS, failure_of
from pipelines.progress import check_words, console_logger, failure_cause, skipped_words, step_words
from tests.support.httpserver import ScriptedServer


def test_a_long_download_reports_its_progress():
    lines = []
    body = b"[" + b"0," * (3 * 1024 * 1024 // 2) + b"0]"
    with ScriptedServer() as server:
        server.respond("/big.json", (200, {}, body))
        fetched = fetch_url(
            server.url("/big.json"), ["127.0.0.1"], progress=lines.append, progress_step_bytes=1024 * 1024
        )
    assert fetched.data == body
    steps = [line for line in lines if line.startswith("downloading ")]
    assert len(steps) >= 2 and all("/big.json: " in line and " of 3.1 MB" in line for line in steps)
    assert lines[-1].startswith("fetched ")


def test_a_url_that_keeps_failing_says_what_to_do():
    with ScriptedServer() as server:
        server.respond("/t.json", (404, {}, b""))
        try:
            fetch_url(server.url("/t.json"), ["127.0.0.1"])
        except Exception as exc:  # noqa: BLE001 - the message is the specification
            message = str(exc)
    assert "/t.json: HTTP 404" in message and "pass the file with --mlperf FILE" in message


def test_a_missing_input_file_says_where_relative_paths_start(tmp_path):
    with pytest.raises(IngestError, match=r"nowhere.csv: no such file or folder \(relative paths start from .*check"):
        read_local(tmp_path / "nowhere.csv")


def test_chart_ticks_are_round_numbers_covering_the_range():
    assert linear_ticks(0, 7000) == [0, 2000, 4000, 6000]
    assert log_ticks(20, 5000) == [20, 50, 100, 200, 500, 1000, 2000, 5000]


BUILD = defs.resolve_job_def("build_warehouse")


@pytest.mark.parametrize(
    "step, words",
    [
        ("marts__config_shortlist", "building marts.config_shortlist"),
        ("profiles", "building requirement.profiles and requirement.slo_bounds"),
        ("observed_runs", "building observed.measurements, observed.quality and 8 more"),
        ("publish__serving_duckdb_freshness_check", "check publish.serving_duckdb freshness_check"),
        ("cost__cost_per_request_band_ordered", "check cost.cost_per_request band_ordered"),
    ],
)
def test_a_step_is_named_by_the_tables_it_builds_or_the_check_it_runs(step, words):
    assert step_words(BUILD, step) == words


def test_every_step_of_every_job_has_words_that_are_not_its_key():
    for job in defs.jobs:
        resolved = defs.resolve_job_def(job.name)
        for step in resolved.graph.node_dict:
            assert step_words(resolved, step) != step, (job.name, step)


def _evaluation(passed: bool, severity: dg.AssetCheckSeverity, description: str | None) -> dg.AssetCheckEvaluation:
    return dg.AssetCheckEvaluation(
        asset_key=dg.AssetKey(["benchmark", "mlperf_results"]),
        check_name="row_count_per_round",
        passed=passed,
        severity=severity,
        description=description,
        metadata={"offending_rows": dg.MetadataValue.int(2)},
    )


def test_a_check_outcome_is_said_in_words():
    said = check_words(_evaluation(True, dg.AssetCheckSeverity.WARN, "passed: whatever"))
    assert said == "check benchmark.mlperf_results row_count_per_round: passed"
    said = check_words(_evaluation(False, dg.AssetCheckSeverity.WARN, "warned: 2 rows break it (sql/x.sql)"))
    assert said == "check benchmark.mlperf_results row_count_per_round: warned: 2 rows break it (sql/x.sql)"
    said = check_words(_evaluation(False, dg.AssetCheckSeverity.ERROR, None))
    assert said == "check benchmark.mlperf_results row_count_per_round: failed: 2 offending rows"


def test_dagster_skipped_steps_are_said_in_words():
    said = skipped_words(
        BUILD, "Dependencies for step marts__config_shortlist failed: ['cost__cost_per_request']. Not executing."
    )
    assert said == "building marts.config_shortlist: not run, because building cost.cost_per_request failed"
    assert skipped_words(BUILD, "round v5.1: 1448 results") is None


def test_a_step_after_one_that_failed_and_ones_that_did_not_run_names_each_list_apart():
    """Dagster writes both lists in one line, with no stop between them: each key is one step, never a mix."""
    said = skipped_words(
        BUILD,
        "Dependencies for step marts__config_shortlist failed: ['cost__cost_per_request'] were not executed: "
        "['marts__capacity_plan', 'marts__quality_gate']. Not executing.",
    )
    assert said == (
        "building marts.config_shortlist: not run, because building cost.cost_per_request failed; "
        "building marts.capacity_plan and building marts.quality_gate did not run"
    )
    said = skipped_words(
        BUILD,
        "Dependencies for step marts__config_shortlist were not executed: ['marts__quality_gate']. Not executing.",
    )
    assert said == "building marts.config_shortlist: not run, because building marts.quality_gate did not run"


def test_a_failure_is_told_by_its_class_without_the_class_in_its_words():
    error = SerializableErrorInfo(
        "dagster._core.errors.DagsterExecutionStepExecutionError: Error occurred while executing op",
        [],
        "DagsterExecutionStepExecutionError",
        cause=SerializableErrorInfo(
            "assets.core.errors.NetworkError: http://h/x.json: failed after 4 attempts\n", [], "NetworkError"
        ),
    )
    assert failure_cause(error) == ("NetworkError", "http://h/x.json: failed after 4 attempts")
    assert FAILURE_KINDS["NetworkError"] == "network" and failure_of(NetworkError("x")).kind == "network"
    assert failure_of(IngestError("x")).kind == "input" and failure_of(KeyError("x")).kind == "bug"


class _Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize("tty, no_color, coloured", [(True, "", True), (True, "1", False), (False, "", False)])
def test_colour_only_on_a_terminal_without_no_color(monkeypatch, tty, no_color, coloured):
    monkeypatch.setenv("NO_COLOR", no_color)
    stream = _Stream(tty)
    assert settings.colour(stream) is coloured
    monkeypatch.setattr(sys, "stderr", stream)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: tty)  # Dagster's colours also ask whether stdout is a terminal
    log = console_logger.logger_fn(dg.build_init_logger_context(logger_config={"log_level": "INFO", "name": "t"}))
    log.warning("a warning")
    assert ("\x1b[" in stream.getvalue()) is coloured and "a warning" in stream.getvalue()


def test_the_shell_writes_only_results_to_a_pipe_even_from_a_terminal(tmp_path, monkeypatch, capsys):
    serving = tmp_path / "serving.duckdb"
    duckdb.connect(str(serving)).close()
    monkeypatch.setattr(sys, "stdin", _Stream(True))
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False)
    lines = iter(["SELECT 42 AS answer;"])

    def read_line(prompt: str) -> str:
        assert prompt == ""  # the prompt went to stderr
        line = next(lines, None)
        if line is None:
            raise EOFError
        return line

    assert query.shell(serving, read_line) == 0
    out, err = capsys.readouterr()
    assert out == "answer\n------\n42\n(1 row)\n" and "\x1b" not in out
    assert err.startswith(query.SHELL_HELP) and "benchbill> " in err


def test_ctrl_c_in_the_shell_drops_the_half_typed_statement_and_ctrl_d_leaves(tmp_path, monkeypatch, capsys):
    serving = tmp_path / "serving.duckdb"
    duckdb.connect(str(serving)).close()
    monkeypatch.setattr(sys, "stdin", _Stream(True))
    typed = iter(["SELECT 1", KeyboardInterrupt(), "SELECT 42 AS answer;", EOFError()])

    def read_line(_prompt: str) -> str:
        line = next(typed)
        if isinstance(line, BaseException):
            raise line
        return line

    assert query.shell(serving, read_line) == 0
    out, err = capsys.readouterr()
    assert "answer" in out and "42" in out and "(1 row)" in out and out.count("row)") == 1  # SELECT 1 never ran
    assert "^C (statement dropped; Ctrl-D or .quit leaves)" in err
