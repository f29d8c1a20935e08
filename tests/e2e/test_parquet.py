"""The Parquet export: every published table and view, MLPerf results by round, switched atomically."""

import json
import shutil

import duckdb
import pyarrow.parquet
import pytest

from assets.warehouse import parquet
from assets.warehouse.parquet import export_parquet


def manifest_of(folder):
    return json.loads((folder / "manifest.json").read_text())


def test_every_published_table_and_view_is_exported_with_its_rows_and_descriptions(published):
    current = published / "parquet" / "current"
    assert current.is_symlink()
    manifest = manifest_of(current)
    with duckdb.connect(str(published / "serving.duckdb"), read_only=True) as serving:
        relations = serving.execute(
            "SELECT schema_name || '.' || table_name FROM duckdb_tables() UNION ALL "
            "SELECT 'analytics.' || view_name FROM duckdb_views() WHERE schema_name = 'analytics'"
        ).fetchall()
        counts = {name: serving.execute(f"SELECT count(*) FROM {name}").fetchone()[0] for (name,) in relations}
        comment = serving.execute(
            "SELECT comment FROM duckdb_columns() WHERE schema_name = 'marts' AND column_name = 'caveats'"
        ).fetchone()[0]
    assert {t["name"] for t in manifest["tables"]} == set(counts)
    reader = duckdb.connect()
    for table in manifest["tables"]:
        read = reader.execute(
            f"SELECT count(*) FROM read_parquet('{current / table['path']}', hive_partitioning = true)"
        ).fetchone()[0]
        assert read == table["rows"] == counts[table["name"]], table["name"]
    shortlist = next(t for t in manifest["tables"] if t["name"] == "marts.config_shortlist")
    assert {"name": "caveats", "type": "VARCHAR", "description": comment} in shortlist["columns"]


def test_each_file_carries_its_table_and_column_descriptions_in_its_arrow_schema(published):
    current = published / "parquet" / "current"
    with duckdb.connect(str(published / "serving.duckdb"), read_only=True) as serving:
        said = {
            (schema, name): comment
            for schema, name, comment in serving.execute(
                "SELECT schema_name, table_name, comment FROM duckdb_tables() UNION ALL "
                "SELECT schema_name, view_name, comment FROM duckdb_views() WHERE schema_name = 'analytics'"
            ).fetchall()
        }
        columns = serving.execute(
            "SELECT schema_name, table_name, column_name, comment FROM duckdb_columns() WHERE comment IS NOT NULL"
        ).fetchall()
    files = sorted(current.glob("*/*.parquet")) + sorted(current.glob("*/*/*/*.parquet"))
    assert len(files) >= len(said)  # every table and view, mlperf_results once per round
    described = 0
    for path in files:
        schema_name, name = path.relative_to(current).parts[:2]
        key = (schema_name, name.removesuffix(".parquet"))
        schema = pyarrow.parquet.read_schema(path)
        assert schema.metadata[b"description"].decode() == said[key], path
        for s, t, column, comment in columns:
            if (s, t) == key and column in schema.names:
                assert schema.field(column).metadata[b"description"].decode() == comment, (path, column)
                described += 1
    assert described > 500
    caveats = pyarrow.parquet.read_schema(current / "marts" / "config_shortlist.parquet").field("caveats")
    assert caveats.metadata[b"description"].startswith(b"Every difference between")


def test_mlperf_results_are_partitioned_by_round(published):
    folder = published / "parquet" / "current" / "benchmark" / "mlperf_results"
    assert sorted(p.name for p in folder.iterdir()) == ["round=v4.1", "round=v5.1"]
    rows = (
        duckdb.connect()
        .execute(
            f"SELECT round, count(*) FROM read_parquet('{folder}/*/*.parquet', hive_partitioning = true) "
            "GROUP BY 1 ORDER BY 1"
        )
        .fetchall()
    )
    assert rows == [("v4.1", 937), ("v5.1", 1448)]


@pytest.fixture
def serving_copy(published, tmp_path):
    target = tmp_path / "serving.duckdb"
    shutil.copy(published / "serving.duckdb", target)
    return target


def test_a_new_export_switches_current_and_leaves_the_previous_one_whole(serving_copy, tmp_path):
    out = tmp_path / "parquet"
    first = export_parquet(serving_copy, out)
    held = (out / "current").resolve()  # what a reader that started before the next export holds
    second = export_parquet(serving_copy, out)
    assert (out / "current").resolve().name == second["export_id"] != first["export_id"]
    assert held.name == first["export_id"] and manifest_of(held) == first
    third = export_parquet(serving_copy, out)
    # kept: the current export and the one before it (a reader may still hold it); older ones are removed
    assert {p.name for p in (out / "exports").iterdir()} == {second["export_id"], third["export_id"]}
    assert [p.name for p in out.iterdir() if p.name.startswith(".")] == []


def test_a_failed_export_leaves_current_on_the_last_complete_export(serving_copy, tmp_path, monkeypatch):
    out = tmp_path / "parquet"
    first = export_parquet(serving_copy, out)
    real = parquet._write_export

    def half_then_fail(*args):
        real(*args)
        raise OSError("disk full")

    monkeypatch.setattr(parquet, "_write_export", half_then_fail)
    with pytest.raises(OSError, match="disk full"):
        export_parquet(serving_copy, out)
    assert manifest_of(out / "current") == first
    assert [p.name for p in out.iterdir() if p.name.startswith(".")] == []
