"""MLPerf rounds as partitions: where a round's results are, the rounds a run's inputs hold, and each
ingestion recorded as a version of its round (what changed against the rows held before)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import duckdb
import polars as pl

from assets.config.sources import Sources
from assets.core.errors import IngestError
from assets.core.mlperf_names import round_sort_key
from assets.core.records import LOCATION_COLUMN, SOURCE_COLUMN
from assets.mlperf_rounds.ingest import Batch, read_locations
from assets.warehouse.validate import frame_from_rows
from assets.warehouse.write import WriteReport, transaction, write_table
from schemas.audit.mlperf_round_versions import MlperfRoundVersions
from schemas.benchmark.mlperf_results import MlperfResults
from schemas.benchmark.mlperf_run_conditions import MlperfRunConditions
from schemas.benchmark.mlperf_source_disagreements import MlperfSourceDisagreements


def round_locations(
    round_name: str, config_locations: Sequence[str], run_locations: Sequence[str], sources: Sources
) -> list[str]:
    """Where a round's results are: the partition run's config, else the run's MLPerf inputs, else the
    sources file's locations of the round."""
    if config_locations:
        return list(config_locations)
    if run_locations:
        return list(run_locations)
    found = sources.locations_for(round_name)
    if not found:
        raise IngestError(
            f"round {round_name}: no location known; pass it with --mlperf or add it to {sources.path} under rounds:"
        )
    return found


def results_frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    frame = frame_from_rows(rows, MlperfResults).with_columns(
        pl.col("source").alias(SOURCE_COLUMN), pl.col("source_location").alias(LOCATION_COLUMN)
    )
    return frame.sort("round_order", "division", "suite", "submitter", "platform", "used_model", "scenario")


def _conditions_frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    columns = list(MlperfRunConditions.to_schema().columns)
    full = [{c: row.get(c) for c in columns} | {"evidence": "benchmark"} for row in rows]
    return frame_from_rows(full, MlperfRunConditions)


def _existing(conn: duckdb.DuckDBPyConnection, sql: str, params: list) -> list[tuple]:
    try:
        return conn.execute(sql, params).fetchall()
    except duckdb.CatalogException:
        return []


def round_version(
    conn: duckdb.DuckDBPyConnection, round_name: str, batch: Batch, locations: list[str]
) -> tuple[list[dict[str, Any]], str]:
    """This ingestion as the next version of the round when its contents differ from the last
    version's (checksums of the files read), with what changed against the rows the warehouse held
    (call before replacing them). Returns all versions of the round and new/unchanged/corrected."""
    digests = sorted({f.sha256 for f in batch.files if f.status == "read" and f.sha256})
    digest = hashlib.sha256("\n".join(digests).encode()).hexdigest()
    history = _existing(
        conn, "SELECT * FROM audit.mlperf_round_versions WHERE round = ? ORDER BY version", [round_name]
    )
    names = list(MlperfRoundVersions.to_schema().columns)
    versions = [dict(zip(names, row)) for row in history]
    before = dict(
        _existing(conn, "SELECT result_key, result_value FROM benchmark.mlperf_results WHERE round = ?", [round_name])
    )
    after = {r["result_key"]: r["result_value"] for r in batch.rows}
    previous = versions[-1] if versions else None
    if previous is not None and previous["sources_sha256"] == digest:
        return versions, "unchanged"  # nothing to record: the round holds what it held
    change = "new" if previous is None else "corrected"
    versions.append(
        {
            "round": round_name,
            "version": len(versions) + 1,
            "ingested_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "sources_sha256": digest,
            "sources": json.dumps(locations),
            "change": change,
            "previous_sha256": previous["sources_sha256"] if previous else None,
            "rows": len(after),
            "rows_added": len(after.keys() - before.keys()),
            "rows_removed": len(before.keys() - after.keys()),
            "values_changed": sum(1 for k in after.keys() & before.keys() if after[k] != before[k]),
        }
    )
    return versions, change


def plan_rounds(mlperf_locations: list[str], sources: Sources, log=None) -> dict[str, list[str]]:
    """Which rounds the inputs hold and where each round's results are: each explicit location is
    read once to see its rounds (content decides); without explicit locations, the sources file's."""
    if not mlperf_locations:
        return {name: sources.locations_for(name) for name in sources.round_names}
    plan: dict[str, list[str]] = {}
    for location in mlperf_locations:
        batch = read_locations([location], sources.allowed_hosts, log=log)
        for round_name in batch.rounds:
            plan.setdefault(round_name, []).append(location)
    if not plan:
        raise IngestError(f"no MLPerf results in {mlperf_locations}: every file was skipped or quarantined")
    return dict(sorted(plan.items(), key=lambda item: round_sort_key(item[0])))


ROUND_TABLES = (
    "benchmark.mlperf_results",
    "benchmark.mlperf_run_conditions",
    "benchmark.mlperf_source_disagreements",
)


@dataclass
class RoundWrite:
    """What ingesting one round wrote: a report per table written, the round's versions and this ingestion's change
    (versions are recorded with the results: without them, `versions` is empty and `change` is "")."""

    reports: dict[str, WriteReport]
    versions: list[dict[str, Any]]
    change: str


def write_round(
    conn: duckdb.DuckDBPyConnection,
    round_name: str,
    batch: Batch,
    locations: list[str],
    tables: Collection[str] = ROUND_TABLES,
) -> RoundWrite:
    """Replace one round's rows (results, run conditions, disagreements; or only those of `tables`) and, with the
    results, record the ingestion as a version of the round, all in one transaction; IngestError when the
    locations hold no result of the round."""
    if not batch.rows:
        raise IngestError(
            f"no MLPerf results of round {round_name} in {locations}: every file was skipped, "
            "quarantined or belongs to another round"
        )
    scope = ("round", round_name)
    frames = {
        "benchmark.mlperf_results": (results_frame(batch.rows), MlperfResults, batch.rejects, batch.files),
        "benchmark.mlperf_run_conditions": (_conditions_frame(batch.conditions), MlperfRunConditions, [], None),
        "benchmark.mlperf_source_disagreements": (
            frame_from_rows(batch.disagreements, MlperfSourceDisagreements),
            MlperfSourceDisagreements,
            [],
            None,
        ),
    }
    reports: dict[str, WriteReport] = {}
    versions: list[dict[str, Any]] = []
    change = ""
    with transaction(conn):  # the round's rows and its version record, together
        if "benchmark.mlperf_results" in tables:
            versions, change = round_version(conn, round_name, batch, locations)
        for table, (frame, model, rejects, files) in frames.items():
            if table in tables:
                reports[table] = write_table(conn, table, frame, model, rejects, files, scope=scope)
        if versions:
            write_table(
                conn,
                "audit.mlperf_round_versions",
                frame_from_rows(versions, MlperfRoundVersions),
                MlperfRoundVersions,
                [],
                None,
                scope=scope,
            )
    return RoundWrite(reports, versions, change)
