"""Rows of a warehouse table built against its pandera model where they are built: `row_for` checks a row's columns
(a missing or misspelt one raises there, naming the table, the column and the line that built the row, not at the
write); `frame_schema` is the model's columns as polars types. Values are not checked here: a value that does not
fit its column is a quarantined row at the write (assets.warehouse.validate)."""

from __future__ import annotations

import difflib
import functools
import sys
from collections.abc import Mapping
from pathlib import Path
from types import FrameType
from typing import Any

import pandera.polars as pa
import polars as pl

from assets.core.errors import SchemaMismatch
from assets.core.records import LOCATION_COLUMN, SOURCE_COLUMN

REPO_ROOT = Path(__file__).resolve().parents[2]


def table_of(model: type[pa.DataFrameModel]) -> str:
    """`schema.table` of a model (schemas/<schema>/<table>.py defines it)."""
    return model.__module__.removeprefix("schemas.")


@functools.cache
def columns_of(model: type[pa.DataFrameModel]) -> frozenset[str]:
    """The model's column names (read once per model: a row is checked against them as it is built)."""
    return frozenset(model.to_schema().columns)


def frame_schema(model: type[pa.DataFrameModel]) -> dict[str, pl.DataType]:
    """The model's columns with their polars types, in the model's order (a frame's `schema=`)."""
    return {name: column.dtype.type for name, column in model.to_schema().columns.items()}


def row_for(
    model: type[pa.DataFrameModel], values: Mapping[str, Any], origin: tuple[str, str] | None = None
) -> dict[str, Any]:
    """A row of `model`'s table: `values` in their order, then, with `origin` (source, location), the hidden columns
    that name the row if it is quarantined. SchemaMismatch, naming the table, each missing or unknown column and the
    line that built the row, when the keys of `values` are not exactly the model's columns."""
    columns = columns_of(model)
    if values.keys() != columns:
        raise SchemaMismatch(_mismatch(model, set(values), columns, sys._getframe(1)))
    row = dict(values)
    if origin is not None:
        row[SOURCE_COLUMN], row[LOCATION_COLUMN] = origin
    return row


def _mismatch(model: type[pa.DataFrameModel], keys: set[str], columns: frozenset[str], built: FrameType) -> str:
    """What is wrong with a row's columns, and where (`built`: the frame that called row_for) it was built."""
    path = Path(built.f_code.co_filename)
    where = path.relative_to(REPO_ROOT) if path.is_relative_to(REPO_ROOT) else path
    problems = [f"missing column {name!r}" for name in sorted(columns - keys)]
    for name in sorted(keys - columns):
        close = difflib.get_close_matches(name, columns, n=1)
        problems.append(f"unknown column {name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    return (
        f"{table_of(model)}: row built at {where}:{built.f_lineno} ({built.f_code.co_name}) does not fit the model "
        f"{model.__name__}: {'; '.join(problems)}"
    )
