"""Publishing: the build file becomes the serving file readers open, atomically."""


import json
import os
from pathlib import Path

import dagster as dg
import duckdb

from assets.faults import checkpoint
from assets.parquet import export_parquet, fsync_dir, prepare_export, switch_current
from assets.report import write_report
from assets.sqlfiles import sql_check
from assets.warehouse import qualified, sql_path_literal, sql_string_literal
from pipelines.resources import Warehouse

# Files written in this storage format open in every DuckDB 1.x client (BI drivers pin duckdb<2).
SERVING_STORAGE_VERSION = "v1.0.0"


def publish_serving(build_path: Path, serving_path: Path, parquet_dir: Path | None = None) -> tuple[int, dict | None]:
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
        conn.execute(f"ATTACH {sql_path_literal(staging)} AS serving "
                     f"(STORAGE_VERSION {sql_string_literal(SERVING_STORAGE_VERSION)})")
        conn.execute("COPY FROM DATABASE build TO serving")
        tables = conn.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE database_name = 'serving'").fetchone()[0]
        conn.execute("DETACH serving")
        conn.execute("DETACH build")
    finally:
        conn.close()
    with open(staging, "rb") as handle:
        os.fsync(handle.fileno())
    checkpoint("publish.copied")
    manifest = prepare_export(staging, parquet_dir, serving_name=serving_path) if parquet_dir else None
    checkpoint("publish.exported")
    os.replace(staging, serving_path)
    if manifest is not None:  # right after the swap: the export of the file just published
        switch_current(parquet_dir, manifest["export_id"])
    fsync_dir(serving_path.parent)
    return tables, manifest


@dg.asset(
    key=["publish", "serving_duckdb"],
    deps=[["analytics", "views"], ["marts", "config_shortlist"], ["cost", "cost_per_request"],
          ["benchmark", "mlperf_results"], ["benchmark", "accelerator_prices"], ["observed", "load_points"],
          ["requirement", "slo_bounds"]],
    group_name="publish",
    kinds={"duckdb"},
)
def serving_duckdb(context: dg.AssetExecutionContext, warehouse: Warehouse) -> dg.MaterializeResult:
    """The published `serving.duckdb` analysts and BI tools open read-only: a copy of the build
    file, exported to Parquet and then swapped in atomically together with that export, so readers
    never see a half-written state and the Parquet export always belongs to the published file."""
    tables, manifest = publish_serving(warehouse.build_path, warehouse.serving_path, warehouse.parquet_dir)
    context.log.info(f"published {warehouse.serving_path} ({tables} tables) and its Parquet export "
                     f"{manifest['export_id']}")
    return dg.MaterializeResult(metadata={"path": str(warehouse.serving_path.resolve()), "tables": tables,
                                          "export_id": manifest["export_id"]})


def export_matches(serving_path: Path, manifest: dict) -> bool:
    """True when an export's manifest lists exactly the serving file's tables and analyst views, each
    with the serving file's row count."""
    conn = duckdb.connect(str(serving_path), read_only=True)
    try:
        relations = dict(conn.execute(
            "SELECT schema_name || '.' || table_name, 'table' FROM duckdb_tables() UNION ALL "
            "SELECT schema_name || '.' || view_name, 'view' FROM duckdb_views() WHERE schema_name = 'analytics'"
        ).fetchall())
        if relations != {t["name"]: t["kind"] for t in manifest["tables"]}:
            return False
        return all(conn.execute(f"SELECT count(*) FROM {qualified(t['name'])}").fetchone()[0] == t["rows"]
                   for t in manifest["tables"])
    finally:
        conn.close()


@dg.asset(key=["publish", "parquet_export"], deps=[serving_duckdb], group_name="publish", kinds={"parquet"})
def parquet_export(context: dg.AssetExecutionContext, warehouse: Warehouse) -> dg.MaterializeResult:
    """A Parquet copy of every published table and analyst view (MLPerf results partitioned by round),
    under warehouse/parquet/current: written by the publish step before the serving file is swapped
    and switched right after it; this step checks that `current` holds the serving file's tables and
    row counts, and exports again when it does not."""
    current = warehouse.parquet_current / "manifest.json"
    manifest = json.loads(current.read_text(encoding="utf-8")) if current.exists() else None
    if manifest is None or not export_matches(warehouse.serving_path, manifest):
        context.log.warning("the Parquet export does not match the serving file; exporting again")
        manifest = export_parquet(warehouse.serving_path, warehouse.parquet_dir)
    context.log.info(f"{len(manifest['tables'])} tables and views in {warehouse.parquet_current}")
    return dg.MaterializeResult(metadata={"path": str(warehouse.parquet_current.absolute()),
                                          "export_id": manifest["export_id"], "tables": len(manifest["tables"])})


@dg.asset(key=["publish", "report_html"], deps=[serving_duckdb], group_name="publish", kinds={"html"})
def report_html(context: dg.AssetExecutionContext, warehouse: Warehouse) -> dg.MaterializeResult:
    """The static HTML report for decision makers (shortlist, latency-throughput charts with the SLO and
    the MLPerf reference, cost bands, sources), written to warehouse/report.html from the serving file."""
    size = write_report(warehouse.serving_path, warehouse.report_path)
    context.log.info(f"wrote {warehouse.report_path} ({size:,} bytes)")
    return dg.MaterializeResult(metadata={"path": str(warehouse.report_path.absolute()), "bytes": size})


mlperf_round_row_counts = sql_check(
    ["benchmark", "mlperf_results"], "row_count_per_round",
    "No published round lost its rows or changed its row count by more than 10% against the serving file "
    "(a new round is fine).", severity=dg.AssetCheckSeverity.WARN, attach_published=True)
