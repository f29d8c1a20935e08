"""A tiny published warehouse holding measurement plans, for the tests of how a plan is shown: marts.measurement_plan
and calibrated.plan_predictions written as the assets write them (validated against their models), the two analyst
views the plan command reads (analytics.profiles, analytics.capacity_plan) reduced to the columns it uses, an
optional calibrated.prospective_validation, and each plan's folder under plans/."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from assets.warehouse.rows import frame_schema, row_for, table_of
from assets.warehouse.write import write_table
from schemas.calibrated.plan_predictions import PlanPredictions
from schemas.calibrated.prospective_validation import ProspectiveValidation
from schemas.marts.measurement_plan import MeasurementPlan

PROFILE = "chat-8b-interactive"
MADE = datetime.datetime(2026, 12, 7, 21, 30)  # UTC, naive as the models type it
MULTIPLES = (0.5, 0.7, 0.85, 1.0, 1.15, 1.3)
PREDICTED_RATE = 4.0  # req/s the levels of a predicted plan bracket


def plan_row(rank: int, plan_id: str, profile: str = PROFILE, predicted: bool = True, **changes: Any) -> dict:
    """A marts.measurement_plan row: an H100 config with six levels around PREDICTED_RATE (or, without a
    prediction, around its billed band's middle)."""
    rates = [round(m * PREDICTED_RATE, 3) for m in MULTIPLES]
    values = {
        "profile": profile,
        "plan_rank": rank,
        "plan_id": plan_id,
        "reason": "may_beat_recommended",
        "why": f"run 1 x nvidia-h100-sxm-80gb (rank {rank}): possible saving -803 to 2,044 USD a month",
        "stake_monthly_usd": 2044.0,
        "config_key": f"config-{rank}",
        "config_label": f"llama-3.1-8b-instruct on 1x nvidia-h100-sxm-80gb bf16 vLLM (#{rank})",
        "evidence": "projected",
        "billed_basis": "projected",
        "model_id": "llama-3.1-8b-instruct",
        "accelerator_id": "nvidia-h100-sxm-80gb",
        "accelerator_count": 1,
        "precision": "bf16",
        "runtime": "vLLM",
        "runtime_version": None,
        "run_yaml": '{"plan": "' + plan_id + '"}',
        "billed_requests_per_s_low": 3.1,
        "billed_requests_per_s_high": 4.9,
        "has_prediction": predicted,
        "predicted_delivered_requests_per_s": PREDICTED_RATE if predicted else None,
        "levels": len(rates),
        "level_rates_per_s": ",".join(str(r) for r in rates),
        "rate_multiples": ",".join(str(m) for m in MULTIPLES),
        "requests_per_level_min": 600,
        "traffic_basis": "the profile's traffic log, lengths and arrivals as logged",
        "plan_folder": f"plans/{plan_id}",
        "plan_created_at": MADE,
        "plan_status": "open",
    }
    return row_for(MeasurementPlan, {**values, **changes})


# Each latency a level predicts: (its value at 1x the predicted rate, the power of the rate multiple it grows with).
AT_1X = {
    "ttft_p50_ms": (80.0, 2),
    "ttft_p95_ms": (180.0, 2),
    "ttft_p99_ms": (250.0, 2),
    "tpot_p50_ms": (15.0, 1),
    "tpot_p95_ms": (21.5, 1),
    "tpot_p99_ms": (25.0, 1),
    "e2e_p50_ms": (3000.0, 1),
    "e2e_p95_ms": (4200.0, 1),
    "e2e_p99_ms": (5100.0, 1),
}


def level_rows(row: dict) -> list[dict]:
    """The calibrated.plan_predictions rows of a plan row: the prediction grows with the rate (none without one)."""
    rows = []
    predicted = row["has_prediction"]
    for level, multiple in enumerate(MULTIPLES, start=1):
        rate = round(multiple * PREDICTED_RATE, 3)
        latencies = {
            metric: round(at_1x * multiple**power, 3) if predicted else None for metric, (at_1x, power) in AT_1X.items()
        }
        values = {
            "plan_id": row["plan_id"],
            "profile": row["profile"],
            "config_key": row["config_key"],
            "config_label": row["config_label"],
            "plan_created_at": row["plan_created_at"],
            "level": level,
            "rate_multiple": multiple,
            "requests_per_s": rate,
            "requests": 600,
            "duration_s": round(600 / rate, 3),
            **latencies,
            "achieved_requests_per_s": round(min(rate, PREDICTED_RATE * 1.05), 3) if predicted else None,
        }
        rows.append(row_for(PlanPredictions, values))
    return rows


def score_rows(plan_id: str, ttft_errors: list[float], delivered_error: float | None) -> list[dict]:
    """calibrated.prospective_validation rows (built against its model): one scored p95 TTFT row per level with
    the given signed relative errors (measured = predicted / (1 + error)), and the delivered rate's row."""

    def row(metric: str, level: int | None, predicted: float, error: float) -> dict:
        measured = predicted / (1 + error)
        values = {
            "plan_id": plan_id,
            "profile": PROFILE,
            "config_key": "cfg",
            "plan_created_at": datetime.datetime(2026, 12, 7, 9, 0),
            "run_id": "run-back",
            "run_label": "back",
            "load_index": level,
            "load": f"r={level}" if level else "sweep",
            "offered_requests_per_s": float(level) if level else None,
            "concurrency": None,
            "plan_level": level,
            "prediction_basis": "plan level" if level else None,
            "metric": metric,
            "predicted": predicted,
            "measured": measured,
            "relative_error": abs(predicted / measured - 1),
            "signed_relative_error": predicted / measured - 1,
            "band_rel_error": 0.2,
            "within_band": abs(error) < 0.2,
            "scored": True,
            "note": None,
            "evidence": "calibrated",
        }
        return row_for(ProspectiveValidation, values)

    rows = [row("ttft_p95_ms", level, 100.0, error) for level, error in enumerate(ttft_errors, start=1)]
    if delivered_error is not None:
        rows.append(row("delivered_at_slo_requests_per_s", None, 4.0, delivered_error))
    return rows


PROFILE_COLUMNS = (
    "profile VARCHAR, traffic_log VARCHAR, requests_per_day DOUBLE, peak_to_mean DOUBLE, mean_requests_per_s DOUBLE"
)


def plan_warehouse(
    folder: Path,
    rows: list[dict] | None,
    scores: list[dict] | None = None,
    profiles: dict[str, bool] | None = None,
    folders: bool = True,
) -> Path:
    """Write `folder`/serving.duckdb: the plan rows and their levels (rows None: a file published before
    marts.measurement_plan existed), `scores` as calibrated.prospective_validation when given, each profile of
    `profiles` (name -> whether a config has a monthly bill; a profile without one states no volume), and, with
    `folders`, each plan's folder holding a plan.json and a README.md. Returns the warehouse folder."""
    profiles = profiles if profiles is not None else {PROFILE: True}
    folder.mkdir(parents=True, exist_ok=True)
    with duckdb.connect(str(folder / "serving.duckdb")) as conn:
        conn.execute("CREATE SCHEMA analytics")
        conn.execute(f"CREATE TABLE analytics.profiles ({PROFILE_COLUMNS})")
        conn.execute("CREATE TABLE analytics.capacity_plan (profile VARCHAR, monthly_usd_high DOUBLE)")
        for name, billed in profiles.items():
            conn.execute(
                "INSERT INTO analytics.profiles VALUES (?, NULL, ?, ?, NULL)",
                [name, 86400.0 if billed else None, 2.0 if billed else None],
            )
            conn.execute("INSERT INTO analytics.capacity_plan VALUES (?, ?)", [name, 1000.0 if billed else None])
        if rows is not None:
            levels = [level for row in rows for level in level_rows(row)]
            for model, frame_rows in ((MeasurementPlan, rows), (PlanPredictions, levels)):
                write_table(conn, table_of(model), pl.DataFrame(frame_rows, schema=frame_schema(model)), model)
        if scores is not None:
            frame = pl.DataFrame(scores, schema=frame_schema(ProspectiveValidation))
            write_table(conn, table_of(ProspectiveValidation), frame, ProspectiveValidation)
    for row in (rows or []) if folders else []:
        plan = folder / row["plan_folder"]
        plan.mkdir(parents=True, exist_ok=True)
        (plan / "plan.json").write_text('{"plan_id": "' + row["plan_id"] + '"}\n')
        (plan / "README.md").write_text(f"# {row['plan_id']}\n")
    return folder
