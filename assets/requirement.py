"""Requirement evidence: what we demand of a config (workload profiles and their SLO bounds) and our
traffic's shape, from the profiles YAML and the production request logs it names."""

from collections.abc import Iterator

import dagster as dg

from assets.config.profiles import read_profiles, write_profiles
from assets.requests.traffic_shape import write_traffic
from assets.resources import Inputs, Warehouse
from assets.specs import table_metadata, table_spec


@dg.multi_asset(
    specs=[
        table_spec("requirement.profiles", {"duckdb", "yaml"}),
        table_spec("requirement.slo_bounds", {"duckdb", "yaml"}),
    ],
)
def profiles(context: dg.AssetExecutionContext, warehouse: Warehouse, inputs: Inputs) -> Iterator[dg.MaterializeResult]:
    """Workload profiles and their SLO bounds, from the profiles YAML."""
    rows, bounds, file = read_profiles(inputs.profiles)
    unknown = [r["model_raw"] for r in rows if not r["model_known"]]
    if unknown:
        context.log.warning(f"profiles name models with no canonical id (kept, flagged; nothing will join): {unknown}")
    with warehouse.connect() as conn:
        profile_report, bound_report = write_profiles(conn, rows, bounds, file)
    yield dg.MaterializeResult(asset_key=["requirement", "profiles"], metadata=table_metadata(profile_report))
    yield dg.MaterializeResult(asset_key=["requirement", "slo_bounds"], metadata=table_metadata(bound_report))


@dg.multi_asset(
    specs=[
        table_spec("requirement.traffic_shape", {"duckdb", "polars"}, deps=[["requirement", "profiles"]]),
        table_spec("requirement.traffic_rate", {"duckdb", "polars"}, deps=[["requirement", "profiles"]]),
    ],
)
def traffic_shape(context: dg.AssetExecutionContext, warehouse: Warehouse) -> Iterator[dg.MaterializeResult]:
    """Our traffic's arrival pattern, token mix and rate over time, from each profile's traffic log."""
    with warehouse.connect() as conn:
        shape_report, rate_report = write_traffic(conn, context.log.info)
    yield dg.MaterializeResult(asset_key=["requirement", "traffic_shape"], metadata=table_metadata(shape_report))
    yield dg.MaterializeResult(asset_key=["requirement", "traffic_rate"], metadata=table_metadata(rate_report))
