"""Writing validated tables into the private build file, with quarantine and a file inventory.

Every asset publishes its table through `write_table`: the frame is checked against its pandera
model at the boundary, rows that fail move to `audit.quarantine` with the reason, and the rest
replace the table in one transaction. Nothing is dropped silently.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pandera.polars as pa
import polars as pl
from pandera.config import ValidationDepth, config_context

from assets.faults import checkpoint
from schemas.quarantine import Quarantine
from schemas.source_files import SourceFiles

REPO_ROOT = Path(__file__).resolve().parent.parent
SQL_DIR = REPO_ROOT / "sql"


class IngestError(Exception):
    """Input that cannot be read at all: the message names the file or URL and what was expected."""


class SchemaMismatch(Exception):
    """A frame does not have the shape its table's pandera model demands (a whole-table problem)."""


@dataclass(frozen=True)
class Reject:
    """One rejected input row or file, destined for `audit.quarantine`."""

    source: str
    location: str
    reason: str
    row: dict[str, Any] | None = None


@dataclass(frozen=True)
class SourceFile:
    """One file or URL an asset looked at, destined for `audit.source_files`."""

    source: str
    sha256: str | None
    size_bytes: int | None
    detected_format: str
    status: str
    rows: int = 0
    note: str = ""


@dataclass
class WriteReport:
    table: str
    rows: int
    quarantined: int
    quarantine_reasons: dict[str, int] = field(default_factory=dict)

    def metadata(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "rows": self.rows,
            "quarantined": self.quarantined,
            "quarantine_reasons": json.dumps(self.quarantine_reasons, sort_keys=True),
        }


def read_sql(relative: str) -> str:
    """The text of `sql/<relative>`; SQL lives in files named after what they build."""
    path = SQL_DIR / relative
    if not path.exists():
        raise FileNotFoundError(f"missing SQL file {path}")
    return path.read_text(encoding="utf-8")


def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def column_list(names: list[str]) -> str:
    """Column names as a quoted, comma-separated SQL list."""
    return ", ".join(quote_ident(n) for n in names)


def type_name(text: str) -> str:
    """A DuckDB type name as DuckDB printed it (VARCHAR, DOUBLE, TIMESTAMP WITH TIME ZONE, DECIMAL(18,3),
    BIGINT[]); anything else is refused rather than pasted into a statement."""
    if not re.fullmatch(r"[A-Z][A-Z0-9_ ]*(\(\d+(,\s*\d+)?\))?(\[\d*\])*", text):
        raise ValueError(f"refusing an unexpected type name in SQL: {text!r}")
    return text


def qualified(table: str) -> str:
    schema, name = table.split(".")
    return f"{quote_ident(schema)}.{quote_ident(name)}"


def sql_string_literal(text: str) -> str:
    """A single-quoted SQL literal, for the few statements that take no parameters (ATTACH, COPY TO,
    COMMENT ON). Quotes are doubled (DuckDB's strings know no backslash escapes); a NUL byte, which
    could end the string early in a C layer, is refused."""
    text = str(text)
    if "\x00" in text:
        raise ValueError(f"refusing a NUL byte in an SQL literal: {text!r}")
    return "'" + text.replace("'", "''") + "'"


def sql_path_literal(path: str | Path) -> str:
    """A file path as an SQL literal: made absolute, so that DuckDB never reads a prefix of it as a
    protocol or a special name (`md:`, `s3://`, `:memory:`), then quoted by `sql_string_literal`."""
    return sql_string_literal(os.path.abspath(path))


_AUDIT_DDL = """
CREATE SCHEMA IF NOT EXISTS audit;
CREATE TABLE IF NOT EXISTS audit.quarantine (
    table_name VARCHAR NOT NULL,
    source VARCHAR NOT NULL,
    location VARCHAR NOT NULL,
    reason VARCHAR NOT NULL,
    row_json VARCHAR
);
CREATE TABLE IF NOT EXISTS audit.source_files (
    table_name VARCHAR NOT NULL,
    source VARCHAR NOT NULL,
    sha256 VARCHAR,
    size_bytes BIGINT,
    detected_format VARCHAR NOT NULL,
    status VARCHAR NOT NULL,
    rows BIGINT NOT NULL,
    note VARCHAR
);
ALTER TABLE audit.quarantine ADD COLUMN IF NOT EXISTS scope VARCHAR;
ALTER TABLE audit.source_files ADD COLUMN IF NOT EXISTS scope VARCHAR;
"""


