"""A plan's prediction scored on what came back: calibrated.prospective_validation.

A run whose run.yaml names a plan (`observed.runs.plan_id`) is ingested as any other run of its config. Each of its
load levels is compared, metric by metric, with the prediction the plan stored before measuring
(`plans/<plan_id>/plan.json`, never the config's later refit):
- a level whose offered rate is within PLAN_LEVEL_MATCH of a plan level's rate: that level's stored prediction
  (`plan level`);
- any other level (another rate, a concurrency level): the plan's stored engine parameters simulate the level as
  measured, its load and its own token lengths, as the held-out validation predicts a level (`frozen model`,
  `fit.simulate_scored`); a plan without parameters predicts no level.
The run's delivered rate at the profile's SLO (observed.delivered_at_slo) is compared with the plan's predicted
delivered rate. A run naming a plan the warehouse does not hold, and a stored plan that cannot be read, are
quarantined (audit.quarantine) with the reason."""

from __future__ import annotations

import datetime
import math
import statistics
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from assets.calibrate.engine import EngineParams
from assets.calibrate.fit import simulate_scored
from assets.calibrate.levels import Level, read_configs, unserved
from assets.calibrate.record_lengths import level_lengths, with_record_lengths
from assets.calibrate.tables import FAILED_ABOVE
from assets.calibrate.validate import load_text
from assets.core.records import Reject
from assets.plan.spec import PREDICTED_METRICS
from assets.plan.store import PLAN_FILE, StoredLevel, StoredPlan, read_plans
from assets.runs.assemble import TOKEN_MIX_APART
from assets.warehouse.rows import row_for
from assets.warehouse.validate import frame_from_rows
from assets.warehouse.write import WriteReport, write_table
from schemas.calibrated.prospective_validation import ProspectiveValidation

TABLE = "calibrated.prospective_validation"
PLAN_LEVEL_MATCH = 0.05  # a measured level runs a plan level when its offered rate is within 5% of the level's
DELIVERED = "delivered_at_slo_requests_per_s"
SIDES = ("input", "output")
_Row = dict[str, Any]


@dataclass(frozen=True)
class PlanRun:
    """A run whose run.yaml names a plan (an observed.runs row)."""

    run_id: str
    run_label: str
    plan_id: str
    sidecar: str
    report_dir: str


def plan_runs(conn: duckdb.DuckDBPyConnection) -> list[PlanRun]:
    """Every run that names a plan, by label."""
    rows = conn.sql(
        "SELECT run_id, run_label, plan_id, sidecar, report_dir FROM observed.runs WHERE plan_id IS NOT NULL "
        "ORDER BY run_label"
    ).fetchall()
    return [PlanRun(*row) for row in rows]


def matched_level(plan: StoredPlan, load_kind: str, offered_rate: float | None) -> StoredLevel | None:
    """The plan level a measured level ran: a rate level whose offered rate is within PLAN_LEVEL_MATCH of the plan
    level's (the nearest); None for a concurrency level or another rate."""
    if load_kind != "rate" or not offered_rate or not math.isfinite(offered_rate):
        return None
    near = [lv for lv in plan.levels if abs(offered_rate / lv.requests_per_s - 1) <= PLAN_LEVEL_MATCH]
    return min(near, key=lambda lv: abs(offered_rate / lv.requests_per_s - 1), default=None)


def frozen_params(plan: StoredPlan) -> EngineParams | None:
    """The engine parameters the plan's predictions came from, as stored (EngineParams.to_dict); None: none."""
    return None if plan.model_params is None else EngineParams(**plan.model_params)


def _created(plan: StoredPlan) -> datetime.datetime | None:
    """When the plan was made (its stored created_at); None when the file does not say it as an ISO 8601 date."""
    try:
        return datetime.datetime.fromisoformat(plan.created_at)
    except (TypeError, ValueError):
        return None


def _finite(value: float | None) -> float | None:
    return float(value) if value is not None and math.isfinite(value) else None


def _positive(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) and value > 0 else None


