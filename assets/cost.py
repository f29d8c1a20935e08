"""Cost evidence: cost per request and per million tokens, low and high, per price."""


import dagster as dg

from assets.sqlfiles import build_table_from_sql, sql_check
from pipelines.resources import Warehouse
from schemas.cost_per_request import CostPerRequest


@dg.asset(
    key=["cost", "cost_per_request"],
    deps=[["observed", "delivered_at_slo"], ["projected", "delivered_at_slo"], ["benchmark", "accelerator_prices"]],
    group_name="cost",
    kinds={"duckdb", "sql"},
)
def cost_per_request(warehouse: Warehouse) -> dg.MaterializeResult:
    """Per config x profile x price (newest per accelerator, class and provider): cost per request and
    per million output/input/total tokens, low and high; built by sql/cost/cost_per_request.sql."""
    return build_table_from_sql(warehouse, "cost.cost_per_request", CostPerRequest)


cost_band_ordered = sql_check(
    ["cost", "cost_per_request"], "band_ordered", "Low cost never exceeds high cost.", blocking=True)
