"""Requirement evidence: what we demand of a config (workload profiles and their SLO bounds), our traffic's shape
and each profile's workload resolved once, from the profiles YAML and the logs and lengths files it names."""

from collections.abc import Iterator

import dagster as dg

from assets.calibrate.workload import write_workload
from assets.config.profiles import read_profiles, read_quality_bounds, write_profiles, write_quality_bounds
from assets.request_records.traffic_shape import write_traffic
from assets.resources import Inputs, Warehouse
from assets.specs import selected_tables, table_metadata, table_spec

# Both multi-assets are subsettable: a run that selects one of their tables writes only that table.


@dg.multi_asset(
    specs=[
        table_spec("requirement.profiles", {"duckdb", "yaml"}),
        table_spec("requirement.slo_bounds", {"duckdb", "yaml"}),
    ],
    can_subset=True,
)
def profiles(context: dg.AssetExecutionContext, warehouse: Warehouse, inputs: Inputs) -> Iterator[dg.MaterializeResult]:
    """Workload profiles and their SLO bounds, from the profiles YAML."""
    rows, bounds, file = read_profiles(inputs.profiles)
    unknown = [r["model_raw"] for r in rows if not r["model_known"]]
    if unknown:
        context.log.warning(f"profiles name models with no canonical id (kept, flagged; nothing will join): {unknown}")
    tables = selected_tables(context)
    with warehouse.connect() as conn:
        reports = write_profiles(conn, rows, bounds, file, tables)
    for table in tables:
        yield dg.MaterializeResult(asset_key=table.split("."), metadata=table_metadata(reports[table]))


@dg.multi_asset(
    specs=[
        table_spec("requirement.traffic_shape", {"duckdb", "polars"}, deps=[["requirement", "profiles"]]),
        table_spec("requirement.traffic_rate", {"duckdb", "polars"}, deps=[["requirement", "profiles"]]),
    ],
    can_subset=True,
)
def traffic_shape(context: dg.AssetExecutionContext, warehouse: Warehouse) -> Iterator[dg.MaterializeResult]:
    """Our traffic's arrival pattern, token mix and rate over time, from each profile's traffic log."""
    tables = selected_tables(context)
    with warehouse.connect() as conn:
        reports = write_traffic(conn, context.log.info, tables)
    for table in tables:
        yield dg.MaterializeResult(asset_key=table.split("."), metadata=table_metadata(reports[table]))


@dg.multi_asset(
    specs=[
        table_spec(
            "requirement.workload",
            {"duckdb", "polars"},
            deps=[["requirement", "profiles"], ["requirement", "traffic_shape"]],
        )
    ],
)
def workload(warehouse: Warehouse) -> dg.MaterializeResult:
    """Each profile's workload resolved once (lengths and arrivals): what every evidence class reads."""
    with warehouse.connect() as conn:
        report = write_workload(conn)
    return dg.MaterializeResult(asset_key=["requirement", "workload"], metadata=table_metadata(report))


@dg.multi_asset(
    specs=[table_spec("requirement.quality_bounds", {"duckdb", "yaml"}, deps=[["requirement", "profiles"]])],
)
def quality_bounds(warehouse: Warehouse, inputs: Inputs) -> dg.MaterializeResult:
    """The task quality each profile demands (its `quality:` list), from the profiles YAML."""
    rows, file = read_quality_bounds(inputs.profiles)
    with warehouse.connect() as conn:
        report = write_quality_bounds(conn, rows, file)
    return dg.MaterializeResult(asset_key=["requirement", "quality_bounds"], metadata=table_metadata(report))
