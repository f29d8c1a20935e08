"""The analyst surface's descriptions: every pandera model describes its table and columns, the audit
tables come from their models, view headers describe or lend every column."""

import duckdb
import pytest

from assets.warehouse import sqldoc
from assets.warehouse.views import create_views
from assets.warehouse.write import audit_ddl, describe_table
from schemas.audit.quarantine import Quarantine
from schemas.audit.source_files import SourceFiles
from tests.support.published_columns import all_models


def test_every_model_has_a_docstring_and_every_field_a_description():
    models = all_models()
    assert len(models) >= 29
    for model in models:
        schema = model.to_schema()
        assert (model.__dict__.get("__doc__") or "").strip(), model.__name__
        assert [n for n, c in schema.columns.items() if not (c.description or "").strip()] == [], model.__name__


def test_audit_tables_are_described_by_their_models():
    conn = duckdb.connect()
    conn.execute(audit_ddl())
    for table, model in (("audit.quarantine", Quarantine), ("audit.source_files", SourceFiles)):
        schema, name = table.split(".")
        columns = [
            r[0]
            for r in conn.execute(
                "SELECT column_name FROM duckdb_columns() WHERE schema_name = ? "
                "AND table_name = ? ORDER BY column_index",
                [schema, name],
            ).fetchall()
        ]
        assert columns == list(model.to_schema().columns), table
        describe_table(conn, table, model)
    comment = conn.execute(
        "SELECT comment FROM duckdb_columns() WHERE table_name = 'quarantine' AND column_name = 'reason'"
    ).fetchone()[0]
    assert comment == Quarantine.to_schema().columns["reason"].description


def test_view_headers_say_what_the_view_is_and_lend_or_describe_each_column(tmp_path):
    (tmp_path / "v.sql").write_text(
        "-- analytics.v: doubled values\n-- of t.\n--\n-- Columns described on: s.t\n"
        "-- column doubled: a times two.\nSELECT a, a * 2 AS doubled, b FROM s.t\n"
    )
    doc = sqldoc.read(tmp_path / "v.sql")
    assert doc.description == "doubled values of t."
    assert doc.described_on == ["s.t"] and doc.columns == {"doubled": "a times two."}
    (tmp_path / "q.sql").write_text("-- A query.\nSELECT $who\n")
    with pytest.raises(sqldoc.SqlDocProblem, match=r"q.sql: parameters \['who'\] are used but not declared"):
        sqldoc.read(tmp_path / "q.sql")


def test_a_view_column_nobody_describes_is_reported(tmp_path, monkeypatch):
    views = tmp_path / "analytics"
    views.mkdir()
    (views / "v.sql").write_text(
        "-- analytics.v: a view.\n--\n-- Columns described on: s.t\nSELECT a, a + 1 AS mystery FROM s.t\n"
    )
    monkeypatch.setattr(sqldoc, "VIEWS_DIR", views)
    conn = duckdb.connect()
    conn.execute("CREATE SCHEMA s; CREATE TABLE s.t (a INT); COMMENT ON COLUMN s.t.a IS 'the a'")
    assert create_views(conn) == {"analytics.v": ["mystery"]}
    assert (
        conn.execute("SELECT comment FROM duckdb_columns() WHERE table_name = 'v' AND column_name = 'a'").fetchone()[0]
        == "the a"
    )


def test_unknown_names_lists_each_raw_name_no_alias_knows_with_its_rows():
    conn = duckdb.connect()
    conn.execute(
        """
        CREATE SCHEMA benchmark; CREATE SCHEMA observed; CREATE SCHEMA requirement;
        CREATE TABLE benchmark.mlperf_results AS SELECT * FROM (VALUES
            ('r1', 'NVIDIA H100-SXM-80GB', true, 'llama3.1-8b', true, 'fp8', 'fp8'),
            ('r2', 'Jetson Thor', false, 'llama3.1-8b', true, 'fp8', 'fp8'),
            ('r3', 'Jetson Thor', false, 'mystery-model', false, 'UNSET', NULL),
            ('r4', NULL, false, 'resnet', true, NULL, NULL))
            AS t(result_key, accelerator_raw, accelerator_known, mlperf_model, model_known, precision_raw, precision);
        CREATE TABLE observed.runs AS SELECT * FROM (VALUES
            ('run-a', 'H100', true, 'Llama-3.1-8B', true, 'bf16', true),
            ('run-b', 'Gaudi9', false, 'my-finetune', false, 'fp3', false))
            AS t(run_label, accelerator_raw, accelerator_known, model_raw, model_known, precision_raw, precision_known);
        CREATE TABLE benchmark.accelerator_prices AS SELECT * FROM (VALUES
            ('Gaudi9', false, 'a price list'), ('H100-SXM', true, 'another'))
            AS t(accelerator_raw, accelerator_known, price_source);
        CREATE TABLE requirement.profiles AS SELECT * FROM (VALUES ('chat', 'Llama-3.1-8B', true))
            AS t(profile, model_raw, model_known);
        CREATE TABLE observed.quality AS SELECT * FROM (VALUES
            ('chat-3b', 'acme/chat-3b', false),
            ('chat-3b', 'acme/chat-3b', false),
            ('qwen3-0.6b', 'Qwen/Qwen3-0.6B', true))
            AS t(model, model_raw, model_known);
        """
    )
    rows = conn.execute(sqldoc.read(sqldoc.VIEWS_DIR / "unknown_names.sql").sql).fetchall()
    assert rows == [
        ("accelerator", "Jetson Thor", "benchmark.mlperf_results", 2, "r2", "accelerator_aliases.csv"),
        ("accelerator", "Gaudi9", "benchmark.accelerator_prices", 1, "a price list", "accelerator_aliases.csv"),
        ("accelerator", "Gaudi9", "observed.runs", 1, "run-b", "accelerator_aliases.csv"),
        ("model", "acme/chat-3b", "observed.quality", 2, "chat-3b", "model_aliases.csv"),
        ("model", "my-finetune", "observed.runs", 1, "run-b", "model_aliases.csv"),
        ("model", "mystery-model", "benchmark.mlperf_results", 1, "r3", "model_aliases.csv"),
        ("precision", "UNSET", "benchmark.mlperf_results", 1, "r3", "precisions.csv"),
        ("precision", "fp3", "observed.runs", 1, "run-b", "precisions.csv"),
    ]
