"""Long downloads show progress; failures name the file or URL and say what to do."""

import pytest

from assets import dumps
from assets.charts import linear_ticks, log_ticks
from assets.fetch import fetch_url, read_local
from assets.warehouse import IngestError
from pipelines.cli import main
from tests.httpserver import ScriptedServer


def test_a_long_download_reports_its_progress():
    lines = []
    body = b"[" + b"0," * (3 * 1024 * 1024 // 2) + b"0]"
    with ScriptedServer() as server:
        server.respond("/big.json", (200, {}, body))
        fetched = fetch_url(server.url("/big.json"), ["127.0.0.1"], progress=lines.append,
                            progress_step_bytes=1024 * 1024)
    assert fetched.data == body
    steps = [line for line in lines if line.startswith("downloading ")]
    assert len(steps) >= 2 and all("/big.json: " in line and " of 3.1 MB" in line for line in steps)
    assert lines[-1].startswith("fetched ")


def test_a_long_parse_of_a_dumps_folder_reports_its_progress(dumps_tree, monkeypatch):
    monkeypatch.setattr(dumps, "PROGRESS_EVERY_FILES", 5)
    monkeypatch.setattr(dumps, "LARGE_FILE_BYTES", 2048)  # the real stage reports (3.3 KB) count as large
    lines = []
    batch = dumps.collect_all([str(dumps_tree)], log=lines.append)
    files = len(batch.files)
    assert lines[0] == f"{dumps_tree}: {files} files, 0.1 MB"
    assert any(line.startswith("checksums of ") and " large files (" in line for line in lines)
    counts = [line for line in lines if line.startswith(f"{dumps_tree}: read ")]
    assert counts and counts[0] == f"{dumps_tree}: read 5 of {files} files"
    assert f"{dumps_tree}: 2 runs, 14 load points" in lines
    assert batch.runs and [r["run_label"] for r in batch.runs] == [r["run_label"] for r in
                                                                   dumps.collect_all([str(dumps_tree)]).runs]


def test_a_url_that_keeps_failing_says_what_to_do():
    with ScriptedServer() as server:
        server.respond("/t.json", (404, {}, b""))
        try:
            fetch_url(server.url("/t.json"), ["127.0.0.1"])
        except Exception as exc:  # noqa: BLE001 - the message is the specification
            message = str(exc)
    assert "/t.json: HTTP 404" in message and "pass the file with --mlperf FILE" in message


def test_a_failed_run_names_the_file_and_what_to_do(tmp_path, capsys):
    missing = tmp_path / "nowhere" / "summary_results.json"
    assert main(["run", "--mlperf", str(missing), "--warehouse", str(tmp_path / "warehouse")]) == 1
    err = capsys.readouterr().err
    assert f"{missing}: no such file or folder" in err and "What to do:" in err


def test_a_missing_input_file_says_where_relative_paths_start(tmp_path):
    with pytest.raises(IngestError, match=r"nowhere.csv: no such file or folder \(relative paths start from .*check"):
        read_local(tmp_path / "nowhere.csv")


def test_chart_ticks_are_round_numbers_covering_the_range():
    assert linear_ticks(0, 7000) == [0, 2000, 4000, 6000]
    assert log_ticks(20, 5000) == [20, 50, 100, 200, 500, 1000, 2000, 5000]
