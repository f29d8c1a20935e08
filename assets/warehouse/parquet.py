"""A Parquet export of the published warehouse, for BI tools and readers without DuckDB.

Every table and analyst view of the serving file becomes `<schema>/<name>.parquet`;
`benchmark.mlperf_results` is partitioned by round (`benchmark/mlperf_results/round=v5.1/...`,
hive style). `manifest.json` lists each file with its rows, columns and their descriptions, and each file carries
them too, in its Arrow schema's metadata (key `description` on the schema and on each field).

An export is written into a temporary folder, renamed into `exports/<id>`, and only then does the
`current` symlink switch to it (an atomic rename), so a reader of `current/` never sees half an
export. The publish step exports from the next serving file before swapping it in, and switches
`current` right after the swap. The previous export is kept for readers still holding it; older ones,
and what a killed run left behind, are removed.
"""

from __future__ import annotations

import datetime
import json
import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from assets.core.faults import checkpoint
from assets.core.sqltext import qualified, quote_ident

PARTITIONED = {"benchmark.mlperf_results": "round"}


def fsync_dir(path: Path) -> None:
    """Make a folder's entries (a rename, a new file) durable."""
    handle = os.open(path, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def export_parquet(serving_path: Path, parquet_dir: Path, serving_name: Path | None = None) -> dict:
    """Export every table and analytics view of the serving file (opened read-only) and switch
    `parquet_dir/current` to it once complete; returns the manifest."""
    manifest = prepare_export(serving_path, parquet_dir, serving_name)
    switch_current(parquet_dir, manifest["export_id"])
    return manifest


def prepare_export(serving_path: Path, parquet_dir: Path, serving_name: Path | None = None) -> dict:
    """Write a complete export to `exports/<id>` (through a staging folder, renamed when complete)
    without making it current; returns its manifest. `serving_name` is the file the export belongs
    to, when `serving_path` is a copy about to replace it (publishing exports before swapping)."""
    stamp = datetime.datetime.now(datetime.UTC)
    export_id = stamp.strftime("%Y%m%dT%H%M%S%fZ")
    exports = parquet_dir / "exports"
    exports.mkdir(parents=True, exist_ok=True)
    staging = parquet_dir / f".tmp-{export_id}-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    try:
        manifest = _write_export(serving_path, staging, export_id, stamp, serving_name or serving_path)
    except OSError as exc:  # a full disk, most often: said of the export folder (pyarrow names no file)
        shutil.rmtree(staging, ignore_errors=True)
        if exc.filename is not None:
            raise
        raise OSError(exc.errno, exc.strerror or str(exc), os.fspath(staging)) from exc
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    os.rename(staging, exports / export_id)
    fsync_dir(exports)
    return manifest


def switch_current(parquet_dir: Path, export_id: str) -> None:
    """Point `current` at `exports/<export_id>` (an atomic rename of a symlink), then remove what no
    reader can hold: exports older than the one `current` pointed at before, and the leftovers
    (staging folders, links) of runs killed before they finished. Runs hold the warehouse's
    writer lock, so no other export is in progress."""
    link = parquet_dir / f".current-{export_id}"
    link.unlink(missing_ok=True)
    current = parquet_dir / "current"
    previous = os.readlink(current) if current.is_symlink() else None
    link.symlink_to(Path("exports") / export_id, target_is_directory=True)
    os.replace(link, current)
    fsync_dir(parquet_dir)
    keep = {export_id, Path(previous).name if previous else export_id}
    for old in (parquet_dir / "exports").iterdir():
        if old.name not in keep:
            shutil.rmtree(old, ignore_errors=True)
    for leftover in parquet_dir.glob(".*"):
        if leftover.name.startswith((".tmp-", ".current-")):
            if leftover.is_symlink() or leftover.is_file():
                leftover.unlink(missing_ok=True)
            else:
                shutil.rmtree(leftover, ignore_errors=True)


ROWS_PER_BATCH = 1 << 17  # rows streamed from DuckDB to the Parquet writer at a time: memory stays bounded
DESCRIPTION = b"description"  # the key of a field's (and the file's) description in the Arrow schema metadata


def write_select(
    conn: duckdb.DuckDBPyConnection,
    select: str,
    target: Path,
    dictionary: Sequence[str],
    withhold: str | None = None,
    compression: str = "zstd",
) -> list[pa.Array]:
    """The rows of `select`, in its order, streamed as one Parquet file (pyarrow's writer: about half the CPU of
    DuckDB's COPY on per-request records at the same size); dictionary encoding only for the `dictionary` columns
    (few distinct values: on the rest it costs time and saves nothing). The column `withhold` is written as nulls
    and its values returned instead (chunk by chunk), for the caller to use without storing them. A DuckDB error
    while the rows stream is raised as the duckdb.Error it is."""
    reader = conn.execute(select).to_arrow_reader(ROWS_PER_BATCH)
    kept: list[pa.Array] = []
    at = reader.schema.get_field_index(withhold) if withhold is not None else -1
    encoded = [c for c in dictionary if c in reader.schema.names]
    with pq.ParquetWriter(target, reader.schema, compression=compression, use_dictionary=encoded) as writer:
        batches = iter(reader)
        while True:
            try:
                batch = next(batches)
            except StopIteration:
                break
            except OSError as exc:  # DuckDB failed while the rows streamed (Arrow's stream says so as an OSError)
                raise duckdb.Error(str(exc)) from exc
            if at >= 0:
                kept.append(batch.column(at))
                field = batch.schema.field(at)
                batch = batch.set_column(at, field, pa.nulls(batch.num_rows, field.type))
            writer.write_batch(batch)
    return kept


def write_described(
    conn: duckdb.DuckDBPyConnection,
    select: str,
    params: dict,
    target: Path,
    description: str | None,
    column_descriptions: dict[str, str | None],
) -> None:
    """The rows of `select` as one Parquet file whose Arrow schema carries the table's description (schema
    metadata) and each column's (field metadata, key `description`): a reader of the file alone (pyarrow, polars,
    Spark through the Arrow schema) sees what each column means, as the manifest says."""
    reader = conn.execute(select, params or None).fetch_record_batch(ROWS_PER_BATCH)
    fields = []
    for field in reader.schema:
        said = column_descriptions.get(field.name)
        fields.append(field.with_metadata({DESCRIPTION: said.encode()}) if said else field)
    schema = pa.schema(fields, metadata={DESCRIPTION: description.encode()} if description else None)
    with pq.ParquetWriter(target, schema) as writer:
        for batch in reader:
            writer.write_batch(pa.RecordBatch.from_arrays(batch.columns, schema=schema))


def _write_export(
    serving_path: Path, staging: Path, export_id: str, stamp: datetime.datetime, serving_name: Path | None = None
) -> dict:
    """Every table and analytics view as Parquet below `staging`, and the manifest."""
    conn = duckdb.connect(str(serving_path), read_only=True)
    entries = []
    try:
        relations = conn.execute(
            "SELECT schema_name, table_name, 'table', comment FROM duckdb_tables() "
            "UNION ALL SELECT schema_name, view_name, 'view', comment FROM duckdb_views() "
            "WHERE schema_name = 'analytics' ORDER BY 1, 2"
        ).fetchall()
        for schema, name, kind, comment in relations:
            relation = f"{schema}.{name}"
            (staging / schema).mkdir(exist_ok=True)
            partition = PARTITIONED.get(relation)
            columns = conn.execute(
                "SELECT column_name, data_type, comment FROM duckdb_columns() WHERE schema_name = ? "
                "AND table_name = ? ORDER BY column_index",
                [schema, name],
            ).fetchall()
            descriptions = {c: d for c, _t, d in columns}
            if partition:
                target = staging / schema / name
                values = conn.execute(
                    f"SELECT DISTINCT {quote_ident(partition)} FROM {qualified(relation)} ORDER BY 1"
                ).fetchall()
                for (value,) in values:
                    folder = target / f"{partition}={quote(str(value), safe='')}"
                    folder.mkdir(parents=True)
                    write_described(
                        conn,
                        f"SELECT * EXCLUDE ({quote_ident(partition)}) FROM {qualified(relation)} "
                        f"WHERE {quote_ident(partition)} = $value",
                        {"value": value},
                        folder / "data_0.parquet",
                        comment,
                        descriptions,
                    )
            else:
                target = staging / schema / f"{name}.parquet"
                write_described(conn, f"SELECT * FROM {qualified(relation)}", {}, target, comment, descriptions)
            checkpoint("parquet.writing", target)
            [(rows,)] = conn.execute(f"SELECT count(*) FROM {qualified(relation)}").fetchall()
            entries.append(
                {
                    "name": relation,
                    "kind": kind,
                    "description": comment,
                    "rows": rows,
                    "path": target.relative_to(staging).as_posix() + ("/*/*.parquet" if partition else ""),
                    "partitioned_by": partition,
                    "columns": [{"name": c, "type": t, "description": d} for c, t, d in columns],
                }
            )
    finally:
        conn.close()
    manifest = {
        "export_id": export_id,
        "created_utc": stamp.isoformat(),
        "serving_file": str((serving_name or serving_path).resolve()),
        "tables": entries,
    }
    (staging / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return manifest
