"""SQL text written safely: quoted identifiers, and literals for the few statements that take no
parameters (ATTACH, COPY TO, COMMENT ON). Everything else binds its values."""

from __future__ import annotations

import os
import re
from pathlib import Path


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


def one_line(text: str | None) -> str:
    """Docstring or description text as one line (whitespace collapsed)."""
    return " ".join((text or "").split())
