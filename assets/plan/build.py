"""marts.measurement_plan and calibrated.plan_predictions: each profile's plan built, stored and written as files.

For each profile's candidates (candidates.py), the levels and the prediction made now (levels.py) are stored as
`plans/<plan_id>/plan.json` (store.py) with the files a team's tools run (`write_files`). A plan
already stored under its id (the same model, traffic and levels) is read back, not predicted again: its date and its
prediction are the first ones. calibrated.plan_predictions lists every stored plan's levels, also those of plans
no longer in a profile's plan (a refit or a new workload made a new one): a prediction is never rewritten."""

from __future__ import annotations

import datetime
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

from assets.calibrate import project
from assets.calibrate.our_traffic import CURVED, params_of, traffic_of
from assets.core.errors import IngestError
from assets.plan.candidates import Candidate, candidates, config_label_of
from assets.plan.levels import SEED, level_rates, plan_levels
from assets.plan.prospective import plan_measurements
from assets.plan.spec import PREDICTED_METRICS, PlanFiles, PlanLevel
from assets.plan.store import (
    PLAN_FILE,
    StoredLevel,
    StoredPlan,
    plan_folder,
    plan_id_of,
    read_plan,
    read_plans,
    workload_digest_of,
    write_plan,
)
from assets.warehouse.frames import query_frame
from assets.warehouse.rows import row_for
from schemas.calibrated.plan_predictions import PlanPredictions
from schemas.marts.measurement_plan import MeasurementPlan

Log = Callable[[str], None]
WriteFiles = Callable[[Path, PlanFiles], list[Path]]


def _point(c: Candidate) -> tuple[float | None, float | None]:
    """The engine model's delivered rate at the SLO on our traffic before widening, and the band's error; (None,
    None) when the config has no engine model that runs (fitted or unreliable) with a delivered rate."""
    d, m = c.delivered, c.model
    if d is None or m is None or m["status"] not in CURVED or d["band_rel_error"] is None:
        return None, None
    low = d["delivered_requests_per_s_low"]
    if low is None or not low > 0:
        return None, None
    return low * (1 + abs(d["band_rel_error"])), abs(d["band_rel_error"])


def _center(c: Candidate, point: float | None) -> float:
    """What the levels bracket: the predicted delivered rate, else the billed band's middle (geometric)."""
    if point is not None:
        return point
    low, high = c.row["billed_requests_per_s_low"], c.row["billed_requests_per_s_high"]
    return math.sqrt(low * high) if high else low


def run_yaml_of(c: Candidate, plan_id: str, model_raw: str | None, settings: str | None) -> dict[str, Any]:
    """The run.yaml keys a plan knows: the config as run (or as projected) and the plan; never a tool version."""
    r = c.row
    keys: dict[str, Any] = {
        "accelerator": r["accelerator_id"],
        "accelerator_count": int(r["accelerator_count"]),
        "model": model_raw or r["model_id"],
        "precision": r.get("precision"),
        "runtime": r.get("runtime"),
        "runtime_version": r.get("runtime_version"),
        "arrival": "trace",
        "settings": json.loads(settings) if settings else None,
        "plan": plan_id,
    }
    return {k: v for k, v in keys.items() if v not in (None, "", {})}


def _stored_levels(levels: list[PlanLevel]) -> list[StoredLevel]:
    return [
        StoredLevel(lv.level, lv.rate_multiple, lv.requests_per_s, lv.requests, lv.duration_s, lv.predicted)
        for lv in levels
    ]


def _runs(conn: duckdb.DuckDBPyConnection) -> dict[str, dict[str, Any]]:
    """Each run label's row: its model as named in its files and its runtime settings."""
    return {r["run_label"]: r for r in query_frame(conn, "SELECT * FROM observed.runs").to_dicts()}


