"""Marts: the decision table analysts, BI tools and the person who signs read."""


import dagster as dg

from assets.sqlfiles import build_table_from_sql, sql_check
from pipelines.resources import Warehouse
from schemas.config_shortlist import ConfigShortlist


@dg.asset(
    key=["marts", "config_shortlist"],
    deps=[["cost", "cost_per_request"], ["observed", "delivered_at_slo"], ["projected", "delivered_at_slo"],
          ["benchmark", "mlperf_reference"], ["requirement", "traffic_shape"], ["observed", "request_stats"]],
    group_name="marts",
    kinds={"duckdb", "sql"},
)
def config_shortlist(warehouse: Warehouse) -> dg.MaterializeResult:
    """The shortlist: per profile x config x price, the MLPerf reference and the delivered band in
    separate columns, the cost range and the caveats; built by sql/marts/config_shortlist.sql."""
    return build_table_from_sql(warehouse, "marts.config_shortlist", ConfigShortlist)


shortlist_covers_profiles = sql_check(
    ["marts", "config_shortlist"], "every_profile_listed",
    "Every profile whose model is known has at least one config in the shortlist.",
    severity=dg.AssetCheckSeverity.WARN)
