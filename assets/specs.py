"""The Dagster spec of a table a Python asset writes: its key and group (the warehouse schema), and its
description, read from the table's pandera model (the one place a table is described); which tables of a
multi-asset a run selected."""

from typing import Any

import dagster as dg

from assets.core.sqltext import one_line
from schemas import model_for


def table_spec(table: str, kinds: set[str], **kwargs: Any) -> dg.AssetSpec:
    """The asset spec of warehouse table `schema.table`."""
    schema, name = table.split(".")
    return dg.AssetSpec(
        [schema, name], group_name=schema, kinds=kinds, description=one_line(model_for(table).__doc__), **kwargs
    )


def selected_tables(context: dg.AssetExecutionContext) -> list[str]:
    """The `schema.table` names of the assets this run selected of a (subsettable) multi-asset, in spec order."""
    return [".".join(key.path) for key in context.selected_asset_keys]
