"""The published warehouse's columns without a build: every table's from its pandera model, every analytics view's
and every query's from DuckDB over empty tables made from those models."""

import functools
import importlib
import inspect
import pkgutil

import duckdb
import pandera.polars as pa
import polars as pl

import schemas
from assets.warehouse import sqldoc
from assets.warehouse.rows import frame_schema, table_of
from assets.warehouse.views import create_views


def all_models() -> list[type[pa.DataFrameModel]]:
    """Every table's pandera model: one per schemas/<schema>/<table>.py."""
    models = []
    for package in pkgutil.walk_packages(schemas.__path__, "schemas."):
        loaded = importlib.import_module(package.name)
        models += [
            obj
            for _n, obj in inspect.getmembers(loaded, inspect.isclass)
            if issubclass(obj, pa.DataFrameModel) and obj.__module__ == loaded.__name__ and "." in table_of(obj)
        ]
    return models


@functools.cache
def table_columns() -> dict[str, list[str]]:
    """`schema.table` -> its columns, in its model's order."""
    return {table_of(model): list(model.to_schema().columns) for model in all_models()}


def empty_warehouse() -> duckdb.DuckDBPyConnection:
    """An in-memory warehouse holding every model's table, empty, and the analytics views over them."""
    conn = duckdb.connect()
    for model in all_models():
        table = table_of(model)
        conn.execute(f"CREATE SCHEMA IF NOT EXISTS {table.split('.')[0]}")
        conn.register("empty_frame", pl.DataFrame(schema=frame_schema(model)))
        conn.execute(f"CREATE TABLE {table} AS SELECT * FROM empty_frame")
        conn.unregister("empty_frame")
    create_views(conn)
    return conn


@functools.cache
def view_columns() -> dict[str, list[str]]:
    """`analytics.view` -> its columns, as DuckDB binds the view over the models' tables."""
    with empty_warehouse() as conn:
        rows = conn.execute(
            "SELECT table_name, column_name FROM duckdb_columns() WHERE schema_name = 'analytics' "
            "ORDER BY table_name, column_index"
        ).fetchall()
    columns: dict[str, list[str]] = {}
    for view, column in rows:
        columns.setdefault(f"analytics.{view}", []).append(column)
    return columns


@functools.cache
def query_columns() -> dict[str, list[str]]:
    """`queries/<name>` (a `benchbill sql <name>` query) -> the columns it returns."""
    with empty_warehouse() as conn:
        return {
            f"queries/{name}": [
                row[0] for row in conn.execute(f"DESCRIBE {doc.sql}", dict.fromkeys(doc.params)).fetchall()
            ]
            for name, doc in sqldoc.query_docs().items()
        }


def published_columns() -> dict[str, list[str]]:
    """Every relation an analyst reads (tables, views, queries) -> its columns."""
    return {**table_columns(), **view_columns(), **query_columns()}
