"""Calibrated evidence: each config's engine model fitted on its observed load levels, and its held-out error."""

from collections.abc import Iterator

import dagster as dg

from assets.calibrate.cost_sensitivity import write_cost_sensitivity
from assets.calibrate.fit_store import FitStore
from assets.calibrate.our_traffic import write_projections
from assets.calibrate.tables import write_calibrated
from assets.plan.prospective import write_prospective_validation
from assets.resources import Warehouse
from assets.specs import selected_tables, table_metadata, table_spec

_OBSERVED = [["observed", "runs"], ["observed", "load_points"], ["observed", "requests"]]


@dg.multi_asset(
    specs=[
        table_spec("calibrated.engine_models", {"duckdb", "python"}, deps=_OBSERVED),
        table_spec("calibrated.validation", {"duckdb", "python"}, deps=_OBSERVED),
    ],
    can_subset=True,
)
def engine_models(context: dg.AssetExecutionContext, warehouse: Warehouse) -> Iterator[dg.MaterializeResult]:
    """Per config, the engine model fitted on all its load levels (calibrated.engine_models) and its predictions
    of levels and workloads left out of the fit against what was measured (calibrated.validation); a config whose
    evidence is unchanged reuses the warehouse's stored fit (the step's log says which configs were refitted)."""
    tables = selected_tables(context)
    store = FitStore(warehouse.layout.fits_dir, context.log.info)
    with warehouse.connect() as conn:
        reports = write_calibrated(conn, context.log.info, tables, store)
    for table in tables:
        yield dg.MaterializeResult(asset_key=table.split("."), metadata=table_metadata(reports[table]))


_MODELS_AND_PROFILES = [
    ["calibrated", "engine_models"],
    ["calibrated", "validation"],
    ["requirement", "profiles"],
    ["requirement", "slo_bounds"],
    ["requirement", "workload"],
]


@dg.multi_asset(
    specs=[
        table_spec("calibrated.latency_curve", {"duckdb", "python"}, deps=_MODELS_AND_PROFILES),
        table_spec("calibrated.delivered_at_slo", {"duckdb", "python"}, deps=_MODELS_AND_PROFILES),
    ],
    can_subset=True,
)
def our_traffic(context: dg.AssetExecutionContext, warehouse: Warehouse) -> Iterator[dg.MaterializeResult]:
    """Each profile's traffic through each config's engine model: the latency curve from light load to saturation
    (calibrated.latency_curve) and the rate delivered within the SLO, as a band (calibrated.delivered_at_slo)."""
    tables = selected_tables(context)
    with warehouse.connect() as conn:
        reports = write_projections(conn, context.log.info, tables)
    for table in tables:
        yield dg.MaterializeResult(asset_key=table.split("."), metadata=table_metadata(reports[table]))


_PRICED = [["calibrated", "delivered_at_slo"], ["benchmark", "prices_in_force"], ["marts", "capacity_plan"]]


@dg.multi_asset(
    specs=[table_spec("calibrated.cost_sensitivity", {"duckdb", "python"}, deps=_MODELS_AND_PROFILES + _PRICED)]
)
def cost_sensitivity(context: dg.AssetExecutionContext, warehouse: Warehouse) -> Iterator[dg.MaterializeResult]:
    """What the token mix and the bursts cost: each billing calibrated band's variants (prompts and answers x0.5 and
    x2, Poisson arrivals) re-derived by the engine model and priced (calibrated.cost_sensitivity)."""
    with warehouse.connect() as conn:
        report = write_cost_sensitivity(conn, context.log.info)
    yield dg.MaterializeResult(asset_key=["calibrated", "cost_sensitivity"], metadata=table_metadata(report))


# the runs naming a plan and their levels (as the engine model reads them: their records' lengths), their delivered
# rate at the profile's SLO, the profile's traffic; the plans are files (plans/<plan_id>/plan.json)
_MEASURED_PLANS = [*_OBSERVED, ["observed", "delivered_at_slo"], ["requirement", "workload"]]


@dg.multi_asset(specs=[table_spec("calibrated.prospective_validation", {"duckdb", "python"}, deps=_MEASURED_PLANS)])
def prospective_validation(context: dg.AssetExecutionContext, warehouse: Warehouse) -> Iterator[dg.MaterializeResult]:
    """Each stored measurement plan's prediction, made before measuring, against the runs whose run.yaml names it
    (calibrated.prospective_validation); a run naming a plan the warehouse does not hold is quarantined."""
    with warehouse.connect() as conn:
        report = write_prospective_validation(conn, warehouse.layout.plans_dir, context.log.info)
    yield dg.MaterializeResult(asset_key=["calibrated", "prospective_validation"], metadata=table_metadata(report))
