"""What a catalog shows of a written table, as plain data: its rows in the whole table, a markdown preview of
its first rows and the source files it was read from (`assets/specs.py` turns a `WriteReport` holding these
into Dagster metadata)."""

from __future__ import annotations

import datetime
import math
from typing import Any

import duckdb

from assets.core.sqltext import qualified, quote_ident

PREVIEW_ROWS = 5
PREVIEW_CELL_CHARS = 40  # a longer cell is cut with an ellipsis: the preview shows a table's shape, not its texts
SOURCES_LISTED = 20  # source files named one by one in the metadata; the rest are counted
# Tables whose rows never leave the warehouse, not even as a five-row preview in Dagster's event log.
PREVIEW_WITHHELD = {
    "observed.request_texts": "prompt and response texts are kept in the warehouse only (--store-texts)",
}


def table_rows(conn: duckdb.DuckDBPyConnection, table: str) -> int:
    """Rows in the whole table or view (every scope of it)."""
    found = conn.execute(f"SELECT count(*) FROM {qualified(table)}").fetchone()
    return int(found[0]) if found else 0


def _cell(value: Any) -> str:
    if value is None:
        text = "NULL"
    elif isinstance(value, float):
        text = "NaN" if math.isnan(value) else f"{value:.6g}"
    elif isinstance(value, (datetime.date, datetime.datetime, datetime.time)):
        text = value.isoformat()
    else:
        text = " ".join(str(value).split())
    if len(text) > PREVIEW_CELL_CHARS:
        text = text[: PREVIEW_CELL_CHARS - 1] + "…"
    return text.replace("\\", "\\\\").replace("|", "\\|")


def markdown_table(columns: list[str], rows: list[tuple]) -> str:
    """A GitHub-flavoured markdown table (pipes and backslashes in cells escaped, long cells cut)."""
    lines = ["| " + " | ".join(_cell(c) for c in columns) + " |", "|" + " --- |" * len(columns)]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def preview_markdown(conn: duckdb.DuckDBPyConnection, table: str, scope: tuple[str, str] | None = None) -> str:
    """The first PREVIEW_ROWS rows of `table` (of the scope, when one was written) as a markdown table, or
    why there is no preview."""
    if table in PREVIEW_WITHHELD:
        return f"(no preview: {PREVIEW_WITHHELD[table]})"
    if scope is None:
        cursor = conn.execute(f"SELECT * FROM {qualified(table)} LIMIT ?", [PREVIEW_ROWS])
    else:
        cursor = conn.execute(
            f"SELECT * FROM {qualified(table)} WHERE {quote_ident(scope[0])} = ? LIMIT ?", [scope[1], PREVIEW_ROWS]
        )
    columns = [d[0] for d in cursor.description]
    rows = cursor.fetchall()
    if not rows:
        return "(no rows)"
    return markdown_table(columns, rows)


def source_list(sources: list[str]) -> list[str]:
    """The sources named one by one (sorted, each once), the rest counted in a last entry."""
    unique = sorted(set(sources))
    if len(unique) <= SOURCES_LISTED:
        return unique
    return [*unique[:SOURCES_LISTED], f"... and {len(unique) - SOURCES_LISTED} more (audit.source_files)"]
