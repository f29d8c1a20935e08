"""Observed evidence: our own serving measurements, and the SLO-feasible rate they show."""


import dagster as dg

from assets import dumps
from assets.sqlfiles import build_table_from_sql, sql_check
from assets.warehouse import frame_from_rows, write_table
from pipelines.resources import Inputs, Warehouse
from schemas.delivered_at_slo import DeliveredAtSlo
from schemas.load_points import LoadPoints
from schemas.runs import Runs


@dg.multi_asset(
    specs=[
        dg.AssetSpec(["observed", "runs"], group_name="observed", kinds={"duckdb", "polars"},
                     description="One row per measured run of our stack, with its config (accelerator, "
                                 "model, precision, runtime, arrival) from the run.yaml above its dump files."),
        dg.AssetSpec(["observed", "load_points"], group_name="observed", kinds={"duckdb", "polars"},
                     description="One row per run x load level: offered and achieved rate, p50-p99 TTFT, "
                                 "TPOT, ITL, E2E in ms, tokens/s and errors, from the dump files."),
    ],
)
def observed_runs(context: dg.AssetExecutionContext, warehouse: Warehouse, inputs: Inputs):
    """Runs and load points from the dump folders (files recognised by content)."""
    batch = dumps.collect_all(list(inputs.dumps))
    for run in batch.runs:
        flags = []
        if not run["accelerator_known"]:
            flags.append(f"accelerator {run['accelerator_raw']!r}")
        if not run["model_known"]:
            flags.append(f"model {run['model_raw']!r}")
        if flags:
            context.log.warning(f"run {run['run_label']}: unknown {', '.join(flags)} (kept raw, flagged)")
    with warehouse.connect() as conn:
        run_report = write_table(conn, "observed.runs", frame_from_rows(batch.runs, Runs), Runs,
                                 [r for r in batch.rejects if r.location.startswith("run ")], [])
        point_report = write_table(conn, "observed.load_points", frame_from_rows(batch.load_points, LoadPoints),
                                   LoadPoints, [r for r in batch.rejects if not r.location.startswith("run ")],
                                   batch.files)
    context.log.info(f"observed: {run_report.rows} runs, {point_report.rows} load points, "
                     f"{run_report.quarantined + point_report.quarantined} quarantined")
    yield dg.MaterializeResult(asset_key=["observed", "runs"], metadata=run_report.metadata())
    yield dg.MaterializeResult(asset_key=["observed", "load_points"], metadata=point_report.metadata())


load_points_achieved_vs_offered = sql_check(
    ["observed", "load_points"], "achieved_not_above_offered",
    "Achieved request rate stays within 10% above the offered rate (more would mean a unit or parsing error).",
    severity=dg.AssetCheckSeverity.WARN)


@dg.asset(
    key=["observed", "delivered_at_slo"],
    deps=[["observed", "runs"], ["observed", "load_points"], ["requirement", "profiles"],
          ["requirement", "slo_bounds"]],
    group_name="observed",
    kinds={"duckdb", "sql"},
)
def delivered_at_slo(warehouse: Warehouse) -> dg.MaterializeResult:
    """Per run x profile (same model), the SLO-feasible request-rate band: low = the highest
    achieved rate whose percentiles meet every bound, high = the SLO crossing interpolated towards
    the first failing load point; built by sql/observed/delivered_at_slo.sql."""
    return build_table_from_sql(warehouse, "observed.delivered_at_slo", DeliveredAtSlo)


delivered_band_ordered = sql_check(
    ["observed", "delivered_at_slo"], "band_ordered",
    "low <= high, and high never above the first failing load point's achieved rate.", blocking=True)
