"""Long downloads show progress; a missing input says where relative paths start; chart ticks are round."""

import pytest

from assets.core.errors import IngestError
from assets.inputs.fetch import fetch_url
from assets.inputs.files import read_local
from assets.report.charts import linear_ticks, log_ticks
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
