"""A Parquet export of the published warehouse, for BI tools and readers without DuckDB.

Every table and analyst view of the serving file becomes `<schema>/<name>.parquet`;
`benchmark.mlperf_results` is partitioned by round (`benchmark/mlperf_results/round=v5.1/...`,
hive style). `manifest.json` lists each file with its rows, columns and their descriptions.

An export is written into a temporary folder, renamed into `exports/<id>`, and only then does the
`current` symlink switch to it (an atomic rename), so a reader of `current/` never sees half an
export. The previous export is kept for readers still holding it; older ones are removed.
"""

from __future__ import annotations

import datetime
import json
import os
import shutil
from pathlib import Path

import duckdb

from assets.warehouse import qualified, sql_string_literal

PARTITIONED = {"benchmark.mlperf_results": "round"}
KEEP_EXPORTS = 2


def _fsync_dir(path: Path) -> None:
    handle = os.open(path, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def export_parquet(serving_path: Path, parquet_dir: Path) -> dict:
    """Export every table and analytics view of the serving file (opened read-only); returns the
    manifest. `parquet_dir/current` points at the new export only once it is complete."""
    stamp = datetime.datetime.now(datetime.timezone.utc)
    export_id = stamp.strftime("%Y%m%dT%H%M%S%fZ")
    exports = parquet_dir / "exports"
    exports.mkdir(parents=True, exist_ok=True)
    staging = parquet_dir / f".tmp-{export_id}-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    try:
        manifest = _write_export(serving_path, staging, export_id, stamp)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    final = exports / export_id
    os.rename(staging, final)
    link = parquet_dir / f".current-{export_id}"
    link.symlink_to(Path("exports") / export_id, target_is_directory=True)
    os.replace(link, parquet_dir / "current")
    _fsync_dir(parquet_dir)
    for old in sorted(p for p in exports.iterdir() if p.is_dir())[:-KEEP_EXPORTS]:
        shutil.rmtree(old, ignore_errors=True)
    return manifest


def _write_export(serving_path: Path, staging: Path, export_id: str, stamp: datetime.datetime) -> dict:
    """Every table and analytics view as Parquet below `staging`, and the manifest."""
    conn = duckdb.connect(str(serving_path), read_only=True)
    entries = []
    try:
        relations = conn.execute(
            "SELECT schema_name, table_name, 'table', comment FROM duckdb_tables() "
            "UNION ALL SELECT schema_name, view_name, 'view', comment FROM duckdb_views() "
            "WHERE schema_name = 'analytics' ORDER BY 1, 2").fetchall()
        for schema, name, kind, comment in relations:
            relation = f"{schema}.{name}"
            (staging / schema).mkdir(exist_ok=True)
            partition = PARTITIONED.get(relation)
            if partition:
                target = staging / schema / name
                conn.execute(f"COPY (SELECT * FROM {qualified(relation)}) TO {sql_string_literal(target)} "
                             f"(FORMAT parquet, PARTITION_BY ({partition}))")
            else:
                target = staging / schema / f"{name}.parquet"
                conn.execute(f"COPY (SELECT * FROM {qualified(relation)}) TO {sql_string_literal(target)} "
                             "(FORMAT parquet)")
            columns = conn.execute(
                "SELECT column_name, data_type, comment FROM duckdb_columns() WHERE schema_name = ? "
                "AND table_name = ? ORDER BY column_index", [schema, name]).fetchall()
            rows = conn.execute(f"SELECT count(*) FROM {qualified(relation)}").fetchone()[0]
            entries.append({
                "name": relation, "kind": kind, "description": comment, "rows": rows,
                "path": target.relative_to(staging).as_posix() + ("/*/*.parquet" if partition else ""),
                "partitioned_by": partition,
                "columns": [{"name": c, "type": t, "description": d} for c, t, d in columns],
            })
    finally:
        conn.close()
    manifest = {"export_id": export_id, "created_utc": stamp.isoformat(), "serving_file": str(serving_path.resolve()),
                "tables": entries}
    (staging / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return manifest
