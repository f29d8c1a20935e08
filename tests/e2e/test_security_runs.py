"""Hostile paths end to end, a serving file nobody may write, and prompt and response texts stored only
when a run asks for it."""

import stat
from pathlib import Path

import duckdb

from assets.warehouse.parquet import export_parquet
from pipelines.cli import main
from tests.support.smallcase import HOSTILE, PLANTED, file_sha


def test_a_warehouse_and_inputs_below_a_hostile_folder_name_build_and_answer(small_case, capsys):
    """Every run of the small case already reads and writes below HOSTILE; the commands that read work too."""
    assert HOSTILE in str(small_case.reference) and "'" in HOSTILE and ";" in HOSTILE
    assert (
        main(
            [
                "sql",
                "SELECT count(*) AS n FROM benchmark.mlperf_results",
                "--format",
                "csv",
                "--warehouse",
                str(small_case.reference),
            ]
        )
        == 0
    )
    assert capsys.readouterr().out.strip().splitlines() == ["n", "24"]


def test_the_commands_that_read_work_on_a_serving_file_nobody_may_write(small_case, tmp_path, capsys):
    warehouse = small_case.copy_of(small_case.published, tmp_path / "warehouse")
    serving = warehouse / "serving.duckdb"
    serving.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    digest = file_sha(serving)
    assert main(["sql", "shortlist", "--param", "profile=chat-8b-interactive", "--warehouse", str(warehouse)]) == 0
    assert main(["report", "--warehouse", str(warehouse)]) == 0
    export_parquet(serving, tmp_path / "parquet")
    assert main(["sql", "CREATE TABLE benchmark.x AS SELECT 1", "--warehouse", str(warehouse)]) == 1
    assert "read-only" in capsys.readouterr().err
    assert file_sha(serving) == digest


# ---- prompt and response texts -----------------------------------------------------------------------


def text_columns(serving: Path) -> dict[str, int]:
    """Per table column of a text type: how many values hold the planted string."""
    conn = duckdb.connect(str(serving), read_only=True)
    try:
        columns = conn.execute(
            "SELECT schema_name, table_name, column_name FROM duckdb_columns() WHERE NOT internal "
            "AND data_type = 'VARCHAR' AND (schema_name, table_name) IN "
            "(SELECT schema_name, table_name FROM duckdb_tables())"
        ).fetchall()
        return {
            f"{s}.{t}.{c}": conn.execute(
                f'SELECT count(*) FROM "{s}"."{t}" WHERE "{c}" LIKE ?', [f"%{PLANTED}%"]
            ).fetchone()[0]
            for s, t, c in columns
        }
    finally:
        conn.close()


def files_holding(folder: Path, token: bytes) -> list[str]:
    return sorted(
        p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() and token in p.read_bytes()
    )


def test_prompt_and_response_texts_are_not_stored_unless_a_run_asks_for_them(small_case):
    # Run A had no --store-texts: the planted string is in no text column of any table (DuckDB
    # compresses strings, so the file's bytes alone would prove nothing), and in no byte of the
    # Parquet export, the report, the serving or the build file.
    published = small_case.published
    assert sum(text_columns(published / "serving.duckdb").values()) == 0
    assert sum(text_columns(published / "build.duckdb").values()) == 0
    token = PLANTED.encode()
    assert files_holding(published, token) == []
    with duckdb.connect(str(published / "serving.duckdb"), read_only=True) as conn:
        assert conn.execute("SELECT count(*) FROM observed.requests").fetchone()[0] == 36  # the requests are there
        assert conn.execute("SELECT count(*) FROM observed.request_texts").fetchone()[0] == 0
    # Run B asked for them: they are in observed.request_texts and nowhere else, and the Parquet byte
    # search finds them there (so it would have found them anywhere else).
    reference = small_case.reference
    holding = {column: n for column, n in text_columns(reference / "serving.duckdb").items() if n}
    assert holding == {"observed.request_texts.prompt_text": 24, "observed.request_texts.response_text": 36}
    exported = files_holding((reference / "parquet" / "current").resolve(), token)
    assert exported == ["observed/request_texts.parquet"]
