"""Publishing: the build file becomes the serving file readers open, atomically."""


import os
from pathlib import Path

import dagster as dg
import duckdb

from assets.parquet import export_parquet
from assets.report import write_report
from assets.sqlfiles import sql_check
from assets.warehouse import sql_string_literal
from pipelines.resources import Warehouse

# Files written in this storage format open in every DuckDB 1.x client (BI drivers pin duckdb<2).
SERVING_STORAGE_VERSION = "v1.0.0"


def publish_serving(build_path: Path, serving_path: Path) -> int:
    """Copy every schema, table and view of the build file into a fresh file beside the serving
    file, then rename it over the serving file. A reader holding the old file keeps reading its
    snapshot; a failure before the rename leaves the old serving file untouched."""
    staging = serving_path.with_name(serving_path.name + ".next")
    for leftover in (staging, staging.with_name(staging.name + ".wal")):
        leftover.unlink(missing_ok=True)
    conn = duckdb.connect()
    try:
        conn.execute(f"ATTACH {sql_string_literal(build_path)} AS build (READ_ONLY)")
        conn.execute(f"ATTACH {sql_string_literal(staging)} AS serving "
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
    os.replace(staging, serving_path)
    directory = os.open(serving_path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
    return tables


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
    file, swapped in atomically so readers never see a half-written state."""
    tables = publish_serving(warehouse.build_path, warehouse.serving_path)
    context.log.info(f"published {warehouse.serving_path} ({tables} tables)")
    return dg.MaterializeResult(metadata={"path": str(warehouse.serving_path.resolve()), "tables": tables})


@dg.asset(key=["publish", "parquet_export"], deps=[serving_duckdb], group_name="publish", kinds={"parquet"})
def parquet_export(context: dg.AssetExecutionContext, warehouse: Warehouse) -> dg.MaterializeResult:
    """A Parquet copy of every published table and analyst view (MLPerf results partitioned by round),
    under warehouse/parquet/current, switched atomically once complete; for BI tools and Parquet readers."""
    manifest = export_parquet(warehouse.serving_path, warehouse.parquet_dir)
    context.log.info(f"exported {len(manifest['tables'])} tables and views to {warehouse.parquet_current}")
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
