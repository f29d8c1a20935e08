"""pandera models of the warehouse tables, one module per table: `schemas/<schema>/<table>.py` holds the model
of `<schema>.<table>` (its docstring describes the table, each Field its column). `vocab.py` holds the words a
column may hold, `columns.py` the column definitions several tables share."""

from __future__ import annotations

import importlib

import pandera.polars as pa


def model_for(table: str) -> type[pa.DataFrameModel]:
    """The pandera model of `schema.table`: the one model class `schemas/<schema>/<table>.py` defines."""
    schema, name = table.split(".")
    try:
        module = importlib.import_module(f"schemas.{schema}.{name}")
    except ModuleNotFoundError:
        raise LookupError(f"{table}: no pandera model; expected schemas/{schema}/{name}.py") from None
    models = [
        value
        for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, pa.DataFrameModel) and value.__module__ == module.__name__
    ]
    if len(models) != 1:
        raise LookupError(f"schemas/{schema}/{name}.py defines {len(models)} models; expected exactly one")
    return models[0]
