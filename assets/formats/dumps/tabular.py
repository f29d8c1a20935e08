"""The header of a tabular dump file, CSV or Parquet: the column names the generic formats are recognised by
(the per-request format, assets/formats/dumps/generic.py, and the per-level summary,
assets/formats/dumps/generic_levels.py)."""

from __future__ import annotations

import io

import polars as pl

from assets.formats.dumps.exchange import Dump


def is_parquet(dump: Dump) -> bool:
    """A Parquet file: its magic bytes at both ends."""
    return dump.data[:4] == b"PAR1" and dump.last_bytes[-4:] == b"PAR1"


def header_columns(dump: Dump) -> list[str] | None:
    """The column names of a Parquet file's schema or of a CSV's first line (comma-separated, quotes stripped); None
    when the file is neither (JSON, or a first line without a comma)."""
    if is_parquet(dump):
        try:
            return list(pl.read_parquet_schema(dump.path if dump.path else io.BytesIO(dump.data)))
        except (pl.exceptions.PolarsError, OSError):
            return None
    if dump.payload is not None:
        return None
    first = dump.text_head.split("\n", 1)[0].strip()
    return [c.strip().strip('"') for c in first.split(",")] if "," in first else None
