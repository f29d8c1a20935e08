"""Assets and asset checks made from SQL files, one per file: a table per `sql/<schema>/<table>.sql` (its
dependencies are the tables its SQL reads, its rows validated against `schemas/<schema>/<table>.py`), a check
per `sql/checks/<schema>/<table>__<check>.sql` (it passes when the SQL selects no row). Adding a file adds the
asset or the check; nothing is restated in Python (`assets.warehouse.sqlfiles` reads the files)."""

from typing import Any

import dagster as dg

from assets.resources import Warehouse
from assets.warehouse.sqlfiles import CheckSql, TableSql, build_table, check_sql_files, offending_rows, table_sql_files
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
    )
    def _table(warehouse: Warehouse) -> dg.MaterializeResult:
        with warehouse.connect() as conn:
            report = build_table(conn, spec, model)
        return dg.MaterializeResult(metadata=report.metadata())

    return _table


def _plain(value: Any) -> Any:
    return value if isinstance(value, (int, float, str, bool, type(None))) else str(value)


def sql_check(check: CheckSql) -> dg.AssetChecksDefinition:
    """The asset check that passes when the check's SQL returns no rows; with `attach: published` the SQL
    also sees the serving file (read-only) as `published`, and before the first publish the check passes."""
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
                passed=True, severity=severity, metadata={"note": "nothing published yet: nothing to compare with"}
            )
        with warehouse.connect() as conn:
            columns, rows = offending_rows(conn, check, warehouse.serving_path)
        sample = [{column: _plain(value) for column, value in zip(columns, row)} for row in rows[:5]]
        return dg.AssetCheckResult(
            passed=not rows,
            severity=severity,
            metadata={"offending_rows": len(rows), "sample": dg.MetadataValue.json(sample)},
        )

    return _check


table_assets = [table_asset(spec) for spec in table_sql_files()]
table_checks = [sql_check(check) for check in check_sql_files()]