def one_line(text: str | None) -> str:
    """Docstring or description text as one line (whitespace collapsed)."""
    return " ".join((text or "").split())


def describe_table(conn: duckdb.DuckDBPyConnection, table: str, model: type[pa.DataFrameModel],
                   kind: str = "TABLE") -> None:
    """COMMENT ON the table (or, with kind="VIEW", the view) and each of its columns, from the model's docstring
    and each `Field(description=...)`: the one place a column is described (one round trip)."""
    if kind not in ("TABLE", "VIEW"):
        raise ValueError(f"describe_table: kind must be TABLE or VIEW, not {kind!r}")
    schema = model.to_schema()
    statements = [f"COMMENT ON {kind} {qualified(table)} IS {sql_string_literal(one_line(schema.description))}"]
    statements += [f"COMMENT ON COLUMN {qualified(table)}.{quote_ident(name)} "
                   f"IS {sql_string_literal(one_line(column.description))}" for name, column in schema.columns.items()]
    conn.execute(";\n".join(statements))


def _described(conn: duckdb.DuckDBPyConnection, table: str, model: type[pa.DataFrameModel]) -> bool:
    """Whether `table` and its columns already carry the model's descriptions."""
    schema, name = table.split(".")
    found = dict(conn.execute("SELECT column_name, comment FROM duckdb_columns() WHERE schema_name = ? "
                              "AND table_name = ?", [schema, name]).fetchall())
    return all(found.get(c) == one_line(column.description) for c, column in model.to_schema().columns.items())


def _describe_audit(conn: duckdb.DuckDBPyConnection) -> None:
    """Create the audit tables if need be and describe them, unless they already are."""
    conn.execute(_AUDIT_DDL)
    described = conn.execute("SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'audit' AND table_name IN "
                             "('quarantine', 'source_files') AND comment = ?",
                             [one_line(Quarantine.to_schema().description)]).fetchone()[0]
    if not described:
        describe_table(conn, "audit.quarantine", Quarantine)
        describe_table(conn, "audit.source_files", SourceFiles)


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


def model_columns(model: type[pa.DataFrameModel]) -> list[str]:
    return list(model.to_schema().columns.keys())


# The pandera checks our models use, as SQL conditions on one value (`{c}`), for validating in DuckDB.
_SQL_CHECKS = {
    "greater_than_or_equal_to": lambda stats: f"{{c}} >= {stats['min_value']!r}",
    "greater_than": lambda stats: f"{{c}} > {stats['min_value']!r}",
    "less_than_or_equal_to": lambda stats: f"{{c}} <= {stats['max_value']!r}",
    "less_than": lambda stats: f"{{c}} < {stats['max_value']!r}",
    "in_range": lambda stats: (f"{{c}} {'>=' if stats.get('include_min', True) else '>'} {stats['min_value']!r} AND "
                               f"{{c}} {'<=' if stats.get('include_max', True) else '<'} {stats['max_value']!r}"),
    "isin": lambda stats: "{c} IN (" + ", ".join(sql_string_literal(v) if isinstance(v, str) else repr(v)
                                                 for v in stats["allowed_values"]) + ")",
    "notin": lambda stats: "{c} NOT IN (" + ", ".join(sql_string_literal(v) if isinstance(v, str) else repr(v)
                                                      for v in stats["forbidden_values"]) + ")",
    "str_matches": lambda stats: f"regexp_matches({{c}}, {sql_string_literal('^(?:' + str(stats['pattern']) + ')')})",
    "str_length": lambda stats: " AND ".join(
        [f"length({{c}}) >= {stats['min_value']}"] * (stats.get("min_value") is not None)
        + [f"length({{c}}) <= {stats['max_value']}"] * (stats.get("max_value") is not None)) or "true",
}


@dataclass(frozen=True)
class SqlCheck:
    """One pandera check of one column, as a SQL condition that is true when a row passes."""

    column: str
    check: str  # as pandera names it, e.g. greater_than_or_equal_to(0)
    condition: str


