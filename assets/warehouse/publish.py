"""Publishing: the build file becomes the serving file readers open, atomically."""

from __future__ import annotations

import os
from pathlib import Path

import duckdb

from assets.core.faults import checkpoint
from assets.core.sqltext import qualified, sql_path_literal, sql_string_literal
from assets.warehouse.lock import WarehouseProblem, cannot_write
from assets.warehouse.parquet import fsync_dir, prepare_export, switch_current

# Files written in this storage format open in every DuckDB 1.x client (BI drivers pin duckdb<2).
SERVING_STORAGE_VERSION = "v1.0.0"


def publish_serving(build_path: Path, serving_path: Path, parquet_dir: Path) -> tuple[int, dict]:
    """Publish the build file: copy every schema, table and view into a fresh file beside the serving
    file, export that copy to Parquet (a new folder, not yet current), and only then rename the copy
    over the serving file and switch the Parquet `current` link, one right after the other.

    A reader holding the old file keeps reading its snapshot. A failure or a kill before the rename
    leaves the serving file and the Parquet export exactly as they were: a failure (a full disk) removes
    the half-written copy at once, a kill leaves it for the next run to remove (`remove_leftovers`).
    Returns the number of tables and the export's manifest."""
    staging = staging_path(serving_path)
    remove_leftovers(serving_path)
    try:
        conn = duckdb.connect()
        try:
            conn.execute(f"ATTACH {sql_path_literal(build_path)} AS build (READ_ONLY)")
            conn.execute(
                f"ATTACH {sql_path_literal(staging)} AS serving "
                f"(STORAGE_VERSION {sql_string_literal(SERVING_STORAGE_VERSION)})"
            )
            conn.execute("COPY FROM DATABASE build TO serving")
            [(tables,)] = conn.execute(
                "SELECT count(*) FROM duckdb_tables() WHERE database_name = 'serving'"
            ).fetchall()
            conn.execute("DETACH serving")
            conn.execute("DETACH build")
        finally:
            conn.close()
        with open(staging, "rb") as handle:
            os.fsync(handle.fileno())
        checkpoint("publish.copied", staging)
        manifest = prepare_export(staging, parquet_dir, serving_name=serving_path)
        checkpoint("publish.exported", staging)
    except (OSError, duckdb.IOException) as exc:  # a full disk, most often: the half-written copy goes at once
        remove_leftovers(serving_path)
        if isinstance(exc, OSError):
            raise WarehouseProblem(cannot_write(Path(exc.filename or staging), exc)) from exc
        raise WarehouseProblem(f"{staging}: cannot be written ({exc}); free some space, then run again") from exc
    except BaseException:
        remove_leftovers(serving_path)
        raise
    os.replace(staging, serving_path)
    switch_current(parquet_dir, manifest["export_id"])  # right after the swap: the export of the file just published
    fsync_dir(serving_path.parent)
    return tables, manifest


def staging_path(serving_path: Path) -> Path:
    """Where the next serving file is written before it is swapped in."""
    return serving_path.with_name(serving_path.name + ".next")


def remove_leftovers(serving_path: Path) -> list[Path]:
    """Remove what a failed or killed publish left beside the serving file (the next file and its WAL);
    the paths removed."""
    staging = staging_path(serving_path)
    removed = []
    for leftover in (staging, staging.with_name(staging.name + ".wal")):
        try:
            leftover.unlink()
            removed.append(leftover)
        except FileNotFoundError:
            continue
    return removed


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
