"""Measurement plans stored in the warehouse (`plans/<plan_id>/plan.json`), kept for as long as the warehouse is:
a plan is the prediction made *before* measuring, so a later run (which refits the config on what came back) never
rewrites it. The plan id is a digest of what the prediction rests on (profile, config, the engine model's parameters,
our traffic, the levels), so an unchanged plan keeps its id and its first date; a changed model or workload makes a
new plan beside the old one, which stays open until a run names it."""

from __future__ import annotations

import datetime
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from assets.core.errors import IngestError
from assets.inputs.files import sha256_bytes
from assets.runs.stored_partition import write_json

PLAN_STORE_VERSION = "benchbill-plan-1"
PLAN_FILE = "plan.json"


@dataclass(frozen=True)
class StoredLevel:
    """One level of a stored plan: its rate, how many requests and over how long, and the prediction made at plan
    time (spec.PREDICTED_METRICS -> value; None: no engine model)."""

    level: int
    rate_multiple: float | None
    requests_per_s: float
    requests: int
    duration_s: float
    predicted: dict[str, float | None] | None


@dataclass(frozen=True)
class StoredPlan:
    """What `plan.json` holds. `config_key`: the engine model's config (calibrated.engine_models) where the plan has
    one, else marts.capacity_plan's; `model_params`: the engine parameters (EngineParams.to_dict) the predictions came
    from, None for a config without an engine model; `band_rel_error`: the config's held-out error the predictions
    are widened by (within the band or not); `workload_digest`: a digest of the requirement.workload row the traffic
    was drawn from; `created_at`: when the plan was first written (ISO 8601, UTC)."""

    plan_id: str
    profile: str
    config_key: str
    config_label: str
    reason: str
    why: str
    run_yaml: dict[str, Any]
    traffic_basis: str
    workload_digest: str
    model_params: dict[str, Any] | None
    band_rel_error: float | None
    slo_bounds: dict[str, float]
    predicted_delivered_requests_per_s: float | None
    levels: list[StoredLevel] = field(default_factory=list)
    created_at: str = ""
    version: str = PLAN_STORE_VERSION


def plan_id_of(
    profile: str, config_key: str, model_params: dict[str, Any] | None, workload_digest: str, rates: list[float]
) -> str:
    """The plan's id: a digest of what its prediction rests on (same inputs, same id)."""
    evidence = json.dumps(
        [PLAN_STORE_VERSION, profile, config_key, model_params, workload_digest, [round(r, 6) for r in rates]],
        sort_keys=True,
        default=str,
    )
    return "plan-" + sha256_bytes(evidence.encode())[:12]


def workload_digest_of(workload: dict[str, Any]) -> str:
    """A digest of a requirement.workload row (what the plan's traffic was drawn from)."""
    return sha256_bytes(json.dumps(workload, sort_keys=True, default=str).encode())[:16]


def plan_folder(plans_dir: Path, plan_id: str) -> Path:
    return plans_dir / plan_id


def write_plan(plans_dir: Path, plan: StoredPlan, now: datetime.datetime | None = None) -> StoredPlan:
    """Store `plan` under its id, keeping the first date of a plan already stored (the same prediction); returns the
    plan as stored."""
    folder = plan_folder(plans_dir, plan.plan_id)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / PLAN_FILE
    created = plan.created_at
    if path.exists():
        try:
            created = json.loads(path.read_text()).get("created_at") or created
        except (OSError, ValueError):
            pass  # a damaged file is written again; its date is lost, said by the new one's
    if not created:
        created = (now or datetime.datetime.now(datetime.UTC)).replace(microsecond=0).isoformat()
    stored = StoredPlan(**{**asdict(plan), "levels": plan.levels, "created_at": created})
    write_json(path, asdict(stored))
    return stored


def _level(raw: dict[str, Any]) -> StoredLevel:
    return StoredLevel(**raw)


def read_plan(path: Path) -> StoredPlan:
    """One stored plan; IngestError naming the file and what was expected when it cannot be read."""
    try:
        raw = json.loads(path.read_text())
    except (OSError, ValueError) as problem:
        raise IngestError(f"{path}: expected a stored measurement plan (JSON): {problem}") from None
    if not isinstance(raw, dict) or raw.get("version") != PLAN_STORE_VERSION:
        raise IngestError(f"{path}: expected a measurement plan of version {PLAN_STORE_VERSION}")
    try:
        return StoredPlan(**{**raw, "levels": [_level(lv) for lv in raw.get("levels", [])]})
    except TypeError as problem:
        raise IngestError(f"{path}: not a measurement plan of version {PLAN_STORE_VERSION}: {problem}") from None


def read_plans(plans_dir: Path) -> tuple[list[StoredPlan], list[str]]:
    """Every plan stored in `plans_dir`, oldest first, and the problems of those that cannot be read (in words)."""
    plans, problems = [], []
    if not plans_dir.is_dir():
        return [], []
    for path in sorted(plans_dir.glob(f"*/{PLAN_FILE}")):
        try:
            plans.append(read_plan(path))
        except IngestError as problem:
            problems.append(str(problem))
    return sorted(plans, key=lambda p: (p.created_at, p.plan_id)), problems
