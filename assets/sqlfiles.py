"""Assets and asset checks whose logic is a SQL file.

A table built in SQL comes from `sql/<schema>/<table>.sql` (a SELECT); a check is
`sql/checks/<table>__<check>.sql`, which selects the offending rows.
"""


import dagster as dg
import pandera.polars as pa

from assets.warehouse import read_sql, run_sql_file, sql_path_literal, write_table
from pipelines.resources import Warehouse


def build_table_from_sql(warehouse: Warehouse, table: str, model: type[pa.DataFrameModel]) -> dg.MaterializeResult:
    """Run `sql/<schema>/<table>.sql`, validate the rows against `model` and replace `table`."""
    schema, name = table.split(".")
    with warehouse.connect() as conn:
        frame = run_sql_file(conn, f"{schema}/{name}.sql")
        report = write_table(conn, table, frame, model)
    return dg.MaterializeResult(metadata=report.metadata())


def sql_check(asset_key: list[str], name: str, description: str, *, blocking: bool = False,
              severity: dg.AssetCheckSeverity = dg.AssetCheckSeverity.ERROR,
              attach_published: bool = False) -> dg.AssetChecksDefinition:
    """An asset check that passes when `sql/checks/<table>__<name>.sql` returns no rows. With
    `attach_published`, the SQL also sees the serving file (read-only) as `published`, to compare
    the build with what readers have now; before the first publish the check passes."""
    relative = f"checks/{asset_key[-1]}__{name}.sql"
    read_sql(relative)  # fail at definition time if the file is missing

    @dg.asset_check(asset=dg.AssetKey(asset_key), name=name, description=description, blocking=blocking)
    def _check(warehouse: Warehouse) -> dg.AssetCheckResult:
        if attach_published and not warehouse.serving_path.exists():
            return dg.AssetCheckResult(passed=True, severity=severity,
                                       metadata={"note": "nothing published yet: nothing to compare with"})
        with warehouse.connect() as conn:
            if attach_published:
                conn.execute(f"ATTACH {sql_path_literal(warehouse.serving_path)} AS published (READ_ONLY)")
            try:
                cursor = conn.execute(read_sql(relative))
                columns = [d[0] for d in cursor.description]
                rows = cursor.fetchall()
            finally:
                if attach_published:
                    conn.execute("DETACH published")
        sample = [dict(zip(columns, row)) for row in rows[:5]]
        return dg.AssetCheckResult(
            passed=not rows,
            severity=severity,
            metadata={"offending_rows": len(rows), "sample": dg.MetadataValue.json([
                {k: (v if isinstance(v, (int, float, str, bool, type(None))) else str(v)) for k, v in s.items()}
                for s in sample
            ])},
        )

    return _check
