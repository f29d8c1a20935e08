"""A serving file published by an earlier benchbill, without a view this version's report reads, gets a message
naming what is missing and what to do; the report published beside it stays as it was."""

import inspect
import re

import duckdb
import pytest

from assets.report.report_data import read_report_data
from assets.report.serving_tables import REPORT_TABLES, ServingFileTooOld, require_report_tables
from pipelines.cli import main


def _serving_file(path, without: set[str]) -> None:
    """A serving file holding every table the report reads, as empty views, except `without`."""
    with duckdb.connect(str(path)) as conn:
        for table in REPORT_TABLES:
            schema, _name = table.split(".")
            conn.execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")
            if table not in without:
                conn.execute(f"CREATE VIEW {table} AS SELECT 1 AS x WHERE false")


def test_every_table_the_report_reads_is_in_the_list_it_checks():
    read = set(re.findall(r"FROM ([a-z_]+\.[a-z_]+)", inspect.getsource(read_report_data)))
    assert read and read <= set(REPORT_TABLES)


def test_a_serving_file_with_every_table_passes(tmp_path):
    path = tmp_path / "serving.duckdb"
    _serving_file(path, without=set())
    with duckdb.connect(str(path), read_only=True) as conn:
        require_report_tables(conn, str(path))


def test_a_serving_file_without_a_view_the_report_reads_is_named_with_the_view(tmp_path):
    path = tmp_path / "serving.duckdb"
    _serving_file(path, without={"analytics.cost_sensitivity"})
    with duckdb.connect(str(path), read_only=True) as conn, pytest.raises(ServingFileTooOld) as raised:
        require_report_tables(conn, str(path))
    message = str(raised.value)
    assert str(path) in message and "analytics.cost_sensitivity" in message and "benchbill run" in message
    assert "analytics.shortlist," not in message  # only what is missing


def test_the_report_command_says_it_and_keeps_the_published_report(tmp_path, capsys):
    _serving_file(tmp_path / "serving.duckdb", without={"analytics.cost_sensitivity", "analytics.measure_next"})
    published = tmp_path / "report.html"
    published.write_text("<html>the report published with this serving file</html>", encoding="utf-8")
    assert main(["report", "--warehouse", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "analytics.cost_sensitivity, analytics.measure_next" in err and "earlier benchbill" in err
    assert "Traceback" not in err
    assert published.read_text(encoding="utf-8") == "<html>the report published with this serving file</html>"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no staging file left behind
