"""The header of a tabular dump file, CSV or Parquet: the column names the generic formats are recognised by
(the per-request format, assets/formats/dumps/generic.py, and the per-level summary,
assets/formats/dumps/generic_levels.py); and the CSV exports tools write beside their JSON (GuideLLM's
benchmarks.csv, AIPerf's profile_export_aiperf.csv): whether the JSON is beside one, and its text."""

from __future__ import annotations

import io
from pathlib import PurePath

import polars as pl

from assets.formats.dumps.exchange import Dump, FormatProblem
from assets.inputs.textinput import encoding_problem


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


def csv_beside_its_json(dump: Dump) -> bool:
    """A tool's CSV export with the JSON of the same name beside it: the same numbers twice, and the JSON is read."""
    return dump.beside(PurePath(dump.name).stem + ".json")


def csv_text(dump: Dump) -> str:
    """A CSV export's text without its byte-order mark; a file that is not UTF-8 text is a FormatProblem saying why."""
    problem = encoding_problem(dump.data)
    if problem:
        raise FormatProblem(problem)
    return dump.data.decode("utf-8-sig")