def context_note(settings: dict[str, Any] | None, traffic: project.Traffic) -> str | None:
    """Where the config's own settings cap a request's context (max_model_len) below some of our requests (prompt +
    answer): the share refused as configured, in words; None when nothing is capped."""
    cap = (settings or {}).get("max_model_len")
    if not isinstance(cap, int | float) or cap <= 0:
        return None
    if traffic.trace is not None:
        total = traffic.trace.input_tokens + traffic.trace.output_tokens
    else:
        rng = np.random.default_rng(SEED)
        total = traffic.input_tokens.sample(10_000, rng) + traffic.output_tokens.sample(10_000, rng)
    share = float(np.mean(total > cap))
    if share == 0:
        return None
    return (
        f"as run, its settings cap a request's context at max_model_len {int(cap):,} tokens, which {share:.0%} of our "
        "requests (prompt + answer) exceed: raise it for the measurement (the plan's run.yaml keeps the setting as run)"
    )


def _why(c: Candidate, point: float | None, note: str | None = None) -> str:
    why = c.why + "".join(f"; also: {a}" for a in c.also) + (f"; {note}" if note else "")
    if point is None:
        why += (
            "; no engine model with a measured error for this config: wide levels around its billed band, no "
            "prediction per level"
        )
    return why


def build_plans(
    conn: duckdb.DuckDBPyConnection,
    plans_dir: Path,
    log: Log,
    write_files: WriteFiles | None = None,
    now: datetime.datetime | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(marts.measurement_plan rows, calibrated.plan_predictions rows); each plan stored and its files written."""
    workloads = {
        w["profile"]: w
        for w in query_frame(
            conn,
            "SELECT p.profile, p.model_id, p.model_key, w.* EXCLUDE (profile) FROM requirement.profiles AS p "
            "JOIN requirement.workload AS w USING (profile) ORDER BY profile",
        ).to_dicts()
    }
    bounds: dict[str, dict[str, float]] = {}
    for b in query_frame(conn, "SELECT profile, measure, bound FROM requirement.slo_bounds").to_dicts():
        bounds.setdefault(b["profile"], {})[b["measure"]] = b["bound"]
    runs = _runs(conn)
    plan_rows = []
    for profile, found in candidates(conn).items():
        workload = workloads.get(profile)
        if workload is None or not found:
            continue
        try:
            traffic = traffic_of(workload)
        except project.NoTraffic as problem:
            log(f"{profile}: no measurement plan: {problem}")
            continue
        digest = workload_digest_of(workload)
        for rank, c in enumerate(found, start=1):
            plan_rows.append(
                _plan(c, rank, traffic, digest, bounds.get(profile, {}), runs, plans_dir, write_files, now)
            )
            log(f"{profile}: plan {rank} {plan_rows[-1]['plan_id']}: {c.reason}, {plan_rows[-1]['config_label']}")
    came_back = plan_measurements(conn, [r["plan_id"] for r in plan_rows])
    for row in plan_rows:
        row["plan_status"] = came_back[row["plan_id"]].status
    stored, problems = read_plans(plans_dir)
    for unreadable in problems:
        log(f"a stored measurement plan cannot be read, left out of calibrated.plan_predictions: {unreadable}")
    return plan_rows, [r for p in stored for r in prediction_rows(p)]


def _plan(
    c: Candidate,
    rank: int,
    traffic: project.Traffic,
    digest: str,
    bounds: dict[str, float],
    runs: dict[str, dict[str, Any]],
    plans_dir: Path,
    write_files: WriteFiles | None,
    now: datetime.datetime | None,
) -> dict[str, Any]:
    """One candidate's plan: stored (or read back when stored under its id) with its files, as a table row."""
    point, error = _point(c)
    params = params_of(c.model) if point is not None and c.model is not None else None
    center = _center(c, point)
    rates = [rate for _, rate in level_rates(center, params is not None)]
    plan_id = plan_id_of(c.profile, c.row["config_key"], params.to_dict() if params else None, digest, rates)
    run = runs.get(c.row.get("run_label") or "", {})
    settings = json.loads(run["runtime_settings"]) if run.get("runtime_settings") else None
    note = context_note(settings, traffic)
    label = config_label_of(c.row)
    path = plan_folder(plans_dir, plan_id) / PLAN_FILE
    try:
        stored = read_plan(path) if path.exists() else None
    except IngestError:
        stored = None  # damaged: made again (its first date is lost with it)
    if stored is None:
        levels = plan_levels(traffic, center, params)
        run_yaml = run_yaml_of(c, plan_id, run.get("model_raw"), run.get("runtime_settings"))
        plan = StoredPlan(
            plan_id=plan_id,
            profile=c.profile,
            config_key=c.model["config_key"] if c.model is not None else c.row["config_key"],
            config_label=label,
            reason=c.reason,
            why=_why(c, point, note),
            run_yaml=run_yaml,
            traffic_basis=traffic.basis,
            workload_digest=digest,
            model_params=params.to_dict() if params else None,
            band_rel_error=error,
            slo_bounds=bounds,
            predicted_delivered_requests_per_s=point,
            levels=_stored_levels(levels),
        )
        stored = write_plan(plans_dir, plan, now)
        if write_files is not None:
            files = PlanFiles(
                plan_id, c.profile, label, run_yaml, run.get("model_raw"), traffic.basis, plan.why, levels
            )
            write_files(plan_folder(plans_dir, plan_id), files)
    r = c.row
    values = {
        "profile": c.profile,
        "plan_rank": rank,
        "plan_id": plan_id,
        "reason": c.reason,
        "why": _why(c, point, note),
        "stake_monthly_usd": c.stake_usd,
        "config_key": r["config_key"],
        "config_label": label,
        "evidence": r["evidence"],
        "billed_basis": r.get("billed_basis"),
        "model_id": r["model_id"],
        "accelerator_id": r["accelerator_id"],
        "accelerator_count": int(r["accelerator_count"]),
        "precision": r.get("precision"),
        "runtime": r.get("runtime"),
        "runtime_version": r.get("runtime_version"),
        "run_yaml": json.dumps(stored.run_yaml, sort_keys=True),
        "billed_requests_per_s_low": r["billed_requests_per_s_low"],
        "billed_requests_per_s_high": r["billed_requests_per_s_high"],
        "has_prediction": stored.model_params is not None,
        "predicted_delivered_requests_per_s": stored.predicted_delivered_requests_per_s,
        "levels": len(stored.levels),
        "level_rates_per_s": ", ".join(f"{lv.requests_per_s:.4g}" for lv in stored.levels),
        "rate_multiples": ", ".join(f"{lv.rate_multiple:g}" for lv in stored.levels if lv.rate_multiple),
        "requests_per_level_min": min(lv.requests for lv in stored.levels),
        "traffic_basis": stored.traffic_basis,
        "plan_folder": f"{plans_dir.name}/{plan_id}",
        "plan_created_at": _when(stored.created_at),
        "plan_status": "open",  # build_plans says which came back
    }
    return row_for(MeasurementPlan, values, origin=(r["config_key"], f"profile {c.profile} plan {rank}"))


def _when(created_at: str) -> datetime.datetime:
    """A stored plan's date as a naive UTC timestamp (as the warehouse stores times)."""
    return datetime.datetime.fromisoformat(created_at).astimezone(datetime.UTC).replace(tzinfo=None)


def prediction_rows(plan: StoredPlan) -> list[dict[str, Any]]:
    """A stored plan's calibrated.plan_predictions rows, one per level."""
    rows = []
    for lv in plan.levels:
        predicted = lv.predicted or {}
        values = {
            "plan_id": plan.plan_id,
            "profile": plan.profile,
            "config_key": plan.config_key,
            "config_label": plan.config_label,
            "plan_created_at": _when(plan.created_at),
            "level": lv.level,
            "rate_multiple": lv.rate_multiple,
            "requests_per_s": lv.requests_per_s,
            "requests": lv.requests,
            "duration_s": lv.duration_s,
            **{m: predicted.get(m) for m in PREDICTED_METRICS},
        }
        rows.append(row_for(PlanPredictions, values, origin=(plan.plan_id, f"level {lv.level}")))
    return rows
