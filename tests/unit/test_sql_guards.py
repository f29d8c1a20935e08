"""`benchbill sql` and `benchbill shell` cannot write anything anywhere: not the serving file, not a file beside
it, not the dump files its views read in place, no database attached, no extension installed, no shell
command run. CSV output is RFC 4180 by the csv module, with formulas neutralised for spreadsheet users."""

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from pipelines import query
from pipelines.cli import main
from tests.support.data import REPO_ROOT


@pytest.fixture
def warehouse(tmp_path) -> Path:
    """A serving file like a published one: a table, and a view reading a dump file in place."""
    folder = tmp_path / "warehouse"
    folder.mkdir()
    dump = tmp_path / "dumps" / "requests.csv"
    dump.parent.mkdir()
    dump.write_text("ttft_ms,e2e_ms\n12.5,100\n")
    with duckdb.connect(str(folder / "serving.duckdb")) as conn:
        conn.execute("CREATE SCHEMA analytics; CREATE SCHEMA observed")
        conn.execute("CREATE TABLE analytics.shortlist AS SELECT 'h100' AS accelerator_id, 1.5 AS usd")
        conn.execute(f"CREATE VIEW observed.requests AS SELECT * FROM read_csv('{dump}', header = true)")
    return folder


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


WRITES = {
    "COPY TO a new file": "COPY (SELECT 1) TO '{tmp}/out.csv'",
    "COPY over the dump read in place": "COPY (SELECT 9 AS ttft_ms) TO '{tmp}/dumps/requests.csv' (USE_TMP_FILE false)",
    "a write after a read": "SELECT 1; COPY (SELECT 1) TO '{tmp}/out.csv'",
    "EXPORT DATABASE": "EXPORT DATABASE '{tmp}/export'",
    "ATTACH a new database": "ATTACH '{tmp}/new.duckdb' AS scratch",
    "INSTALL an extension": "INSTALL httpfs",
    "LOAD an extension": "LOAD httpfs",
    "INSERT into a table": "INSERT INTO analytics.shortlist VALUES ('x', 0)",
    "CREATE a table": "CREATE TABLE analytics.scratch AS SELECT 1",
    "a TEMP table": "CREATE TEMP TABLE scratch AS SELECT 1",
    "SET turning access back on": "SET enable_external_access = true",
    "CHECKPOINT": "FORCE CHECKPOINT",
    "reading a file no view reads": "SELECT * FROM read_text('/etc/passwd')",
    "reading a URL": "SELECT * FROM read_csv('https://example.com/x.csv')",
}


@pytest.mark.parametrize("what", WRITES)
def test_benchbill_sql_refuses_every_write_with_a_clear_message(warehouse, tmp_path, what, capsys):
    before = snapshot(tmp_path)
    statement = WRITES[what].format(tmp=tmp_path)
    assert main(["sql", statement, "--warehouse", str(warehouse)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("benchbill sql: refused: "), err
    assert "Traceback" not in err
    assert snapshot(tmp_path) == before


def test_reading_still_works_also_the_files_the_views_read_in_place(warehouse, capsys):
    assert main(["sql", "SELECT * FROM observed.requests", "--warehouse", str(warehouse), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == [{"ttft_ms": 12.5, "e2e_ms": 100}]
    for statement in (
        "SHOW TABLES",
        "DESCRIBE analytics.shortlist",
        "EXPLAIN SELECT 1",
        "SUMMARIZE analytics.shortlist",
    ):
        assert main(["sql", statement, "--warehouse", str(warehouse)]) == 0, statement


def test_benchbill_shell_runs_reads_and_refuses_writes_and_dot_commands(warehouse, tmp_path):
    before = snapshot(tmp_path)
    session = "\n".join(
        [
            "SELECT accelerator_id FROM analytics.shortlist;",
            *(WRITES[what].format(tmp=tmp_path) + ";" for what in WRITES),
            f".shell touch {tmp_path}/pwned",
            f".system touch {tmp_path}/pwned",
            f".output {tmp_path}/out.txt",
            f".log {tmp_path}/log.txt",
            f".save {tmp_path}/copy.duckdb",
            "SELECT 42 AS answer;",
        ]
    )
    done = subprocess.run(
        [sys.executable, "-m", "pipelines.cli", "shell", "--warehouse", str(warehouse)],
        cwd=REPO_ROOT,
        input=session,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HOME": str(tmp_path / "home")},
    )
    assert done.returncode == 0, done.stderr
    assert "h100" in done.stdout and "42" in done.stdout
    refused = [line for line in done.stderr.splitlines() if line.startswith("benchbill shell: refused")]
    assert len(refused) == len(WRITES)
    assert done.stdout.count("refused: .") == 5  # the dot commands
    assert snapshot(tmp_path) == before
    assert not (tmp_path / "home").exists()


def parsed_csv(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def test_csv_cells_holding_a_bare_carriage_return_are_quoted():
    text = query.render(["note", "n"], [("line one\rline two", 1), ("a\nb", 2), ('say "hi", twice', 3)], "csv")
    assert text == 'note,n\r\n"line one\rline two",1\r\n"a\nb",2\r\n"say ""hi"", twice",3\r\n'
    assert parsed_csv(text) == [["note", "n"], ["line one\rline two", "1"], ["a\nb", "2"], ['say "hi", twice', "3"]]


def test_csv_text_that_a_spreadsheet_would_run_is_neutralised_numbers_are_not():
    rows = [
        ('=HYPERLINK("http://x")', -1.5),
        ("+cmd|' /C calc'!A0", -2),
        ("-2+3", 0.0),
        ("@SUM(A1)", None),
        ("\tx", 1),
        ("\rx", 1),
        ("-1.5", 1),
        ("h100", 1),
    ]
    cells = parsed_csv(query.render(["cell", "number"], rows, "csv"))[1:]
    assert [c[0] for c in cells] == [
        '\'=HYPERLINK("http://x")',
        "'+cmd|' /C calc'!A0",
        "'-2+3",
        "'@SUM(A1)",
        "'\tx",
        "'\rx",
        "-1.5",
        "h100",
    ]
    assert [c[1] for c in cells] == ["-1.5", "-2", "0.0", "", "1", "1", "1", "1"]
    # JSON keeps exact values
    assert [r["cell"] for r in json.loads(query.render(["cell", "number"], rows, "json"))] == [r[0] for r in rows]
