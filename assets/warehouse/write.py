"""Writing validated tables into the private build file, with quarantine and a file inventory.

Every asset publishes its table through `write_table`: the frame is checked against its pandera
model at the boundary, rows that fail move to `audit.quarantine` with the reason, and the rest
replace the table in one transaction. Nothing is dropped silently."""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import duckdb
import pandera.polars as pa
import polars as pl

from assets.core.errors import SchemaMismatch
from assets.core.faults import checkpoint
from assets.core.records import Reject, SourceFile
from assets.core.sqltext import one_line, qualified, quote_ident, sql_string_literal, type_name
from assets.warehouse import catalog
from assets.warehouse.validate import split_valid
from schemas.audit.quarantine import Quarantine
from schemas.audit.source_files import SourceFiles


@dataclass
class WriteReport:
    """What one write did: `rows` written (of the scope, when one was given), `quarantined` with their reasons;
    and what a catalog shows of the table (`assets/warehouse/catalog.py`): `table_rows` in the whole table, a
    markdown `preview` of the first rows written, the `sources` read (`assets/specs.table_metadata` turns it
    into Dagster metadata)."""

    table: str
    rows: int
    quarantined: int
    quarantine_reasons: dict[str, int] = field(default_factory=dict)
    table_rows: int | None = None
    scope: str | None = None
    preview: str = ""
    sources: list[str] = field(default_factory=list)


# The audit tables every write records into, created from their pandera models (the one statement of them).
AUDIT_TABLES: dict[str, type[pa.DataFrameModel]] = {"audit.quarantine": Quarantine, "audit.source_files": SourceFiles}
_DUCKDB_TYPES = {pl.String: "VARCHAR", pl.Int64: "BIGINT", pl.Float64: "DOUBLE", pl.Boolean: "BOOLEAN"}


def audit_ddl() -> str:
    """CREATE statements for the audit tables from their models (NOT NULL where a column is not nullable); a
    build file from before a nullable column existed gains it."""
    statements = ["CREATE SCHEMA IF NOT EXISTS audit"]
    for table, model in AUDIT_TABLES.items():
        columns = model.to_schema().columns
        typed = {name: _DUCKDB_TYPES[column.dtype.type] for name, column in columns.items()}
        statements.append(
            f"CREATE TABLE IF NOT EXISTS {qualified(table)} ("
            + ", ".join(
                f"{quote_ident(name)} {typed[name]}{'' if column.nullable else ' NOT NULL'}"
                for name, column in columns.items()
            )
            + ")"
        )
        statements += [
            f"ALTER TABLE {qualified(table)} ADD COLUMN IF NOT EXISTS {quote_ident(name)} {typed[name]}"
            for name, column in columns.items()
            if column.nullable
        ]
    return ";\n".join(statements)


def describe_table(
    conn: duckdb.DuckDBPyConnection, table: str, model: type[pa.DataFrameModel], kind: str = "TABLE"
) -> None:
    """COMMENT ON the table (or, with kind="VIEW", the view) and each of its columns, from the model's docstring
    and each `Field(description=...)`: the one place a column is described (one round trip)."""
    if kind not in ("TABLE", "VIEW"):
        raise ValueError(f"describe_table: kind must be TABLE or VIEW, not {kind!r}")
    schema = model.to_schema()
    statements = [f"COMMENT ON {kind} {qualified(table)} IS {sql_string_literal(one_line(schema.description))}"]
    statements += [
        f"COMMENT ON COLUMN {qualified(table)}.{quote_ident(name)} "
        f"IS {sql_string_literal(one_line(column.description))}"
        for name, column in schema.columns.items()
    ]
    conn.execute(";\n".join(statements))


def _described(conn: duckdb.DuckDBPyConnection, table: str, model: type[pa.DataFrameModel]) -> bool:
    """Whether `table` and its columns already carry the model's descriptions."""
    schema, name = table.split(".")
    found = dict(
        conn.execute(
            "SELECT column_name, comment FROM duckdb_columns() WHERE schema_name = ? AND table_name = ?", [schema, name]
        ).fetchall()
    )
    return all(found.get(c) == one_line(column.description) for c, column in model.to_schema().columns.items())


def ensure_audit_tables(conn: duckdb.DuckDBPyConnection) -> None:
    """Create the audit tables if need be and describe them, unless they already are."""
    conn.execute(audit_ddl())
    described = conn.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'audit' AND table_name IN "
        "('quarantine', 'source_files') AND comment = ?",
        [one_line(Quarantine.to_schema().description)],
    ).fetchall()
    if described == [(0,)]:
        for table, model in AUDIT_TABLES.items():
            describe_table(conn, table, model)


def _json_default(value: Any) -> Any:
    return str(value)


def row_json(row: dict[str, Any] | None) -> str | None:
    if row is None:
        return None
    clean = {}
    for key, value in row.items():
        if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
            value = str(value)
        clean[str(key)] = value
    return json.dumps(clean, sort_keys=True, default=_json_default, ensure_ascii=False)


