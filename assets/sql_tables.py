"""Assets and asset checks made from SQL files, one per file: a table per `sql/<schema>/<table>.sql` (its
dependencies are the tables its SQL reads, its rows validated against `schemas/<schema>/<table>.py`), a check
per `sql/checks/<schema>/<table>__<check>.sql` (it passes when the SQL selects no row). Adding a file adds the
asset or the check; nothing is restated in Python (`assets.warehouse.sqlfiles` reads the files)."""

from typing import Any

import dagster as dg

from assets.core.paths import SQL_DIR
from assets.resources import Warehouse
from assets.specs import OWNERS, definition_metadata, sql_code_version, table_metadata
from assets.warehouse.published_set import damaged_serving
from assets.warehouse.sqlfiles import (
    CheckSql,
    TableSql,
    build_table,
    check_sql_files,
    inputs_of_rows,
    offending_rows,
    table_sql_files,
)
from schemas import model_for

SEVERITIES = {"error": dg.AssetCheckSeverity.ERROR, "warn": dg.AssetCheckSeverity.WARN}


def table_asset(spec: TableSql) -> dg.AssetsDefinition:
    """The asset that builds `spec.table` from its SELECT."""
    schema, name = spec.table.split(".")
    model = model_for(spec.table)

    @dg.asset(
        key=[schema, name],
        deps=[dep.split(".") for dep in spec.reads],
        group_name=schema,
        kinds={"duckdb", "sql"},
        description=f"{spec.description} (built by sql/{spec.relative})",
        owners=OWNERS,
        code_version=sql_code_version(spec.table, SQL_DIR / spec.relative),
        metadata=definition_metadata(spec.table),
    )
    def _table(warehouse: Warehouse) -> dg.MaterializeResult:
        with warehouse.connect() as conn:
            report = build_table(conn, spec, model)
        return dg.MaterializeResult(metadata=table_metadata(report))

    return _table


def _plain(value: Any) -> Any:
    return value if isinstance(value, (int, float, str, bool, type(None))) else str(value)


ROWS_SAID = 3  # offending rows a check's outcome names (all of them are in the build file)


def check_outcome(
    check: CheckSql, offending: int, sample: list[dict] | None = None, inputs: list[str] | None = None
) -> str:
    """A check's evaluation in words: passed, or warned / failed with how many rows break what it expects, the first
    of them (`sample`) and the inputs they came from."""
    if not offending:
        return f"passed: {check.description}"
    outcome = "failed" if check.severity == "error" else "warned"
    rows = "1 row breaks" if offending == 1 else f"{offending} rows break"
    said = f"{outcome}: {rows} it (sql/{check.relative}); expected: {check.description}"
    shown = (sample or [])[:ROWS_SAID]
    if shown:
        first = " | ".join(", ".join(f"{k}={v}" for k, v in row.items()) for row in shown)
        said += f"; {'the row' if offending == 1 else f'the first {len(shown)}'}: {first}"
    if inputs:
        said += f"; from {', '.join(inputs)}"
    return said


def sql_check(check: CheckSql) -> dg.AssetChecksDefinition:
    """The asset check that passes when the check's SQL returns no rows; with `attach: published` the SQL
    also sees the serving file (read-only) as `published`; before the first publish, or with a damaged serving file
    (`damaged_serving`: the run publishes it again), the check passes with nothing to compare with."""
    severity = SEVERITIES[check.severity]

    @dg.asset_check(
        asset=dg.AssetKey(check.table.split(".")),
        name=check.name,
        description=check.description,
        blocking=check.blocking,
    )
    def _check(warehouse: Warehouse) -> dg.AssetCheckResult:
        if check.attach_published and not warehouse.serving_path.exists():
            return dg.AssetCheckResult(
                passed=True,
                severity=severity,
                description="passed: nothing published yet, nothing to compare with",
                metadata={"note": "nothing published yet: nothing to compare with"},
            )
        damaged = damaged_serving(warehouse.layout) if check.attach_published else None
        if damaged is not None:
            return dg.AssetCheckResult(
                passed=True,
                severity=severity,
                description=f"passed: the serving file is damaged, nothing to compare with ({damaged}); this "
                "run publishes it again",
                metadata={"note": f"the serving file is damaged: {damaged}"},
            )
        with warehouse.connect() as conn:
            columns, rows = offending_rows(conn, check, warehouse.serving_path)
            inputs = inputs_of_rows(conn, columns, rows) if rows else []
        sample = [{column: _plain(value) for column, value in zip(columns, row)} for row in rows[:5]]
        return dg.AssetCheckResult(
            passed=not rows,
            severity=severity,
            description=check_outcome(check, len(rows), sample, inputs),
            metadata={"offending_rows": len(rows), "sample": dg.MetadataValue.json(sample), "inputs": inputs},
        )

    return _check


table_assets = [table_asset(spec) for spec in table_sql_files()]
table_checks = [sql_check(check) for check in check_sql_files()]
