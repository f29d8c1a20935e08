"""Publishing: the build file becomes the serving file readers open, atomically."""


import os
from pathlib import Path

import dagster as dg
import duckdb

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
    deps=[["marts", "config_shortlist"], ["cost", "cost_per_request"], ["benchmark", "mlperf_results"],
          ["benchmark", "accelerator_prices"], ["observed", "load_points"], ["requirement", "slo_bounds"]],
    group_name="publish",
    kinds={"duckdb"},
)
def serving_duckdb(context: dg.AssetExecutionContext, warehouse: Warehouse) -> dg.MaterializeResult:
    """The published `serving.duckdb` analysts and BI tools open read-only: a copy of the build
    file, swapped in atomically so readers never see a half-written state."""
    tables = publish_serving(warehouse.build_path, warehouse.serving_path)
    context.log.info(f"published {warehouse.serving_path} ({tables} tables)")
    return dg.MaterializeResult(metadata={"path": str(warehouse.serving_path.resolve()), "tables": tables})