def _replace_scope(conn: duckdb.DuckDBPyConnection, table: str, column: str, value: str) -> None:
    """Replace the rows of `table` whose `column` equals `value` with `_benchbill_frame`'s rows.
    A table from an older model gains the new columns (NULL in other scopes' rows) and loses
    the dropped ones, so one scope can be re-ingested without rebuilding the others."""
    conn.execute(f"CREATE TABLE IF NOT EXISTS {qualified(table)} AS SELECT * FROM _benchbill_frame LIMIT 0")
    schema, name = table.split(".")
    existing = {
        r[0]
        for r in conn.execute(
            "SELECT column_name FROM duckdb_columns() WHERE schema_name = ? AND table_name = ?", [schema, name]
        ).fetchall()
    }
    wanted = conn.execute("DESCRIBE SELECT * FROM _benchbill_frame").fetchall()
    for column_name, column_type, *_rest in wanted:
        if column_name not in existing:
            conn.execute(
                f"ALTER TABLE {qualified(table)} ADD COLUMN {quote_ident(column_name)} {type_name(column_type)}"
            )
    for column_name in existing - {w[0] for w in wanted}:
        conn.execute(f"ALTER TABLE {qualified(table)} DROP COLUMN {quote_ident(column_name)}")
    conn.execute(f"DELETE FROM {qualified(table)} WHERE {quote_ident(column)} = ?", [value])
    conn.execute(f"INSERT INTO {qualified(table)} BY NAME SELECT * FROM _benchbill_frame")


_IN_TRANSACTION: set[int] = set()  # connections inside `transaction`: write_table joins that one


@contextlib.contextmanager
def transaction(conn: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """One transaction around several `write_table` calls: all their tables (and quarantine and
    inventory rows) change together, or, on an error or a kill, none of them."""
    conn.execute("BEGIN TRANSACTION")
    _IN_TRANSACTION.add(id(conn))
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    else:
        conn.execute("COMMIT")
    finally:
        _IN_TRANSACTION.discard(id(conn))


@contextlib.contextmanager
def within_transaction(conn: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """The caller's `transaction` when one is open on `conn`, else one of its own: committed when the
    block ends, rolled back on an error."""
    if id(conn) in _IN_TRANSACTION:
        yield
        return
    conn.execute("BEGIN TRANSACTION")
    try:
        yield
    except Exception:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def write_table(
    conn: duckdb.DuckDBPyConnection,
    table: str,
    frame: pl.DataFrame,
    model: type[pa.DataFrameModel],
    rejects: list[Reject] | None = None,
    source_files: list[SourceFile] | None = None,
    scope: tuple[str, str] | None = None,
) -> WriteReport:
    """Validate and replace `table` in the build file; record its quarantine and source files.

    With `scope=(column, value)` (e.g. `("round", "v5.1")`) only the rows of that scope are
    replaced, and the table's quarantine and source-file rows of that scope likewise: re-ingesting
    one MLPerf round leaves the others alone. Every row of `frame` must belong to the scope.

    The replacement, the table's quarantine rows and its source-file inventory change together
    in one transaction, so a failure leaves the previous state of all three.
    """
    if scope is not None:
        column, value = scope
        if column not in frame.columns:
            raise SchemaMismatch(f"{table}: scope column {column!r} is not in the frame")
        outside = frame.filter(pl.col(column) != value).height
        if outside:
            raise SchemaMismatch(f"{table}: {outside} rows lie outside the scope {column} = {value!r}")
    scope_label = None if scope is None else f"{scope[0]}={scope[1]}"
    valid, schema_rejects = split_valid(frame, model, table)
    all_rejects = list(rejects or []) + schema_rejects
    schema = table.split(".")[0]
    ensure_audit_tables(conn)
    conn.execute(f"CREATE SCHEMA IF NOT EXISTS {quote_ident(schema)}")
    with within_transaction(conn):
        conn.register("_benchbill_frame", valid.to_arrow())
        if scope is None:
            conn.execute(f"CREATE OR REPLACE TABLE {qualified(table)} AS SELECT * FROM _benchbill_frame")
        else:
            _replace_scope(conn, table, scope[0], scope[1])
        conn.unregister("_benchbill_frame")
        if scope is None or not _described(conn, table, model):
            describe_table(conn, table, model)
        record_quarantine(conn, table, all_rejects, scope_label)
        if source_files is not None:
            _clear_audit(conn, "audit.source_files", table, scope_label)
            if source_files:
                conn.executemany(
                    "INSERT INTO audit.source_files (table_name, source, sha256, size_bytes, detected_format, "
                    "status, rows, note, scope) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        [
                            table,
                            f.source,
                            f.sha256,
                            f.size_bytes,
                            f.detected_format,
                            f.status,
                            f.rows,
                            f.note,
                            scope_label,
                        ]
                        for f in source_files
                    ],
                )
        checkpoint(f"write.{table}")
        table_rows = catalog.table_rows(conn, table)
        preview = catalog.preview_markdown(conn, table, scope)
    counts: dict[str, int] = {}
    for r in all_rejects:
        key = r.reason.split(":")[0]
        counts[key] = counts.get(key, 0) + 1
    return WriteReport(
        table=table,
        rows=valid.height,
        quarantined=len(all_rejects),
        quarantine_reasons=counts,
        table_rows=table_rows,
        scope=scope_label,
        preview=preview,
        sources=catalog.source_list([f.source for f in source_files or []]),
    )


def _clear_audit(conn: duckdb.DuckDBPyConnection, audit: str, table: str, scope_label: str | None) -> None:
    """Delete `table`'s rows from the audit table `audit`: without a scope all of them; with one, that scope's."""
    conn.execute(
        f"DELETE FROM {qualified(audit)} WHERE table_name = ? AND (?::VARCHAR IS NULL OR scope IS NOT DISTINCT FROM ?)",
        [table, scope_label, scope_label],
    )


def record_quarantine(
    conn: duckdb.DuckDBPyConnection, table: str, rejects: list[Reject], scope_label: str | None
) -> None:
    """Replace `table`'s quarantine rows (of the scope) with `rejects` (inside the caller's transaction)."""
    _clear_audit(conn, "audit.quarantine", table, scope_label)
    if rejects:
        conn.executemany(
            "INSERT INTO audit.quarantine (table_name, source, location, reason, row_json, scope) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [[table, r.source, r.location, r.reason, row_json(r.row), scope_label] for r in rejects],
        )
