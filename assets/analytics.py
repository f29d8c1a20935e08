"""The analyst surface: documented views in schema `analytics`, one per `sql/analytics/<view>.sql`."""

import dagster as dg

from assets.resources import Warehouse
from assets.specs import OWNERS, files_code_version
from assets.warehouse import sqldoc
from assets.warehouse.sqlfiles import AUDIT_RECORDS, tables_read
from assets.warehouse.views import SCHEMA, create_views


def _tables_the_views_read() -> list[list[str]]:
    tables = {table for doc in sqldoc.view_docs() for table in tables_read(doc.sql, str(doc.path))}
    return [table.split(".") for table in sorted(tables - AUDIT_RECORDS)]


@dg.asset(
    key=["analytics", "views"],
    deps=_tables_the_views_read(),
    group_name="analytics",
    kinds={"duckdb", "sql"},
    owners=OWNERS,
    code_version=files_code_version(sorted(doc.path for doc in sqldoc.view_docs())),
)
def analytics_views(context: dg.AssetExecutionContext, warehouse: Warehouse) -> dg.MaterializeResult:
    """The analyst views (schema `analytics`): per evidence class, the shortlist, where each
    shortlist number came from, the quarantine and the file inventory; one per
    sql/analytics/<view>.sql, every view and column described with COMMENT ON."""
    with warehouse.connect() as conn:
        undescribed = create_views(conn)
        views = [
            r[0]
            for r in conn.execute(
                "SELECT view_name FROM duckdb_views() WHERE schema_name = ? ORDER BY 1", [SCHEMA]
            ).fetchall()
        ]
    for view, columns in undescribed.items():
        context.log.warning(
            f"{view}: columns without a description: {columns} (add `-- column NAME: ...` "
            f"to sql/analytics/{view.split('.')[1]}.sql)"
        )
    return dg.MaterializeResult(metadata={"views": ", ".join(views), "count": len(views)})