def _row(
    plan: StoredPlan,
    run: PlanRun,
    where: dict[str, Any],
    metric: str,
    predicted: Any,
    measured: Any,
    notes: list[str],
    said: str | None = None,
) -> _Row:
    """One table row: the comparison of `predicted` with `measured`, scored unless `notes` give a reason (a missing
    prediction or measurement is one); `said`: what else the note says."""
    p, m, e = _finite(predicted), _positive(measured), plan.band_rel_error
    error = p / m - 1 if p is not None and m is not None else None
    if p is None:
        notes.append("nothing predicted")
    if m is None and metric != DELIVERED:
        notes.append("nothing measured")
    values = {
        "plan_id": plan.plan_id,
        "profile": plan.profile,
        "config_key": plan.config_key,
        "plan_created_at": _created(plan),
        "run_id": run.run_id,
        "run_label": run.run_label,
        **where,
        "metric": metric,
        "predicted": p,
        "measured": m,
        "relative_error": None if error is None else abs(error),
        "signed_relative_error": error,
        "band_rel_error": e,
        "within_band": None if p is None or m is None or e is None else p / (1 + e) <= m <= p * (1 + e),
        "scored": error is not None and not notes,
        "note": "; ".join([*notes, *filter(None, [said])]) or None,
        "evidence": "calibrated",
    }
    return row_for(ProspectiveValidation, values, origin=(run.sidecar, f"run {run.run_label} plan {plan.plan_id}"))


def level_rows(
    plan: StoredPlan,
    run: PlanRun,
    point: dict[str, Any],
    level: Level | None,
    run_config: str | None,
    traffic: dict[str, Any] | None = None,
) -> list[_Row]:
    """The rows of one measured level (an observed.load_points row; `level`: as the engine model reads it, None when
    its data rules leave it out): one per predicted metric the level measured."""
    kind, rate, concurrency = point["load_kind"], point["offered_rate_per_s"], point["concurrency"]
    cap = level.client_cap if level is not None else None
    where = {
        "load_index": point["load_index"],
        "load": load_text(kind, rate, concurrency, cap),
        "offered_requests_per_s": rate if kind == "rate" else None,
        "concurrency": concurrency if kind == "concurrency" else None,
    }
    stored = matched_level(plan, kind, rate)
    params = frozen_params(plan)
    base: list[str] = []
    if run_config is not None and run_config != plan.config_key:
        base.append(f"the run's config {run_config} is not the plan's: unjudged")
    why_out = unserved(point) if level is None else None
    if level is None:
        base.append(f"left out by the engine model's data rules ({why_out or 'no achieved rate measured'}): unjudged")
    measured = level.measured if level is not None else point
    if (measured.get("error_rate") or 0) > FAILED_ABOVE:
        base.append(f"{measured['error_rate']:.0%} of requests failed: unjudged")
    if stored is not None and stored.predicted is not None:
        basis, predicted = "plan level", stored.predicted
    elif params is not None and level is not None:
        basis, predicted = "frozen model", simulate_scored(params, level)
    else:
        basis, predicted = None, {}
    where |= {"plan_level": stored.level if stored is not None else None, "prediction_basis": basis}
    said = other_traffic(point, traffic) if basis == "plan level" else None
    rows = []
    for metric in PREDICTED_METRICS:
        if _positive(measured.get(metric)) is None:
            continue  # the level did not measure it
        predicted_value = predicted.get(metric)
        rows.append(_row(plan, run, dict(where), metric, predicted_value, measured.get(metric), list(base), said))
    return rows


def other_traffic(point: dict[str, Any], traffic: dict[str, Any] | None) -> str | None:
    """Words when a level sent other token lengths than the plan's traffic (a requirement.workload row): mean prompt
    or answer tokens apart by more than TOKEN_MIX_APART (a plan level's prediction is of the plan's traffic)."""
    if traffic is None:
        return None
    sent, planned = [], []
    for side in SIDES:
        a, b = _positive(point.get(f"{side}_tokens_mean")), _positive(traffic.get(f"{side}_tokens_mean"))
        if a is None or b is None:
            return None
        sent.append(a)
        planned.append(b)
    if all(max(a, b) <= TOKEN_MIX_APART * min(a, b) for a, b in zip(sent, planned, strict=True)):
        return None
    return (
        f"the level sent ~{sent[0]:.0f} prompt / {sent[1]:.0f} answer tokens, the plan's traffic "
        f"~{planned[0]:.0f} / {planned[1]:.0f}: the plan level predicted other traffic than was measured"
    )


