"""`benchbill sql`: named queries (sql/queries/<name>.sql) and plain SQL on the serving file,
always opened read-only, with parameters bound (never pasted into the SQL)."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import duckdb

from assets.report.textformat import align_rows, to_json, value_text
from assets.warehouse import sqldoc

FORMATS = ("table", "csv", "json")


class QueryProblem(Exception):
    """A query that cannot run; the message says what to do."""


def open_serving(serving_path: Path) -> duckdb.DuckDBPyConnection:
    """A read-only connection to the published file (a pipeline run never waits for it)."""
    if not serving_path.exists():
        raise QueryProblem(
            f"{serving_path}: no published serving file here; run `benchbill run` first "
            "(or pass --warehouse DIR with the folder that holds serving.duckdb)"
        )
    try:
        return duckdb.connect(str(serving_path), read_only=True)
    except duckdb.Error as exc:
        raise QueryProblem(f"{serving_path}: cannot open read-only ({exc})") from exc


def parse_params(pairs: list[str]) -> dict[str, str]:
    params = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise QueryProblem(f"--param {pair!r}: expected NAME=VALUE, e.g. --param profile=chat-8b-interactive")
        params[name.strip()] = value
    return params


def describe_queries() -> str:
    """The named queries and their parameters, for `benchbill sql` without a query."""
    lines = ["named queries (benchbill sql NAME [--param NAME=VALUE]...):", ""]
    for name, doc in sqldoc.query_docs().items():
        lines.append(f"  {name}")
        lines.append(f"      {doc.description}")
        for param in doc.params.values():
            lines.append(
                f"      --param {param.name}=...{'  (optional)' if param.optional else ''}  {param.description}"
            )
    lines += [
        "",
        'or plain SQL: benchbill sql "SELECT * FROM analytics.shortlist LIMIT 5"',
        "views: benchbill sql \"SELECT view_name, comment FROM duckdb_views() WHERE schema_name = 'analytics'\"",
    ]
    return "\n".join(lines)


def resolve(query: str, params: dict[str, str]) -> tuple[str, dict[str, Any]]:
    """The SQL and bound parameters for a named query or a plain SQL text."""
    named = sqldoc.query_docs()
    if query in named:
        doc = named[query]
        unknown = sorted(set(params) - set(doc.params))
        if unknown:
            raise QueryProblem(
                f"query {query!r} ({doc.path}) takes no parameter {unknown}; "
                f"its parameters: {sorted(doc.params) or 'none'}"
            )
        missing = [p.name for p in doc.params.values() if not p.optional and p.name not in params]
        if missing:
            hints = "; ".join(f"--param {m}=...: {doc.params[m].description}" for m in missing)
            raise QueryProblem(f"query {query!r} needs {hints}")
        return doc.sql, {name: params.get(name) for name in doc.params}
    if not any(ch.isspace() for ch in query.strip()):
        raise QueryProblem(
            f"no named query {query!r} in {sqldoc.QUERIES_DIR}; named queries: "
            f"{', '.join(named)} (or quote a whole SQL statement)"
        )
    return query, params


def run(serving_path: Path, query: str, params: dict[str, str]) -> tuple[list[str], list[tuple]]:
    sql, bound = resolve(query, params)
    conn = open_serving(serving_path)
    try:
        cursor = conn.execute(sql, bound or None)
        if cursor.description is None:
            return [], []
        return [d[0] for d in cursor.description], cursor.fetchall()
    except duckdb.Error as exc:
        raise QueryProblem(
            f"{type(exc).__name__}: {exc}\n(the serving file is read-only; the views are "
            'listed by `benchbill sql "SELECT view_name, comment FROM duckdb_views() '
            "WHERE schema_name = 'analytics'\"`)"
        ) from exc
    finally:
        conn.close()


def render(columns: list[str], rows: list[tuple], fmt: str) -> str:
    if fmt == "json":
        return to_json(columns, rows)
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(["" if v is None else v for v in row] for row in rows)
        return out.getvalue().rstrip("\n")
    if not columns:
        return "(no result)"
    lines = align_rows(columns, [[value_text(v) for v in row] for row in rows])
    lines.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return "\n".join(lines)
