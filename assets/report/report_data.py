"""What the HTML report shows, read from the published serving file through the analyst views (ReportData)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import duckdb


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


def _rows(conn: duckdb.DuckDBPyConnection, sql: str) -> list[dict[str, Any]]:
    cursor = conn.execute(sql)
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
    )