def delivered_row(plan: StoredPlan, run: PlanRun, observed: dict[str, Any] | None) -> _Row:
    """The run's delivered rate at the plan profile's SLO (an observed.delivered_at_slo row, None: the profile and
    the run share no model) against the plan's predicted delivered rate."""
    where = {"load_index": None, "load": "sweep", "offered_requests_per_s": None, "concurrency": None}
    where |= {"plan_level": None, "prediction_basis": None}
    notes, measured = [], None
    if observed is None:
        notes.append(f"no observed delivered rate of this run for profile {plan.profile} (another model?)")
    elif not observed["feasible"]:
        notes.append("no level of the run met the SLO: nothing delivered to compare")
    elif not observed["slo_crossed"]:
        measured = observed["delivered_requests_per_s_low"]
        notes.append(f"every level met the SLO: at least {measured:.3g} requests/s (a lower bound), unjudged")
    else:
        low, high = observed["delivered_requests_per_s_low"], observed["delivered_requests_per_s_high"]
        measured = (low + high) / 2
        if plan.predicted_delivered_requests_per_s is not None:
            said = f"measured band {low:.3g}-{high:.3g} requests/s (its middle compared)"
            return _row(plan, run, where, DELIVERED, plan.predicted_delivered_requests_per_s, measured, notes, said)
    if plan.predicted_delivered_requests_per_s is None:
        notes.append("the plan has no engine model: no delivered rate predicted")
    return _row(plan, run, where, DELIVERED, plan.predicted_delivered_requests_per_s, measured, notes)


def prospective_rows(
    conn: duckdb.DuckDBPyConnection, plans: list[StoredPlan], problems: list[str], plans_dir: Path
) -> tuple[list[_Row], list[Reject]]:
    """Every row of calibrated.prospective_validation, and the rejects: the stored plans that cannot be read
    (`problems`, from store.read_plans) and the runs naming a plan the warehouse does not hold."""
    rejects = [Reject(str(plans_dir), "stored plan", problem) for problem in problems]
    by_id = {}
    for plan in plans:
        if _created(plan) is None:
            where = plans_dir / plan.plan_id / PLAN_FILE
            why = f"{where}: created_at {plan.created_at!r} is not an ISO 8601 date: its prediction's date is unknown"
            rejects.append(Reject(str(where), "stored plan", why))
            continue
        by_id[plan.plan_id] = plan
    runs = plan_runs(conn)
    missing = [run for run in runs if run.plan_id not in by_id]
    for run in missing:
        where = plans_dir / run.plan_id / PLAN_FILE
        state = "cannot be read: see its own quarantine row" if where.exists() else "not found"
        reason = (
            f"run.yaml names plan {run.plan_id}, which the warehouse does not hold ({where} {state}): the run is "
            "ingested, its levels not scored"
        )
        rejects.append(Reject(run.sidecar, f"run {run.run_label}", reason, {"run_id": run.run_id}))
    scored = [run for run in runs if run.plan_id in by_id]
    if not scored:
        return [], rejects
    ids = [run.run_id for run in scored]
    points = conn.execute(
        "SELECT * FROM observed.load_points WHERE list_contains(?, run_id) ORDER BY run_id, load_index", [ids]
    ).pl()
    levels, configs = _levels_of(conn, ids)
    delivered = {
        (r["profile"], r["run_id"]): r
        for r in conn.execute("SELECT * FROM observed.delivered_at_slo WHERE list_contains(?, run_id)", [ids])
        .pl()
        .iter_rows(named=True)
    }
    traffic = {
        r["profile"]: r
        for r in conn.sql("SELECT profile, input_tokens_mean, output_tokens_mean FROM requirement.workload")
        .pl()
        .iter_rows(named=True)
    }
    by_run: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for point in points.iter_rows(named=True):
        by_run[point["run_id"]].append(point)
    rows: list[_Row] = []
    for run in scored:
        plan = by_id[run.plan_id]
        if plan.model_params is not None:
            for point in by_run[run.run_id]:
                level = levels.get((run.run_id, point["load_index"]))
                rows += level_rows(plan, run, point, level, configs.get(run.run_id), traffic.get(plan.profile))
        rows.append(delivered_row(plan, run, delivered.get((plan.profile, run.run_id))))
    return rows, rejects


