"""Every table and view of a DuckDB file, as sorted rows: what two builds are compared by."""

from pathlib import Path

import duckdb

# Columns that say when a build happened, not what it holds.
# plan_created_at: when a warehouse first made a plan (two warehouses built apart make the same plan at two times)
BUILD_TIME_COLUMNS = {"recorded_at", "ingested_at", "published_at", "built_at", "written_at", "plan_created_at"}


def table_contents(conn: duckdb.DuckDBPyConnection, skip: frozenset[str] = frozenset()) -> dict[str, list[str]]:
    """Each table and view (`schema.name`) with its rows, each as its repr (exact for floats, and NaN equals
    NaN), sorted; columns of BUILD_TIME_COLUMNS left out."""
    names = conn.execute(
        "SELECT table_schema || '.' || table_name FROM information_schema.tables "
        "WHERE table_catalog = current_database() AND table_schema NOT IN ('information_schema', 'pg_catalog') "
        "ORDER BY 1"
    ).fetchall()
    contents = {}
    for (name,) in names:
        if name in skip:
            continue
        schema, table = name.split(".")
        columns = [
            c
            for (c,) in conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = ? AND table_name = ? "
                "AND table_catalog = current_database() ORDER BY ordinal_position",
                [schema, table],
            ).fetchall()
            if c not in BUILD_TIME_COLUMNS
        ]
        select = ", ".join(f'"{c}"' for c in columns)
        rows = conn.execute(f'SELECT {select} FROM "{schema}"."{table}"').fetchall()
        contents[name] = sorted(map(repr, rows))
    return contents


def file_contents(path: Path, skip: frozenset[str] = frozenset()) -> dict[str, list[str]]:
    with duckdb.connect(str(path), read_only=True) as conn:
        return table_contents(conn, skip)