def sql_checks(model: type[pa.DataFrameModel], columns: list[str] | None = None) -> list[SqlCheck]:
    """The model's column checks (nullability and every Field check) as SQL conditions, for the given
    columns (default all): the same rules pandera applies, evaluated by DuckDB over any number of rows.
    A check this translation does not know raises, so a model never loses a check silently."""
    out = []
    for name, column in model.to_schema().columns.items():
        if columns is not None and name not in columns:
            continue
        ident = quote_ident(name)
        if not column.nullable:  # pandera counts a float NaN as null
            floating = column.dtype is not None and "Float" in str(column.dtype)
            out.append(SqlCheck(name, "not_nullable",
                                f"{ident} IS NOT NULL" + (f" AND NOT isnan({ident})" if floating else "")))
        for check in column.checks:
            if check.name not in _SQL_CHECKS:
                raise SchemaMismatch(f"{model.__name__}.{name}: check {check.name} has no SQL form in "
                                     "assets.warehouse._SQL_CHECKS; add it there")
            condition = _SQL_CHECKS[check.name](check.statistics).replace("{c}", ident)
            label = str(check).split(": ", 1)[-1].rstrip(">")
            out.append(SqlCheck(name, label, f"({ident} IS NULL OR ({condition}))"))
    return out


def sql_valid(checks: list[SqlCheck]) -> str:
    """A SQL condition true when a row passes every check."""
    return " AND ".join(c.condition for c in checks) or "true"


def sql_reasons(checks: list[SqlCheck], model_name: str) -> str:
    """A SQL expression naming every check a row fails, worded like pandera's quarantine reasons."""
    parts = [f"CASE WHEN NOT coalesce({c.condition}, false) THEN {sql_string_literal(c.column + ' failed ' + c.check)}"
             f" || ' (value ' || coalesce(CAST({quote_ident(c.column)} AS VARCHAR), 'None') || ')' END"
             for c in checks]
    return f"{sql_string_literal('schema ' + model_name + ': ')} || concat_ws('; ', {', '.join(parts)})"


def frame_from_rows(rows: list[dict[str, Any]], model: type[pa.DataFrameModel]) -> pl.DataFrame:
    """A frame of `rows`; with no rows, an empty frame typed by the model (so tables keep types)."""
    if rows:
        return pl.DataFrame(rows, infer_schema_length=None)
    return pl.DataFrame(schema={name: column.dtype.type for name, column in model.to_schema().columns.items()})


# Validation strategy. The pandera model of a table is the one statement of its rules. pandera itself
# validates every frame's schema (columns, types, coercion: validation depth SCHEMA_ONLY); the model's
# data checks (nullability, every Field check, uniqueness) are compiled to SQL (`sql_checks`) and run by
# DuckDB over every row, vectorised, whatever the size, so validation never iterates rows in Python nor
# pays pandera's per-check cost on large frames. tests/test_schemas.py shows both give the same verdicts.
# Per-request records are checked the same way, in the scan that reads them (assets.request_stats).


def split_valid(
    frame: pl.DataFrame, model: type[pa.DataFrameModel], table: str
) -> tuple[pl.DataFrame, list[Reject]]:
    """Validate `frame` against `model`; return the valid rows (coerced, in model column order)
    and a Reject for every row that failed a check. Structural problems raise SchemaMismatch."""
    columns = model_columns(model)
    missing = [c for c in columns if c not in frame.columns]
    extra = [c for c in frame.columns if c not in columns and c not in ("_source", "_location")]
    if missing or extra:
        raise SchemaMismatch(f"{table}: frame columns do not match schemas model {model.__name__}: "
                             f"missing {missing}, unexpected {extra}")
    sources = frame.get_column("_source") if "_source" in frame.columns else None
    locations = frame.get_column("_location") if "_location" in frame.columns else None
    body = frame.select(columns)
    reasons: dict[int, list[str]] = {}
    try:
        with config_context(validation_depth=ValidationDepth.SCHEMA_ONLY):
            coerced = model.validate(body, lazy=True)
    except pa.errors.SchemaErrors as errors:
        cases = errors.failure_cases
        table_cases = cases.filter(pl.col("index").is_null())
        if table_cases.height:
            described = "; ".join(
                f"{r['column']}: {r['check']} ({r['failure_case']})" for r in table_cases.iter_rows(named=True)
            )
            raise SchemaMismatch(f"{table}: whole-table check failed against {model.__name__}: {described}") from None
        for case in cases.iter_rows(named=True):  # values that do not coerce to the column's type
            reasons.setdefault(int(case["index"]), []).append(
                f"{case['column']} failed {case['check']} (value {case['failure_case']!r})")
        keep = body.with_row_index("_i").filter(~pl.col("_i").is_in(sorted(reasons))).drop("_i")
        with config_context(validation_depth=ValidationDepth.SCHEMA_ONLY):
            coerced = model.validate(keep, lazy=True)
        positions = [i for i in range(body.height) if i not in reasons]
    else:
        positions = None
    for i, reason in _failing_rows(coerced, model):
        reasons.setdefault(positions[i] if positions is not None else i, []).append(reason)
    if not reasons:
        return coerced, []
    bad = sorted(reasons)
    rejects = [
        Reject(
            source=str(sources[i]) if sources is not None else table,
            location=str(locations[i]) if locations is not None else f"row {i}",
            reason=f"schema {model.__name__}: " + "; ".join(reasons[i]),
            row=body.row(i, named=True),
        )
        for i in bad
    ]
    good_positions = [i for i in range(body.height) if i not in reasons]
    kept = [j for j, i in enumerate(positions if positions is not None else range(body.height)) if i not in reasons]
    assert len(kept) == len(good_positions)
    return coerced.with_row_index("_j").filter(pl.col("_j").is_in(kept)).drop("_j"), rejects


