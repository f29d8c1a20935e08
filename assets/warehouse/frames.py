"""Reading from a DuckDB connection: a SELECT's rows as a polars frame."""

from __future__ import annotations

import duckdb
import polars as pl


def query_frame(conn: duckdb.DuckDBPyConnection, sql: str, params: list | dict | None = None) -> pl.DataFrame:
    """Run a SELECT and return a polars frame."""
    return conn.execute(sql, params or []).pl()
