"""The analyst surface of the serving file: documented views per evidence class, a comment on
every table, view and column (from one place), quarantine and provenance visible."""

import importlib
import inspect
import pkgutil
from pathlib import Path

import duckdb
import pandera.polars as pa
import pytest

import schemas
from assets import sqldoc
from assets.analytics import create_views
from assets.warehouse import _AUDIT_DDL, describe_table
from pipelines.resources import DEFAULT_PRICES
from schemas.quarantine import Quarantine
from schemas.source_files import SourceFiles

OUR_SCHEMAS = ("analytics", "audit", "benchmark", "requirement", "observed", "projected", "cost", "marts")


def serving(warehouse: Path) -> duckdb.DuckDBPyConnection:
    return duckdb.connect(str(warehouse / "serving.duckdb"), read_only=True)


def all_models() -> list[type[pa.DataFrameModel]]:
    models = []
    for module in pkgutil.iter_modules(schemas.__path__):
        loaded = importlib.import_module(f"schemas.{module.name}")
        models += [obj for _n, obj in inspect.getmembers(loaded, inspect.isclass)
                   if issubclass(obj, pa.DataFrameModel) and obj.__module__ == loaded.__name__]
    return models


def test_every_table_view_and_column_in_the_serving_file_has_a_comment(published):
    with serving(published) as conn:
        relations = conn.execute(
            "SELECT schema_name, table_name, comment FROM duckdb_tables() UNION ALL "
            "SELECT schema_name, view_name, comment FROM duckdb_views() WHERE NOT internal").fetchall()
        columns = conn.execute(
            "SELECT schema_name, table_name, column_name, comment FROM duckdb_columns() "
            "WHERE schema_name IN ? AND NOT internal", [list(OUR_SCHEMAS)]).fetchall()
    assert len(relations) >= 26 and len(columns) > 400
    assert [r for r in relations if r[0] not in OUR_SCHEMAS] == []
    assert [f"{s}.{t}" for s, t, c in relations if not (c or "").strip()] == []
    assert [f"{s}.{t}.{c}" for s, t, c, comment in columns if not (comment or "").strip()] == []


def test_every_model_has_a_docstring_and_every_field_a_description():
    models = all_models()
    assert len(models) >= 12
    for model in models:
        schema = model.to_schema()
        assert (model.__dict__.get("__doc__") or "").strip(), model.__name__
        assert [n for n, c in schema.columns.items() if not (c.description or "").strip()] == [], model.__name__


def test_audit_tables_are_described_by_their_models():
    conn = duckdb.connect()
    conn.execute(_AUDIT_DDL)
    for table, model in (("audit.quarantine", Quarantine), ("audit.source_files", SourceFiles)):
        schema, name = table.split(".")
        columns = [r[0] for r in conn.execute("SELECT column_name FROM duckdb_columns() WHERE schema_name = ? "
                                              "AND table_name = ? ORDER BY column_index", [schema, name]).fetchall()]
        assert columns == list(model.to_schema().columns), table
        describe_table(conn, table, model)
    comment = conn.execute("SELECT comment FROM duckdb_columns() WHERE table_name = 'quarantine' "
                           "AND column_name = 'reason'").fetchone()[0]
    assert comment == Quarantine.to_schema().columns["reason"].description


def test_views_cover_every_evidence_class_the_shortlist_quarantine_and_provenance(published):
    with serving(published) as conn:
        views = {r[0] for r in conn.execute(
            "SELECT view_name FROM duckdb_views() WHERE schema_name = 'analytics'").fetchall()}
        evidence = {view: {r[0] for r in conn.execute(f"SELECT DISTINCT evidence FROM analytics.{view}").fetchall()}
                    for view in ("mlperf_results", "accelerator_prices", "profiles", "load_points",
                                 "delivered_at_slo", "shortlist")}
        shortlist_rows = conn.execute("SELECT count(*) FROM marts.config_shortlist").fetchone()[0]
        view_rows = conn.execute("SELECT count(*) FROM analytics.shortlist").fetchone()[0]
    assert {"shortlist", "shortlist_sources", "quarantine", "source_files", "mlperf_results", "mlperf_reference",
            "accelerator_prices", "profiles", "slo_bounds", "runs", "load_points", "delivered_at_slo",
            "cost_per_request", "mlperf_round_over_round", "traffic_shape"} <= views
    assert evidence == {"mlperf_results": {"benchmark"}, "accelerator_prices": {"benchmark"},
                        "profiles": {"requirement"}, "load_points": {"observed"},
                        "delivered_at_slo": {"observed", "projected"}, "shortlist": {"observed", "projected"}}
    assert view_rows == shortlist_rows


