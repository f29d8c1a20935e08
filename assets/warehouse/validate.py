"""Validating a frame against its table's pandera model: pandera checks the schema, DuckDB runs the
model's data checks (compiled to SQL) over every row; failing rows become rejects with the reason."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import duckdb
import pandera.polars as pa
import polars as pl
from pandera.config import ValidationDepth, config_context

from assets.core.errors import SchemaMismatch
from assets.core.records import HIDDEN_COLUMNS, LOCATION_COLUMN, SOURCE_COLUMN, Reject
from assets.core.sqltext import quote_ident, sql_string_literal
from assets.warehouse.rows import frame_schema


def model_columns(model: type[pa.DataFrameModel]) -> list[str]:
    return list(model.to_schema().columns.keys())


# The pandera checks our models use, as SQL conditions on one value (`{c}`), for validating in DuckDB.
_SQL_CHECKS = {
    "greater_than_or_equal_to": lambda stats: f"{{c}} >= {stats['min_value']!r}",
    "greater_than": lambda stats: f"{{c}} > {stats['min_value']!r}",
    "less_than_or_equal_to": lambda stats: f"{{c}} <= {stats['max_value']!r}",
    "less_than": lambda stats: f"{{c}} < {stats['max_value']!r}",
    "in_range": lambda stats: (
        f"{{c}} {'>=' if stats.get('include_min', True) else '>'} {stats['min_value']!r} AND "
        f"{{c}} {'<=' if stats.get('include_max', True) else '<'} {stats['max_value']!r}"
    ),
    "isin": lambda stats: (
        "{c} IN ("
        + ", ".join(sql_string_literal(v) if isinstance(v, str) else repr(v) for v in stats["allowed_values"])
        + ")"
    ),
    "notin": lambda stats: (
        "{c} NOT IN ("
        + ", ".join(sql_string_literal(v) if isinstance(v, str) else repr(v) for v in stats["forbidden_values"])
        + ")"
    ),
    "str_matches": lambda stats: f"regexp_matches({{c}}, {sql_string_literal('^(?:' + str(stats['pattern']) + ')')})",
    "str_length": lambda stats: (
        " AND ".join(
            [f"length({{c}}) >= {stats['min_value']}"] * (stats.get("min_value") is not None)
            + [f"length({{c}}) <= {stats['max_value']}"] * (stats.get("max_value") is not None)
        )
        or "true"
    ),
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
            out.append(
                SqlCheck(
                    name, "not_nullable", f"{ident} IS NOT NULL" + (f" AND NOT isnan({ident})" if floating else "")
                )
            )
        for check in column.checks:
            if check.name not in _SQL_CHECKS:
                raise SchemaMismatch(
                    f"{model.__name__}.{name}: check {check.name} has no SQL form in "
                    "assets.warehouse.validate._SQL_CHECKS; add it there"
                )
            condition = _SQL_CHECKS[check.name](check.statistics).replace("{c}", ident)
            label = str(check).split(": ", 1)[-1].rstrip(">")
            out.append(SqlCheck(name, label, f"({ident} IS NULL OR ({condition}))"))
    return out


def sql_valid(checks: list[SqlCheck]) -> str:
    """A SQL condition true when a row passes every check."""
    return " AND ".join(c.condition for c in checks) or "true"


def sql_reasons(checks: list[SqlCheck], model_name: str) -> str:
    """A SQL expression naming every check a row fails, worded like pandera's quarantine reasons."""
    parts = [
        f"CASE WHEN NOT coalesce({c.condition}, false) THEN {sql_string_literal(c.column + ' failed ' + c.check)}"
        f" || ' (value ' || coalesce(CAST({quote_ident(c.column)} AS VARCHAR), 'None') || ')' END"
        for c in checks
    ]
    return f"{sql_string_literal('schema ' + model_name + ': ')} || concat_ws('; ', {', '.join(parts)})"


def frame_from_rows(rows: list[dict[str, Any]], model: type[pa.DataFrameModel]) -> pl.DataFrame:
    """A frame of `rows`; with no rows, an empty frame typed by the model (so tables keep types)."""
    if rows:
        return pl.DataFrame(rows, infer_schema_length=None)
    return pl.DataFrame(schema=frame_schema(model))


# Validation strategy. The pandera model of a table is the one statement of its rules. pandera itself
# validates every frame's schema (columns, types, coercion: validation depth SCHEMA_ONLY); the model's
# data checks (nullability, every Field check, uniqueness) are compiled to SQL (`sql_checks`) and run by
# DuckDB over every row, vectorised, whatever the size, so validation never iterates rows in Python nor
# pays pandera's per-check cost on large frames. tests/unit/test_schemas.py shows both give the same verdicts.
# Per-request records are checked the same way, in the scan that reads them (assets.request_records.request_pass).


def split_valid(frame: pl.DataFrame, model: type[pa.DataFrameModel], table: str) -> tuple[pl.DataFrame, list[Reject]]:
    """Validate `frame` against `model`; return the valid rows (coerced, in model column order)
    and a Reject for every row that failed a check. Structural problems raise SchemaMismatch."""
    columns = model_columns(model)
    missing = [c for c in columns if c not in frame.columns]
    extra = [c for c in frame.columns if c not in columns and c not in HIDDEN_COLUMNS]
    if missing or extra:
        raise SchemaMismatch(
            f"{table}: frame columns do not match schemas model {model.__name__}: missing {missing}, unexpected {extra}"
        )
    sources = frame.get_column(SOURCE_COLUMN) if SOURCE_COLUMN in frame.columns else None
    locations = frame.get_column(LOCATION_COLUMN) if LOCATION_COLUMN in frame.columns else None
    body = frame.select(columns)
    reasons: dict[int, list[str]] = {}
    positions: list[int] | None
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
                f"{case['column']} failed {case['check']} (value {case['failure_case']!r})"
            )
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
            + "".join(f" OR ({d})" for d in duplicate)
        ).fetchall()
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
