"""Writing the plan tables (marts.measurement_plan, calibrated.plan_predictions) from `build.build_plans`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import duckdb

from assets.plan.build import build_plans
from assets.plan.tool_files import write_plan_files
from assets.warehouse.validate import frame_from_rows
from assets.warehouse.write import WriteReport, write_table
from schemas.calibrated.plan_predictions import PlanPredictions
from schemas.marts.measurement_plan import MeasurementPlan

PLAN_TABLES = ("marts.measurement_plan", "calibrated.plan_predictions")


def write_plan_tables(
    conn: duckdb.DuckDBPyConnection,
    plans_dir: Path,
    log: Callable[[str], None],
    tables: list[str] | None = None,
) -> dict[str, WriteReport]:
    """The plan tables of `tables` (default both: one build gives both), each plan stored and its files written."""
    plans, predictions = build_plans(conn, plans_dir, log, write_plan_files)
    frames = {
        "marts.measurement_plan": (frame_from_rows(plans, MeasurementPlan), MeasurementPlan),
        "calibrated.plan_predictions": (frame_from_rows(predictions, PlanPredictions), PlanPredictions),
    }
    return {table: write_table(conn, table, *frames[table]) for table in (tables or list(PLAN_TABLES))}