_CHECKER: list[duckdb.DuckDBPyConnection] = []


def _checker() -> duckdb.DuckDBPyConnection:
    """The in-memory DuckDB connection that runs the data checks (one per process, kept: opening one
    costs more than checking a small frame)."""
    if not _CHECKER:
        _CHECKER.append(duckdb.connect())
    return _CHECKER[0].cursor()


def _failing_rows(frame: pl.DataFrame, model: type[pa.DataFrameModel]) -> list[tuple[int, str]]:
    """(row position, reason) for every failed data check of `model` in `frame`, evaluated by DuckDB."""
    if frame.height == 0:
        return []
    checks = sql_checks(model)
    schema = model.to_schema()
    uniques = [[c] for c, column in schema.columns.items() if column.unique]
    if schema.unique:
        uniques.append([schema.unique] if isinstance(schema.unique, str) else list(schema.unique))
    duplicate = [f"count(*) OVER (PARTITION BY {', '.join(quote_ident(c) for c in cols)}) > 1" for cols in uniques]
    conn = _checker()
    try:
        conn.register("_frame", frame.with_row_index("_i").to_arrow())
        failing = conn.execute(
            f"SELECT _i, CASE WHEN NOT ({sql_valid(checks)}) THEN {sql_reasons(checks, '')} END, "
            + (", ".join(f"({d})" for d in duplicate) or "NULL")
            + f" FROM _frame {'QUALIFY' if duplicate else 'WHERE'} NOT ({sql_valid(checks)})"
            + "".join(f" OR ({d})" for d in duplicate)).fetchall()
    finally:
        conn.unregister("_frame")
    out = []
    for i, reason, *dupes in failing:
        if reason:
            out.append((int(i), reason.split(": ", 1)[1]))
        for cols, dupe in zip(uniques, dupes):
            if dupe:
                out.append((int(i), f"{', '.join(cols)} failed uniqueness (another row has the same value)"))
    return out


def _replace_scope(conn: duckdb.DuckDBPyConnection, table: str, column: str, value: str) -> None:
    """Replace the rows of `table` whose `column` equals `value` with `_benchbill_frame`'s rows.
    A table from an older model gains the new columns (NULL in other scopes' rows) and loses
    the dropped ones, so one scope can be re-ingested without rebuilding the others."""
    conn.execute(f"CREATE TABLE IF NOT EXISTS {qualified(table)} AS SELECT * FROM _benchbill_frame LIMIT 0")
    schema, name = table.split(".")
    existing = {r[0] for r in conn.execute(
        "SELECT column_name FROM duckdb_columns() WHERE schema_name = ? AND table_name = ?", [schema, name]
    ).fetchall()}
    wanted = conn.execute("DESCRIBE SELECT * FROM _benchbill_frame").fetchall()
    for column_name, column_type, *_rest in wanted:
        if column_name not in existing:
            conn.execute(f"ALTER TABLE {qualified(table)} ADD COLUMN {quote_ident(column_name)} "
                         f"{type_name(column_type)}")
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
def _within_transaction(conn: duckdb.DuckDBPyConnection) -> Iterator[None]:
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
    _describe_audit(conn)
    conn.execute(f"CREATE SCHEMA IF NOT EXISTS {quote_ident(schema)}")
    with _within_transaction(conn):
        conn.register("_benchbill_frame", valid.to_arrow())
        if scope is None:
            conn.execute(f"CREATE OR REPLACE TABLE {qualified(table)} AS SELECT * FROM _benchbill_frame")
        else:
            _replace_scope(conn, table, scope[0], scope[1])
        conn.unregister("_benchbill_frame")
        if scope is None or not _described(conn, table, model):
            describe_table(conn, table, model)
        _record_quarantine(conn, table, all_rejects, scope_label)
        if source_files is not None:
            _clear_audit(conn, "audit.source_files", table, scope_label)
            if source_files:
                conn.executemany(
                    "INSERT INTO audit.source_files (table_name, source, sha256, size_bytes, detected_format, "
                    "status, rows, note, scope) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [[table, f.source, f.sha256, f.size_bytes, f.detected_format, f.status, f.rows, f.note,
                      scope_label] for f in source_files],
                )
        checkpoint(f"write.{table}")
    counts: dict[str, int] = {}
    for r in all_rejects:
        key = r.reason.split(":")[0]
        counts[key] = counts.get(key, 0) + 1
    return WriteReport(table=table, rows=valid.height, quarantined=len(all_rejects), quarantine_reasons=counts)


