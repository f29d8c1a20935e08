"""Publishing: the build file becomes the serving file readers open, atomically."""

from __future__ import annotations

import os
from pathlib import Path

import duckdb

from assets.core.faults import checkpoint
from assets.core.sqltext import qualified, sql_path_literal, sql_string_literal
from assets.warehouse.parquet import fsync_dir, prepare_export, switch_current

# Files written in this storage format open in every DuckDB 1.x client (BI drivers pin duckdb<2).
SERVING_STORAGE_VERSION = "v1.0.0"


def publish_serving(build_path: Path, serving_path: Path, parquet_dir: Path) -> tuple[int, dict]:
    """Publish the build file: copy every schema, table and view into a fresh file beside the serving
    file, export that copy to Parquet (a new folder, not yet current), and only then rename the copy
    over the serving file and switch the Parquet `current` link, one right after the other.

    A reader holding the old file keeps reading its snapshot. A failure or a kill before the rename
    leaves the serving file and the Parquet export exactly as they were (the next run removes what
    it left behind). Returns the number of tables and the export's manifest."""
    staging = serving_path.with_name(serving_path.name + ".next")
    for leftover in (staging, staging.with_name(staging.name + ".wal")):
        leftover.unlink(missing_ok=True)
    conn = duckdb.connect()
    try:
        conn.execute(f"ATTACH {sql_path_literal(build_path)} AS build (READ_ONLY)")
        conn.execute(
            f"ATTACH {sql_path_literal(staging)} AS serving "
            f"(STORAGE_VERSION {sql_string_literal(SERVING_STORAGE_VERSION)})"
        )
        conn.execute("COPY FROM DATABASE build TO serving")
        [(tables,)] = conn.execute("SELECT count(*) FROM duckdb_tables() WHERE database_name = 'serving'").fetchall()
        conn.execute("DETACH serving")
        conn.execute("DETACH build")
    finally:
        conn.close()
    with open(staging, "rb") as handle:
        os.fsync(handle.fileno())
    checkpoint("publish.copied")
    manifest = prepare_export(staging, parquet_dir, serving_name=serving_path)
    checkpoint("publish.exported")
    os.replace(staging, serving_path)
    switch_current(parquet_dir, manifest["export_id"])  # right after the swap: the export of the file just published
    fsync_dir(serving_path.parent)
    return tables, manifest


def export_matches(serving_path: Path, manifest: dict) -> bool:
    """True when an export's manifest lists exactly the serving file's tables and analyst views, each
    with the serving file's row count."""
    conn = duckdb.connect(str(serving_path), read_only=True)
    try:
        relations = dict(
            conn.execute(
                "SELECT schema_name || '.' || table_name, 'table' FROM duckdb_tables() UNION ALL "
                "SELECT schema_name || '.' || view_name, 'view' FROM duckdb_views() WHERE schema_name = 'analytics'"
            ).fetchall()
        )
        if relations != {t["name"]: t["kind"] for t in manifest["tables"]}:
            return False
        return all(
            conn.execute(f"SELECT count(*) FROM {qualified(t['name'])}").fetchall() == [(t["rows"],)]
            for t in manifest["tables"]
        )
    finally:
        conn.close()
