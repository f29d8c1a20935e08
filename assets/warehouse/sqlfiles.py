"""The SQL files and what they build: a table's SELECT in `sql/<schema>/<table>.sql`, an asset check in
`sql/checks/<schema>/<table>__<check>.sql` (it selects the offending rows), the request pass's own statements
in `sql/observed/request_pass/`, views and named queries (`sqldoc`).

A file says what it is in its header (`sqldoc`): its first comment paragraph describes the table or check; a
check's header may add `-- severity: warn`, `-- blocking: true` and `-- attach: published` (the SQL also sees
the serving file, read-only, as `published`). A table's dependencies are not written anywhere: they are the
tables its SQL reads, found by DuckDB's own parser.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pandera.polars as pa
import polars as pl

from assets.core.errors import SchemaMismatch
from assets.core.paths import SQL_DIR
from assets.core.sqltext import sql_path_literal
from assets.warehouse import sqldoc
from assets.warehouse.frames import query_frame
from assets.warehouse.write import WriteReport, write_table

# Schemas whose tables are built from `sql/<schema>/<table>.sql` (analytics holds views, checks and queries
# are not tables).
TABLE_SCHEMAS = ("benchmark", "requirement", "observed", "projected", "cost", "marts", "audit")
# Tables every write fills (quarantine and file inventory): read by SQL, never an asset of their own.
AUDIT_RECORDS = frozenset({"audit.quarantine", "audit.source_files"})
MACROS = "macros.sql"  # the cost arithmetic, once, as macros every table SELECT may call
_DIRECTIVE = re.compile(r"^(severity|blocking|attach)\s*:\s*(\S+)\s*$", re.IGNORECASE)


def read_sql(relative: str) -> str:
    """The text of `sql/<relative>`; SQL lives in files named after what they build."""
    path = SQL_DIR / relative
    if not path.exists():
        raise FileNotFoundError(f"missing SQL file {path}")
    return path.read_text(encoding="utf-8")


def run_sql_file(conn: duckdb.DuckDBPyConnection, relative: str, params: list | dict | None = None) -> pl.DataFrame:
    """Run the SELECT in `sql/<relative>` and return its rows as a polars frame (the cost macros of
    `sql/macros.sql` defined on the connection first)."""
    conn.execute(read_sql(MACROS))
    return query_frame(conn, read_sql(relative), params)


@functools.cache
def _parser() -> duckdb.DuckDBPyConnection:
    return duckdb.connect()


def tables_read(sql: str, where: str) -> list[str]:
    """The `schema.table` names a statement reads (CTEs and table functions aside), by DuckDB's parser."""
    [(serialized,)] = _parser().cursor().execute("SELECT json_serialize_sql(?::VARCHAR)", [sql]).fetchall()
    found = json.loads(serialized)
    if found.get("error"):
        raise SchemaMismatch(f"{where}: DuckDB cannot parse it ({found.get('error_message')})")
    names: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "BASE_TABLE" and node.get("schema_name"):
                names.add(f"{node['schema_name']}.{node['table_name']}")
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(found)
    return sorted(names)


@dataclass(frozen=True)
class TableSql:
    """A table built by one SELECT: `sql/<schema>/<table>.sql`."""

    table: str
    path: Path
    description: str
    reads: list[str]

    @property
    def relative(self) -> str:
        return self.path.relative_to(SQL_DIR).as_posix()


@dataclass(frozen=True)
class CheckSql:
    """An asset check: `sql/checks/<schema>/<table>__<name>.sql` selects the rows that fail it."""

    table: str
    name: str
    path: Path
    description: str
    severity: str = "error"
    blocking: bool = False
    attach_published: bool = False

    @property
    def relative(self) -> str:
        return self.path.relative_to(SQL_DIR).as_posix()


def table_sql_files() -> list[TableSql]:
    """Every SQL-built table, in file order."""
    out = []
    for schema in TABLE_SCHEMAS:
        for path in sorted((SQL_DIR / schema).glob("*.sql")):
            doc = sqldoc.read(path)
            table = f"{schema}.{path.stem}"
            reads = [t for t in tables_read(doc.sql, str(path)) if t not in AUDIT_RECORDS]
            out.append(TableSql(table, path, doc.description, reads))
    return out


def check_sql_files() -> list[CheckSql]:
    """Every asset check, in file order; a header directive that is not understood raises, naming the file."""
    out = []
    for path in sorted((SQL_DIR / "checks").glob("*/*.sql")):
        table_name, sep, name = path.stem.partition("__")
        if not sep:
            raise sqldoc.SqlDocProblem(f"{path}: a check file is named <table>__<check>.sql")
        doc = sqldoc.read(path)
        settings = {}
        for line in doc.header:
            match = _DIRECTIVE.match(line)
            if match:
                settings[match.group(1).lower()] = match.group(2).lower()
        severity = settings.get("severity", "error")
        if (
            severity not in ("error", "warn")
            or settings.get("blocking", "false") not in ("true", "false")
            or settings.get("attach", "published") != "published"
        ):
            raise sqldoc.SqlDocProblem(
                f"{path}: expected `-- severity: error|warn`, `-- blocking: true|false`, "
                f"`-- attach: published`; got {settings}"
            )
        out.append(
            CheckSql(
                f"{path.parent.name}.{table_name}",
                name,
                path,
                doc.description,
                severity,
                settings.get("blocking") == "true",
                "attach" in settings,
            )
        )
    return out


def build_table(conn: duckdb.DuckDBPyConnection, spec: TableSql, model: type[pa.DataFrameModel]) -> WriteReport:
    """Run a table's SELECT, validate the rows against `model` and replace the table."""
    return write_table(conn, spec.table, run_sql_file(conn, spec.relative), model)


def offending_rows(
    conn: duckdb.DuckDBPyConnection, check: CheckSql, serving_path: Path
) -> tuple[list[str], list[tuple]]:
    """The rows a check's SQL selects (columns, rows); with `attach_published`, the serving file at
    `serving_path` is attached read-only as `published` while it runs."""
    if check.attach_published:
        conn.execute(f"ATTACH {sql_path_literal(serving_path)} AS published (READ_ONLY)")
    try:
        cursor = conn.execute(read_sql(check.relative))
        return [d[0] for d in cursor.description], cursor.fetchall()
    finally:
        if check.attach_published:
            conn.execute("DETACH published")