def _clear_audit(conn: duckdb.DuckDBPyConnection, audit: str, table: str, scope_label: str | None) -> None:
    """Delete `table`'s rows from the audit table `audit`: without a scope all of them; with one, that scope's."""
    conn.execute(f"DELETE FROM {qualified(audit)} WHERE table_name = ? AND (?::VARCHAR IS NULL "
                 "OR scope IS NOT DISTINCT FROM ?)", [table, scope_label, scope_label])


def _record_quarantine(conn: duckdb.DuckDBPyConnection, table: str, rejects: list[Reject],
                       scope_label: str | None) -> None:
    """Replace `table`'s quarantine rows (of the scope) with `rejects` (inside the caller's transaction)."""
    _clear_audit(conn, "audit.quarantine", table, scope_label)
    if rejects:
        conn.executemany(
            "INSERT INTO audit.quarantine (table_name, source, location, reason, row_json, scope) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [[table, r.source, r.location, r.reason, row_json(r.row), scope_label] for r in rejects],
        )


VIEW_SAMPLE_ROWS = 10_000


def create_view(conn: duckdb.DuckDBPyConnection, view: str, parts: list[str], model: type[pa.DataFrameModel],
                rejects: list[Reject] | None = None, sampled: list[int] | None = None) -> int:
    """Replace `view` (a view over files read in place, too large to copy) with the UNION ALL of the
    SELECTs in `parts`, described from `model` like a table, its quarantine rows replaced with
    `rejects`, in one transaction. Its rows were checked where they were read (the model's checks
    in SQL); pandera validates a sample here (the first rows of the parts `sampled`, default all;
    VIEW_SAMPLE_ROWS in all), and a mismatch raises SchemaMismatch. Returns the rows sampled."""
    _describe_audit(conn)
    schema, name = view.split(".")
    conn.execute(f"CREATE SCHEMA IF NOT EXISTS {quote_ident(schema)}")
    with _within_transaction(conn):
        if conn.execute("SELECT count(*) FROM duckdb_tables() WHERE schema_name = ? AND table_name = ?",
                        [schema, name]).fetchone()[0]:
            conn.execute(f"DROP TABLE {qualified(view)}")  # a build file from before it was a view
        conn.execute(f"CREATE OR REPLACE VIEW {qualified(view)} AS "
                     + "\nUNION ALL\n".join(f"({part})" for part in parts))
        chosen = [parts[i] for i in (sampled if sampled is not None else range(len(parts)))]
        each = max(1, VIEW_SAMPLE_ROWS // max(1, len(chosen)))
        sample = pl.concat([conn.execute(f"SELECT * FROM ({part}) LIMIT {each}").pl() for part in chosen],
                           how="vertical_relaxed")
        try:
            model.validate(sample.select(model_columns(model)), lazy=True)
        except pa.errors.SchemaErrors as errors:
            raise SchemaMismatch(f"{view}: a sample of the view fails {model.__name__}: "
                                 f"{errors.failure_cases.head(5).to_dicts()}") from None
        describe_table(conn, view, model, kind="VIEW")
        _record_quarantine(conn, view, list(rejects or []), None)
        checkpoint(f"write.{view}")
    return sample.height


def query_frame(conn: duckdb.DuckDBPyConnection, sql: str, params: list | dict | None = None) -> pl.DataFrame:
    """Run a SELECT and return a polars frame."""
    return conn.execute(sql, params or []).pl()


def run_sql_file(conn: duckdb.DuckDBPyConnection, relative: str, params: list | dict | None = None) -> pl.DataFrame:
    """Run the SELECT in `sql/<relative>` and return its rows as a polars frame."""
    return query_frame(conn, read_sql(relative), params)