def _levels_of(
    conn: duckdb.DuckDBPyConnection, run_ids: list[str]
) -> tuple[dict[tuple[str, int], Level], dict[str, str]]:
    """The levels of `run_ids` as the engine model reads them (their own token lengths), by (run_id, load_index),
    and each run's config key."""
    wanted = set(run_ids)
    lengths = level_lengths(conn, run_ids)
    levels, configs = {}, {}
    for cfg in read_configs(conn, record_lengths=False):
        if not any(lv.run_id in wanted for lv in cfg.levels):
            continue
        for lv in with_record_lengths(cfg, lengths).levels:
            if lv.run_id in wanted:
                levels[(lv.run_id, lv.load_index)] = lv
                configs[lv.run_id] = cfg.key
    return levels, configs


def write_prospective_validation(
    conn: duckdb.DuckDBPyConnection, plans_dir: Path, log: Callable[[str], None] | None = None
) -> WriteReport:
    """Score every stored plan a run names and write calibrated.prospective_validation (rejects to the quarantine)."""
    plans, problems = read_plans(plans_dir)
    rows, rejects = prospective_rows(conn, plans, problems, plans_dir)
    if log is not None and (plans or rejects):  # a warehouse without plans has nothing to say
        named = len({r["plan_id"] for r in rows})
        log(f"prospective validation: {named} of {len(plans)} stored plans measured, {len(rejects)} quarantined")
    return write_table(conn, TABLE, frame_from_rows(rows, ProspectiveValidation), ProspectiveValidation, rejects)


@dataclass(frozen=True)
class PlanMeasured:
    """Whether a plan's measurements came back: the runs naming it and the load levels they measured."""

    plan_id: str
    runs: list[str]
    levels: int

    @property
    def status(self) -> str:
        """marts.measurement_plan.plan_status: measured once a run names the plan, else open."""
        return "measured" if self.runs else "open"


def plan_measurements(conn: duckdb.DuckDBPyConnection, plan_ids: list[str]) -> dict[str, PlanMeasured]:
    """Per plan id, the runs (labels) whose run.yaml names it and how many load levels they measured (none: open)."""
    found = conn.execute(
        "SELECT r.plan_id, list(DISTINCT r.run_label ORDER BY r.run_label), count(lp.load_index) "
        "FROM observed.runs AS r LEFT JOIN observed.load_points AS lp USING (run_id) "
        "WHERE list_contains(?, r.plan_id) GROUP BY r.plan_id",
        [plan_ids],
    ).fetchall()
    by_id = {plan_id: PlanMeasured(plan_id, list(labels), int(levels)) for plan_id, labels, levels in found}
    return {plan_id: by_id.get(plan_id, PlanMeasured(plan_id, [], 0)) for plan_id in plan_ids}


def _off_by(rows: list[_Row], metric: str, what: str) -> str:
    """`what` off by the median |relative error| of the plan's scored rows of `metric`, or why not said."""
    scored = [r["relative_error"] for r in rows if r["metric"] == metric and r["scored"]]
    if scored:
        over = "" if len(scored) == 1 else f" (median of {len(scored)})"
        return f"{what} off by {statistics.median(scored):.0%}{over}"
    said = next((r["note"] for r in rows if r["metric"] == metric and r["note"]), None)
    return f"{what} not measured" + (f" ({said})" if said else "")


def score_words(rows: list[_Row], created_at: str | None = None) -> str:
    """The sentence the report prints for one plan from its calibrated.prospective_validation rows: 'predicted
    before measuring: p95 TTFT off by X%, delivered rate off by Y%' (medians over the scored levels and runs); a part
    nothing measured is said so, and a plan no run came back for is open (since `created_at`)."""
    if not rows:
        since = f" since {created_at[:10]}" if created_at else ""
        return f"predicted before measuring: not measured yet (the plan is open{since})"
    parts = [_off_by(rows, "ttft_p95_ms", "p95 TTFT"), _off_by(rows, DELIVERED, "delivered rate")]
    return "predicted before measuring: " + ", ".join(parts)
