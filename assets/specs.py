"""What the Dagster catalog shows of a warehouse table, all read from its pandera model (the one place a table is
described) and from what each write reports: the spec of a table a Python asset writes (key, group, description,
owner, column schema, code version) and the metadata of each materialisation (row count, column schema, preview,
source files, quarantine); which tables of a multi-asset a run selected."""

import hashlib
import inspect
from pathlib import Path
from typing import Any

import dagster as dg
import pandera.polars as pa

from assets.core.paths import SQL_DIR
from assets.core.sqltext import one_line
from assets.warehouse.fingerprint import code_fingerprint
from assets.warehouse.sqlfiles import MACROS
from assets.warehouse.write import WriteReport
from schemas import model_for

# Who answers for the tables (Dagster's owners: an e-mail or `team:NAME`); one team runs benchbill.
OWNERS = ["team:benchbill"]
# The code version of a Python-built table: the whole package's code (its library code is not attributable file by
# file); a SQL-built table's is its SQL and its model (assets/sql_tables.py).
PYTHON_CODE_VERSION = code_fingerprint()[:16]


def _constraint(check: Any) -> str:
    """A pandera check in words, e.g. `greater_than_or_equal_to(min_value=0)`."""
    stats = check.statistics or {}
    return f"{check.name}({', '.join(f'{k}={v}' for k, v in stats.items())})" if stats else str(check.name)


def column_schema(model: type[pa.DataFrameModel]) -> dg.TableSchema:
    """The table's columns as Dagster's `dagster/column_schema`: name, type, description, nullability,
    uniqueness and the model's other checks."""
    columns = []
    for name, column in model.to_schema().columns.items():
        columns.append(
            dg.TableColumn(
                name=name,
                type=str(column.dtype),
                description=one_line(column.description) or None,
                constraints=dg.TableColumnConstraints(
                    nullable=bool(column.nullable),
                    unique=bool(column.unique),
                    other=[_constraint(check) for check in column.checks],
                ),
            )
        )
    return dg.TableSchema(columns=columns)


def definition_metadata(table: str) -> dict[str, Any]:
    """Metadata every asset of `table` carries before it is first materialised: its name and column schema."""
    return {"dagster/table_name": table, "dagster/column_schema": column_schema(model_for(table))}


def files_code_version(paths: list[Path]) -> str:
    """A code version made of the content of the files that define an asset."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def sql_code_version(table: str, sql_file: Path) -> str:
    """The code version of a SQL-built table: the content of its SQL file, of the macros every table SELECT may call
    (sql/macros.sql) and of its model's file."""
    return files_code_version([sql_file, SQL_DIR / MACROS, Path(inspect.getsourcefile(model_for(table)) or "")])


def table_spec(table: str, kinds: set[str], **kwargs: Any) -> dg.AssetSpec:
    """The asset spec of warehouse table `schema.table`."""
    schema, name = table.split(".")
    return dg.AssetSpec(
        [schema, name],
        group_name=schema,
        kinds=kinds,
        description=one_line(model_for(table).__doc__),
        owners=OWNERS,
        code_version=PYTHON_CODE_VERSION,
        metadata=definition_metadata(table),
        **kwargs,
    )


def selected_tables(context: dg.AssetExecutionContext) -> list[str]:
    """The `schema.table` names of the assets this run selected of a (subsettable) multi-asset, in spec order."""
    return [".".join(key.path) for key in context.selected_asset_keys]


def table_metadata(report: WriteReport) -> dict[str, Any]:
    """A materialisation's metadata from its write: `dagster/row_count` (the whole table; with the rows of the
    partition written as `dagster/partition_row_count` when one scope was written), the column schema, a
    preview of the first rows, the source files read and what was quarantined."""
    metadata: dict[str, Any] = {
        **definition_metadata(report.table),
        "dagster/row_count": dg.MetadataValue.int(report.rows if report.table_rows is None else report.table_rows),
        "quarantined": dg.MetadataValue.int(report.quarantined),
        "quarantine_reasons": dg.MetadataValue.json(dict(sorted(report.quarantine_reasons.items()))),
    }
    if report.scope is not None:
        metadata["dagster/partition_row_count"] = dg.MetadataValue.int(report.rows)
    if report.preview:
        metadata["preview"] = dg.MetadataValue.md(report.preview)
    if report.sources:
        metadata["source_files"] = dg.MetadataValue.json(report.sources)
    return metadata
