"""Projected evidence: MLPerf Server numbers scaled by a profile's delivered-fraction prior."""


import dagster as dg

from assets.sqlfiles import build_table_from_sql
from pipelines.resources import Warehouse
from schemas.delivered_at_slo import ProjectedDeliveredAtSlo


@dg.asset(
    key=["projected", "delivered_at_slo"],
    deps=[["benchmark", "mlperf_reference"], ["requirement", "profiles"], ["observed", "delivered_at_slo"]],
    group_name="projected",
    kinds={"duckdb", "sql"},
)
def projected_delivered_at_slo(warehouse: Warehouse) -> dg.MaterializeResult:
    """Per profile and MLPerf reference on an accelerator we have not measured: a projected
    throughput band (Server tokens/s x the profile's prior); built by sql/projected/delivered_at_slo.sql."""
    return build_table_from_sql(warehouse, "projected.delivered_at_slo", ProjectedDeliveredAtSlo)
