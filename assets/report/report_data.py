"""What the HTML report shows, read from the published serving file through the analyst views (ReportData)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import duckdb

from assets.report.serving_tables import present_tables

PLAN_TABLE = "marts.measurement_plan"
PLAN_LEVELS_TABLE = "calibrated.plan_predictions"
PLAN_SCORES_TABLE = "calibrated.prospective_validation"


@dataclass
class PlanData:
    """The measurement plans a serving file holds (none where it was published before marts.measurement_plan
    existed: `published` False): per profile its rows by plan_rank, per plan id its levels by level
    (calibrated.plan_predictions) and, once a run names the plan, the score of its prediction per level and metric
    (calibrated.prospective_validation, where the file holds it)."""

    published: bool = False
    rows: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    levels: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    scores: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    # per profile, the plans a run came back for that are no longer in its plan (the refit on what came back made a
    # new one): their calibrated.plan_predictions row of level 1 (plan id, config label, date)
    earlier: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


@dataclass
class ReportData:
    serving_path: str
    profiles: list[dict[str, Any]]
    bounds: dict[str, list[dict[str, Any]]]
    shortlist: dict[str, list[dict[str, Any]]]
    observed: dict[str, list[dict[str, Any]]]
    load_points: dict[str, list[dict[str, Any]]]
    references: dict[tuple[str, str], dict[str, Any]]
    profile_references: dict[tuple[str, str, str], dict[str, Any]]  # (profile, accelerator, model): the scenario
    sources: dict[str, list[dict[str, Any]]]
    rounds: list[dict[str, Any]]
    runs: list[dict[str, Any]]
    quarantine: list[dict[str, Any]]
    files: list[dict[str, Any]]
    capacity: dict[str, list[dict[str, Any]]]
    measure_next: dict[str, list[dict[str, Any]]]
    traffic: dict[str, list[dict[str, Any]]]
    sensitivity: dict[str, list[dict[str, Any]]]
    served: dict[str, str]  # each run's or MLPerf result's model as written -> its canonical id (served_models)
    plans: PlanData = field(default_factory=PlanData)


def _rows(conn: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
    cursor = conn.execute(sql, params or [])
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def _grouped(rows: list[dict[str, Any]], key: str) -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[row[key]].append(row)
    return groups


def served_models(conn: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """Each model a run of ours or an MLPerf result serves, as written -> its key (canonical.model_key: what a
    profile's model is matched with: assets.report.decision.model_hint)."""
    return dict(
        conn.execute(
            "SELECT DISTINCT model_raw, model_key FROM observed.runs UNION "
            "SELECT DISTINCT mlperf_model, model_id FROM benchmark.mlperf_results WHERE model_id IS NOT NULL"
        ).fetchall()
    )


def read_report_data(conn: duckdb.DuckDBPyConnection, serving_path: str) -> ReportData:
    """Everything the report shows, read through the analyst views."""
    return ReportData(
        serving_path=serving_path,
        profiles=_rows(conn, "SELECT * FROM analytics.profiles"),
        bounds=_grouped(_rows(conn, "SELECT * FROM analytics.slo_bounds"), "profile"),
        shortlist=_grouped(_rows(conn, "SELECT * FROM analytics.shortlist"), "profile"),
        observed=_grouped(
            _rows(
                conn, "SELECT * FROM analytics.delivered_at_slo WHERE evidence = 'observed' ORDER BY profile, run_label"
            ),
            "profile",
        ),
        load_points=_grouped(_rows(conn, "SELECT * FROM analytics.load_points"), "run_id"),
        references={
            (r["accelerator_id"], r["model_id"]): r for r in _rows(conn, "SELECT * FROM analytics.mlperf_reference")
        },
        profile_references={
            (r["profile"], r["accelerator_id"], r["model_id"]): r
            for r in _rows(conn, "SELECT * FROM benchmark.mlperf_profile_reference")
        },
        sources=_grouped(_rows(conn, "SELECT * FROM analytics.shortlist_sources"), "profile"),
        rounds=_rows(
            conn,
            "SELECT round, count(*) AS results, count(DISTINCT submitter) AS submitters, "
            "count(DISTINCT accelerator_id) AS accelerators, string_agg(DISTINCT source, ', ') "
            "AS sources FROM analytics.mlperf_results GROUP BY round ORDER BY round DESC",
        ),
        runs=_rows(conn, "SELECT * FROM analytics.runs"),
        quarantine=_rows(conn, "SELECT table_name, count(*) AS rows FROM analytics.quarantine GROUP BY 1 ORDER BY 1"),
        files=_rows(conn, "SELECT status, count(*) AS files FROM analytics.source_files GROUP BY 1 ORDER BY 1"),
        capacity=_grouped(_rows(conn, "SELECT * FROM analytics.capacity_plan"), "profile"),
        measure_next=_grouped(_rows(conn, "SELECT * FROM analytics.measure_next"), "profile"),
        traffic=_grouped(
            _rows(conn, "SELECT * FROM requirement.traffic_rate ORDER BY profile, window_start_s"), "profile"
        ),
        sensitivity=_grouped(_rows(conn, "SELECT * FROM analytics.cost_sensitivity"), "profile"),
        served=served_models(conn),
        plans=read_plan_data(conn),
    )


def read_plan_data(conn: duckdb.DuckDBPyConnection, profile: str | None = None) -> PlanData:
    """The measurement plans of every profile (or of `profile`), their levels and their scores: each table read only
    where the file holds it (a serving file published by an earlier benchbill has none of them)."""
    present = present_tables(conn)
    if PLAN_TABLE not in present:
        return PlanData()
    only = ("WHERE profile = ?", [profile]) if profile is not None else ("", [])
    rows = _rows(conn, f"SELECT * FROM {PLAN_TABLE} {only[0]} ORDER BY profile, plan_rank", only[1])
    plan_ids = {r["plan_id"] for r in rows}
    profiles = {r["profile"] for r in rows} if profile is None else {profile}

    def of_plans(table: str, order: str) -> dict[str, list[dict[str, Any]]]:
        """The rows of `table` (where the file holds it) of the profiles read, per plan id."""
        if table not in present:
            return {}
        found = _rows(conn, f"SELECT * FROM {table} ORDER BY {order}")
        return _grouped([r for r in found if r["profile"] in profiles or r["plan_id"] in plan_ids], "plan_id")

    levels = of_plans(PLAN_LEVELS_TABLE, "plan_id, level")
    scores = of_plans(PLAN_SCORES_TABLE, "plan_id")
    earlier = [levels[p][0] for p in sorted(scores) if p not in plan_ids and p in levels]
    return PlanData(
        published=True,
        rows=_grouped(rows, "profile"),
        levels={p: found for p, found in levels.items() if p in plan_ids},
        scores=scores,
        earlier=_grouped(earlier, "profile"),
    )


def profiles_billed(conn: duckdb.DuckDBPyConnection) -> tuple[dict[str, dict[str, Any]], set[str]]:
    """Each profile's analytics.profiles row, and the profiles some config has a monthly bill for (a decision a
    measurement could change)."""
    profiles = {r["profile"]: r for r in _rows(conn, "SELECT * FROM analytics.profiles")}
    billed = conn.execute("SELECT DISTINCT profile FROM analytics.capacity_plan WHERE monthly_usd_high IS NOT NULL")
    return profiles, {profile for (profile,) in billed.fetchall()}
