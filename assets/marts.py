"""The marts built in Python: each profile's measurement plan (the rest of schema `marts` is SQL, sql/marts/)."""

from collections.abc import Iterator

import dagster as dg

from assets.plan.tables import write_plan_tables
from assets.resources import Warehouse
from assets.specs import selected_tables, table_metadata, table_spec

_READS = [
    ["marts", "capacity_plan"],
    ["marts", "config_shortlist"],
    ["marts", "quality_to_measure"],
    ["calibrated", "delivered_at_slo"],
    ["calibrated", "engine_models"],
    ["observed", "runs"],
    ["observed", "load_points"],
    ["observed", "delivered_at_slo"],
    ["benchmark", "mlperf_results"],
    ["requirement", "profiles"],
    ["requirement", "workload"],
    ["requirement", "slo_bounds"],
]


@dg.multi_asset(
    specs=[
        table_spec("marts.measurement_plan", {"duckdb", "python"}, deps=_READS),
        table_spec("calibrated.plan_predictions", {"duckdb", "python"}, deps=_READS),
    ],
    can_subset=True,
)
def measurement_plan(context: dg.AssetExecutionContext, warehouse: Warehouse) -> Iterator[dg.MaterializeResult]:
    """Each profile's measurement plan, ranked by what the measurement would change (marts.measurement_plan), and
    every stored plan's levels with the prediction made before measuring (calibrated.plan_predictions); each plan
    stored with its files under the warehouse's plans/ folder."""
    tables = selected_tables(context)
    with warehouse.connect() as conn:
        reports = write_plan_tables(conn, warehouse.layout.plans_dir, context.log.info, tables)
    for table in tables:
        yield dg.MaterializeResult(asset_key=table.split("."), metadata=table_metadata(reports[table]))
