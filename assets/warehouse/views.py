"""Views: observed.requests over files read in place, and the analyst views of schema `analytics`, one
per `sql/analytics/<view>.sql`, every view and column described with COMMENT ON."""

from __future__ import annotations

import duckdb
import pandera.polars as pa
import polars as pl

from assets.core.errors import SchemaMismatch
from assets.core.faults import checkpoint
from assets.core.records import Reject
from assets.core.sqltext import one_line, qualified, quote_ident, sql_string_literal
from assets.warehouse import sqldoc
from assets.warehouse.validate import model_columns
from assets.warehouse.write import (
    describe_table,
    ensure_audit_tables,
    record_quarantine,
    transaction,
    within_transaction,
)

VIEW_SAMPLE_ROWS = 10_000


def create_view(
    conn: duckdb.DuckDBPyConnection,
    view: str,
    parts: list[str],
    model: type[pa.DataFrameModel],
    rejects: list[Reject] | None = None,
    sampled: list[int] | None = None,
) -> int:
    """Replace `view` (a view over files read in place, too large to copy) with the UNION ALL of the
    SELECTs in `parts`, described from `model` like a table, its quarantine rows replaced with
    `rejects`, in one transaction. Its rows were checked where they were read (the model's checks
    in SQL); pandera validates a sample here (the first rows of the parts `sampled`, default all;
    VIEW_SAMPLE_ROWS in all), and a mismatch raises SchemaMismatch. Returns the rows sampled."""
    ensure_audit_tables(conn)
    schema, name = view.split(".")
    conn.execute(f"CREATE SCHEMA IF NOT EXISTS {quote_ident(schema)}")
    with within_transaction(conn):
        if conn.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE schema_name = ? AND table_name = ?", [schema, name]
        ).fetchall() != [(0,)]:
            conn.execute(f"DROP TABLE {qualified(view)}")  # a build file from before it was a view
        conn.execute(
            f"CREATE OR REPLACE VIEW {qualified(view)} AS " + "\nUNION ALL\n".join(f"({part})" for part in parts)
        )
        chosen = [parts[i] for i in (sampled if sampled is not None else range(len(parts)))]
        each = max(1, VIEW_SAMPLE_ROWS // max(1, len(chosen)))
        sample = pl.concat(
            [conn.execute(f"SELECT * FROM ({part}) LIMIT {each}").pl() for part in chosen], how="vertical_relaxed"
        )
        try:
            model.validate(sample.select(model_columns(model)), lazy=True)
        except pa.errors.SchemaErrors as errors:
            raise SchemaMismatch(
                f"{view}: a sample of the view fails {model.__name__}: {errors.failure_cases.head(5).to_dicts()}"
            ) from None
        describe_table(conn, view, model, kind="VIEW")
        record_quarantine(conn, view, list(rejects or []), None)
        checkpoint(f"write.{view}")
    return sample.height


SCHEMA = "analytics"


def column_comments(conn: duckdb.DuckDBPyConnection, doc: sqldoc.SqlDoc, view: str) -> dict[str, str | None]:
    """Each column of `view` and its description: the view file's own `-- column` line, else the
    comment of the same-named column on the first table in `Columns described on` that has one."""
    schema, name = view.split(".")
    columns = [
        r[0]
        for r in conn.execute(
            "SELECT column_name FROM duckdb_columns() WHERE schema_name = ? AND table_name = ? ORDER BY column_index",
            [schema, name],
        ).fetchall()
    ]
    lent: dict[str, str] = {}
    for table in reversed(doc.described_on):
        table_schema, table_name = table.split(".")
        rows = conn.execute(
            "SELECT column_name, comment FROM duckdb_columns() WHERE schema_name = ? AND table_name = ? "
            "AND coalesce(comment, '') <> ''",
            [table_schema, table_name],
        ).fetchall()
        if not rows and conn.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE schema_name = ? AND table_name = ?", [table_schema, table_name]
        ).fetchall() == [(0,)]:
            raise sqldoc.SqlDocProblem(f"{doc.path}: `Columns described on` names {table}, which is not a table")
        lent.update(dict(rows))
    return {column: doc.columns.get(column) or lent.get(column) for column in columns}


def create_views(conn: duckdb.DuckDBPyConnection) -> dict[str, list[str]]:
    """Recreate schema `analytics` from the view files, with COMMENT ON every view and column, in
    one transaction. Returns each view's columns that have no description."""
    undescribed: dict[str, list[str]] = {}
    with transaction(conn):
        conn.execute(f"DROP SCHEMA IF EXISTS {quote_ident(SCHEMA)} CASCADE")
        conn.execute(f"CREATE SCHEMA {quote_ident(SCHEMA)}")
        for doc in sqldoc.view_docs():
            view = f"{SCHEMA}.{doc.name}"
            try:
                conn.execute(f"CREATE VIEW {qualified(view)} AS {doc.sql}")
            except duckdb.Error as exc:
                raise sqldoc.SqlDocProblem(f"{doc.path}: the view does not build: {exc}") from exc
            conn.execute(f"COMMENT ON VIEW {qualified(view)} IS {sql_string_literal(one_line(doc.description))}")
            for column, text in column_comments(conn, doc, view).items():
                if not text:
                    undescribed.setdefault(view, []).append(column)
                    continue
                conn.execute(
                    f"COMMENT ON COLUMN {qualified(view)}.{quote_ident(column)} IS {sql_string_literal(one_line(text))}"
                )
    return undescribed