def test_quarantined_rows_are_visible_with_their_reason(published):
    with serving(published) as conn:
        rows = conn.execute("SELECT table_name, location, reason FROM analytics.quarantine").fetchall()
    line = len(DEFAULT_PRICES.read_text().splitlines()) + 1
    assert rows == [("benchmark.accelerator_prices", f"line {line}",
                     "usd_per_accelerator_hour 'not-a-number' is not a number")]


def test_each_shortlist_number_names_its_sources(published):
    with serving(published) as conn:
        cursor = conn.execute(
            "SELECT s.*, l.mlperf_server_tokens_per_s_per_accel AS reference FROM analytics.shortlist_sources AS s "
            "JOIN (SELECT DISTINCT profile, config_key, mlperf_server_tokens_per_s_per_accel "
            "      FROM marts.config_shortlist) AS l USING (profile, config_key) "
            "WHERE s.run_label = 'vllm'")
        names = [d[0] for d in cursor.description]
        rows = [dict(zip(names, r)) for r in cursor.fetchall()]
    server = [r for r in rows if r["number"] == "MLPerf Server tokens/s per accelerator"]
    assert server and all(r["value"] == r["reference"] == 5103.99 for r in server)
    assert {(r["round"], r["submitter"], r["number_evidence"]) for r in server} == {("v5.1", "RedHat", "benchmark")}
    assert all(r["source"].endswith("v5.1/summary_results.json") and r["location"].startswith("record ")
               for r in server)
    points = [r for r in rows if r["number"].startswith("load point")]
    assert {r["number_evidence"] for r in points} == {"observed"}
    assert all("lifecycle_metrics.json" in r["source"] and len(r["source_sha256"]) == 64 for r in points)
    prices = [r for r in rows if r["number"].startswith("price:")]
    assert prices and all(r["location"].startswith("line ") and r["source"].endswith("prices.csv") for r in prices)


def test_view_headers_say_what_the_view_is_and_lend_or_describe_each_column(tmp_path):
    (tmp_path / "v.sql").write_text(
        "-- analytics.v: doubled values\n-- of t.\n--\n-- Columns described on: s.t\n"
        "-- column doubled: a times two.\nSELECT a, a * 2 AS doubled, b FROM s.t\n")
    doc = sqldoc.read(tmp_path / "v.sql")
    assert doc.description == "doubled values of t."
    assert doc.described_on == ["s.t"] and doc.columns == {"doubled": "a times two."}
    (tmp_path / "q.sql").write_text("-- A query.\nSELECT $who\n")
    with pytest.raises(sqldoc.SqlDocProblem, match=r"q.sql: parameters \['who'\] are used but not declared"):
        sqldoc.read(tmp_path / "q.sql")


def test_a_view_column_nobody_describes_is_reported(tmp_path, monkeypatch):
    views = tmp_path / "analytics"
    views.mkdir()
    (views / "v.sql").write_text("-- analytics.v: a view.\n--\n-- Columns described on: s.t\n"
                                 "SELECT a, a + 1 AS mystery FROM s.t\n")
    monkeypatch.setattr(sqldoc, "VIEWS_DIR", views)
    conn = duckdb.connect()
    conn.execute("CREATE SCHEMA s; CREATE TABLE s.t (a INT); COMMENT ON COLUMN s.t.a IS 'the a'")
    assert create_views(conn) == {"analytics.v": ["mystery"]}
    assert conn.execute("SELECT comment FROM duckdb_columns() WHERE table_name = 'v' AND column_name = 'a'"
                        ).fetchone()[0] == "the a"


def test_serving_file_is_written_for_duckdb_1_0_and_later(published):
    conn = duckdb.connect()
    conn.execute(f"ATTACH '{published / 'serving.duckdb'}' AS s (READ_ONLY)")
    tags = conn.execute("SELECT tags FROM duckdb_databases() WHERE database_name = 's'").fetchone()[0]
    assert tags["storage_version"] == "v1.0.0+"
