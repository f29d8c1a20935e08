"""The analyst surface: documented views in schema `analytics`, one per `sql/analytics/<view>.sql`."""


import dagster as dg
import duckdb

from assets import sqldoc
from assets.warehouse import one_line, qualified, quote_ident, sql_string_literal, transaction
from pipelines.resources import Warehouse

SCHEMA = "analytics"


def column_comments(conn: duckdb.DuckDBPyConnection, doc: sqldoc.SqlDoc, view: str) -> dict[str, str | None]:
    """Each column of `view` and its description: the view file's own `-- column` line, else the
    comment of the same-named column on the first table in `Columns described on` that has one."""
    schema, name = view.split(".")
    columns = [r[0] for r in conn.execute(
        "SELECT column_name FROM duckdb_columns() WHERE schema_name = ? AND table_name = ? ORDER BY column_index",
        [schema, name]).fetchall()]
    lent: dict[str, str] = {}
    for table in reversed(doc.described_on):
        table_schema, table_name = table.split(".")
        rows = conn.execute(
            "SELECT column_name, comment FROM duckdb_columns() WHERE schema_name = ? AND table_name = ? "
            "AND coalesce(comment, '') <> ''", [table_schema, table_name]).fetchall()
        if not rows and not conn.execute("SELECT count(*) FROM duckdb_tables() WHERE schema_name = ? "
                                         "AND table_name = ?", [table_schema, table_name]).fetchone()[0]:
            raise sqldoc.SqlDocProblem(f"{doc.path}: `Columns described on` names {table}, which is not a table")
        lent.update(dict(rows))
    return {column: doc.columns.get(column) or lent.get(column) for column in columns}


def create_views(conn: duckdb.DuckDBPyConnection) -> dict[str, list[str]]:
    """Recreate schema `analytics` from the view files, with COMMENT ON every view and column, in
    one transaction. Returns each view's columns that have no description."""
    undescribed: dict[str, list[str]] = {}
    with transaction(conn):
        conn.execute(f"DROP SCHEMA IF EXISTS {quote_ident(SCHEMA)} CASCADE")
        conn.execute(f"CREATE SCHEMA {quote_ident(SCHEMA)}")
        for doc in sqldoc.view_docs():
            view = f"{SCHEMA}.{doc.name}"
            try:
                conn.execute(f"CREATE VIEW {qualified(view)} AS {doc.sql}")
            except duckdb.Error as exc:
                raise sqldoc.SqlDocProblem(f"{doc.path}: the view does not build: {exc}") from exc
            conn.execute(f"COMMENT ON VIEW {qualified(view)} IS {sql_string_literal(one_line(doc.description))}")
            for column, text in column_comments(conn, doc, view).items():
                if not text:
                    undescribed.setdefault(view, []).append(column)
                    continue
                conn.execute(f"COMMENT ON COLUMN {qualified(view)}.{quote_ident(column)} "
                             f"IS {sql_string_literal(one_line(text))}")
    return undescribed


@dg.asset(
    key=["analytics", "views"],
    deps=[["marts", "config_shortlist"], ["cost", "cost_per_request"], ["observed", "delivered_at_slo"],
          ["projected", "delivered_at_slo"], ["benchmark", "mlperf_reference"], ["benchmark", "mlperf_results"],
          ["benchmark", "accelerator_prices"], ["observed", "load_points"], ["observed", "runs"],
          ["requirement", "profiles"], ["requirement", "slo_bounds"], ["requirement", "traffic_shape"],
          ["benchmark", "mlperf_round_over_round"], ["audit", "run_fingerprint"]],
    group_name="analytics",
    kinds={"duckdb", "sql"},
)
def analytics_views(context: dg.AssetExecutionContext, warehouse: Warehouse) -> dg.MaterializeResult:
    """The analyst views (schema `analytics`): per evidence class, the shortlist, where each
    shortlist number came from, the quarantine and the file inventory; one per
    sql/analytics/<view>.sql, every view and column described with COMMENT ON."""
    with warehouse.connect() as conn:
        undescribed = create_views(conn)
        views = [r[0] for r in conn.execute(
            "SELECT view_name FROM duckdb_views() WHERE schema_name = ? ORDER BY 1", [SCHEMA]).fetchall()]
    for view, columns in undescribed.items():
        context.log.warning(f"{view}: columns without a description: {columns} (add `-- column NAME: ...` "
                            f"to sql/analytics/{view.split('.')[1]}.sql)")
    return dg.MaterializeResult(metadata={"views": ", ".join(views), "count": len(views)})
