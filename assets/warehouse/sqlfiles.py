"""The SQL files and what they build: a table's SELECT in `sql/<schema>/<table>.sql`, an asset check in
`sql/checks/<schema>/<table>__<check>.sql` (it selects the offending rows), the request pass's own statements
in `sql/observed/request_pass/`, views and named queries (`sqldoc`).

A file says what it is in its header (`sqldoc`): its first comment paragraph describes the table or check; a
check's header may add `-- blocking: true` and `-- attach: published` (the SQL also sees the serving file,
read-only, as `published`). A blocking check runs before the publish and a failure stops it (severity error); any
other check runs beside the publish, so its failure can only be a warning of that publish (severity warn;
`-- severity: warn` may say so). A table's dependencies are not written anywhere: they are the
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
    severity: str = "warn"
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
        blocking = settings.get("blocking", "false")
        severity = settings.get("severity", "error" if blocking == "true" else "warn")
        if (
            blocking not in ("true", "false")
            or severity != ("error" if blocking == "true" else "warn")
            or settings.get("attach", "published") != "published"
        ):
            raise sqldoc.SqlDocProblem(
                f"{path}: expected `-- blocking: true` (a failure stops the publish: severity error) or nothing "
                f"(or `-- severity: warn`: the check runs beside the publish and its failure warns of it), and "
                f"optionally `-- attach: published`; got {settings}"
            )
        out.append(
            CheckSql(
                f"{path.parent.name}.{table_name}",
                name,
                path,
                doc.description,
                severity,
                blocking == "true",
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


# A column of a check's offending rows -> the SQL that finds the input files or folders its values came from
# (`?`: the list of values): a run's dump folder, a config's runs' folders, an MLPerf result's file or URL.
_INPUT_OF = {
    "run_id": "SELECT DISTINCT report_dir FROM observed.runs WHERE list_contains(?, run_id)",
    "run_label": "SELECT DISTINCT report_dir FROM observed.runs WHERE list_contains(?, run_label)",
    "run_labels": "SELECT DISTINCT r.report_dir FROM observed.runs AS r, (SELECT unnest(list_distinct(flatten("
    "list_transform(?, x -> CAST(json(x) AS VARCHAR[]))))) AS label) WHERE r.run_label = label",
    "config_key": "SELECT DISTINCT r.report_dir FROM calibrated.engine_models AS m, observed.runs AS r "
    "WHERE list_contains(?, m.config_key) AND list_contains(CAST(json(m.run_labels) AS VARCHAR[]), r.run_label)",
    "result_key": "SELECT DISTINCT source FROM benchmark.mlperf_results WHERE list_contains(?, result_key)",
}


def inputs_of_rows(conn: duckdb.DuckDBPyConnection, columns: list[str], rows: list[tuple]) -> list[str]:
    """The input files and folders a check's offending rows came from, found by the columns that name them (a run,
    its label, a config, an MLPerf result); none when the rows name none or the table that would say is absent."""
    found: list[str] = []
    for column, sql in _INPUT_OF.items():
        if column not in columns:
            continue
        values = sorted({str(row[columns.index(column)]) for row in rows if row[columns.index(column)] is not None})
        try:
            found += [r[0] for r in conn.execute(sql, [values]).fetchall() if r[0] is not None and r[0] not in found]
        except duckdb.Error:  # a table the build has not made (an early check): nothing to name from it
            continue
    return sorted(found)
