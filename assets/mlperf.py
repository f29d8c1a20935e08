"""Benchmark evidence from MLPerf Inference: canonical results per round, their run conditions,
where sources disagree, the per-config reference and the round-over-round view."""


import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import dagster as dg
import duckdb
import polars as pl

from assets import mlperf_ingest
from assets.canonical import round_sort_key
from assets.sqlfiles import build_table_from_sql, sql_check
from assets.textinput import parse_yaml
from assets.warehouse import IngestError, frame_from_rows, transaction, write_table
from pipelines.partitions import mlperf_rounds
from pipelines.resources import Inputs, Warehouse
from schemas.mlperf_reference import MlperfReference
from schemas.mlperf_results import MlperfResults
from schemas.mlperf_round_over_round import MlperfRoundOverRound
from schemas.mlperf_round_versions import MlperfRoundVersions
from schemas.mlperf_run_conditions import MlperfRunConditions
from schemas.mlperf_source_disagreements import MlperfSourceDisagreements


@dataclass(frozen=True)
class Discovery:
    """Where the round sensor looks for new rounds (GitHub's REST API)."""

    api: str
    owner: str
    repository_pattern: str
    table_files: list[str]


@dataclass(frozen=True)
class Sources:
    """The sources file: each known round's table location, allowed hosts, discovery settings."""

    rounds: list[tuple[str, str]]
    allowed_hosts: list[str]
    discovery: Discovery | None = None
    path: str = ""

    def locations_for(self, round_name: str) -> list[str]:
        return [url for name, url in self.rounds if name == round_name]

    @property
    def round_names(self) -> list[str]:
        return list(dict.fromkeys(name for name, _url in self.rounds))


def load_sources(path: str | Path) -> Sources:
    """The sources file, checked; IngestError naming the file and the key at fault."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise IngestError(f"{path}: cannot read the MLPerf sources file ({exc})") from exc
    content = parse_yaml(data, f"{path} (the MLPerf sources file)")
    if not isinstance(content, dict) or not isinstance(content.get("rounds"), list):
        raise IngestError(f"{path}: expected `rounds:` (a list of {{round, url}}) and `allowed_hosts:`")
    rounds = []
    for i, entry in enumerate(content["rounds"]):
        if not isinstance(entry, dict) or not entry.get("url") or not entry.get("round"):
            raise IngestError(f"{path}: rounds[{i}] needs `round` (like v5.1) and `url`")
        rounds.append((str(entry["round"]).strip(), str(entry["url"])))
    discovery = None
    found = content.get("discovery")
    if found is not None:
        missing = [k for k in ("api", "owner", "repository_pattern", "table_files") if not found.get(k)]
        if missing:
            raise IngestError(f"{path}: discovery lacks {missing}")
        discovery = Discovery(str(found["api"]).rstrip("/"), str(found["owner"]), str(found["repository_pattern"]),
                              [str(f) for f in found["table_files"]])
    return Sources(rounds, [str(h) for h in content.get("allowed_hosts") or []], discovery, str(path))


class MlperfRoundConfig(dg.Config):
    """Where a round's results are (files, folders, URLs); empty: the run's inputs or the sources file."""

    locations: list[str] = []


def round_locations(round_name: str, config_locations: list[str], inputs: Inputs, sources: Sources) -> list[str]:
    if config_locations:
        return list(config_locations)
    if inputs.mlperf:
        return list(inputs.mlperf)
    found = sources.locations_for(round_name)
    if not found:
        raise IngestError(f"round {round_name}: no location known; pass it with --mlperf or add it to "
                          f"{sources.path} under rounds:")
    return found


def results_frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    frame = frame_from_rows(rows, MlperfResults).with_columns(
        pl.col("source").alias("_source"), pl.col("source_location").alias("_location"))
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


def round_version(conn: duckdb.DuckDBPyConnection, round_name: str, batch: mlperf_ingest.Batch,
                  locations: list[str]) -> tuple[list[dict[str, Any]], str]:
    """This ingestion as the next version of the round when its contents differ from the last
    version's (checksums of the files read), with what changed against the rows the warehouse held
    (call before replacing them). Returns all versions of the round and new/unchanged/corrected."""
    digests = sorted({f.sha256 for f in batch.files if f.status == "read" and f.sha256})
    digest = hashlib.sha256("\n".join(digests).encode()).hexdigest()
    history = _existing(conn, "SELECT * FROM audit.mlperf_round_versions WHERE round = ? ORDER BY version", [round_name])
    names = list(MlperfRoundVersions.to_schema().columns)
    versions = [dict(zip(names, row)) for row in history]
    before = dict(_existing(conn, "SELECT result_key, result_value FROM benchmark.mlperf_results WHERE round = ?",
                            [round_name]))
    after = {r["result_key"]: r["result_value"] for r in batch.rows}
    previous = versions[-1] if versions else None
    if previous is not None and previous["sources_sha256"] == digest:
        return versions, "unchanged"  # nothing to record: the round holds what it held
    change = "new" if previous is None else "corrected"
    versions.append({
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
    })
    return versions, change


@dg.multi_asset(
    name="benchmark__mlperf_results",
    specs=[
        dg.AssetSpec(["benchmark", "mlperf_results"], group_name="benchmark", kinds={"duckdb", "polars"},
                     description="One canonical row per published MLPerf Inference result (corrected unit, "
                                 "per-accelerator value, canonical accelerator and model, provenance), from every "
                                 "published format: round tables, checker CSVs, workbooks, cm4mlperf rows, "
                                 "submission trees; partitioned by round."),
        dg.AssetSpec(["benchmark", "mlperf_run_conditions"], group_name="benchmark", kinds={"duckdb", "polars"},
                     description="Per result rebuilt from a submission tree: the limits the run was held to "
                                 "(target QPS and latency, TTFT/TPOT limits) and the latency, TTFT and TPOT "
                                 "percentiles LoadGen logged, in ms; joined to mlperf_results by result_key."),
        dg.AssetSpec(["benchmark", "mlperf_source_disagreements"], group_name="benchmark",
                     kinds={"duckdb", "polars"},
                     description="Where two published sources of one MLPerf result differ (value, unit, "
                                 "precision, power, accuracy): both values and both sources."),
    ],
    partitions_def=mlperf_rounds,
)
def mlperf_round(context: dg.AssetExecutionContext, config: MlperfRoundConfig, warehouse: Warehouse,
                 inputs: Inputs):
    """One MLPerf round: every source that holds it, merged to one row per result; replaces the
    round's rows and records the ingestion as a version of the round."""
    round_name = context.partition_key
    sources = load_sources(inputs.sources_file)
    locations = round_locations(round_name, list(config.locations), inputs, sources)
    batch = mlperf_ingest.read_locations(locations, sources.allowed_hosts, round_name=round_name,
                                         log=context.log.info)
    if not batch.rows:
        raise IngestError(f"no MLPerf results of round {round_name} in {locations}: every file was skipped, "
                          "quarantined or belongs to another round")
    scope = ("round", round_name)
    with warehouse.connect() as conn, transaction(conn):  # the round's rows and its version record, together
        versions, change = round_version(conn, round_name, batch, locations)
        report = write_table(conn, "benchmark.mlperf_results", results_frame(batch.rows), MlperfResults,
                             batch.rejects, batch.files, scope=scope)
        conditions = write_table(conn, "benchmark.mlperf_run_conditions", _conditions_frame(batch.conditions),
                                 MlperfRunConditions, [], None, scope=scope)
        disagreements = write_table(conn, "benchmark.mlperf_source_disagreements",
                                    frame_from_rows(batch.disagreements, MlperfSourceDisagreements),
                                    MlperfSourceDisagreements, [], None, scope=scope)
        write_table(conn, "audit.mlperf_round_versions", frame_from_rows(versions, MlperfRoundVersions),
                    MlperfRoundVersions, [], None, scope=scope)
    latest = versions[-1]
    context.log.info(f"round {round_name}: {report.rows} results, {report.quarantined} quarantined, "
                     f"{conditions.rows} with run conditions, {disagreements.rows} disagreements; "
                     f"version {latest['version']} ({change})")
    common = {"round": round_name, "locations": dg.MetadataValue.json(locations),
              "sources_sha256": latest["sources_sha256"], "change": change}
    yield dg.MaterializeResult(asset_key=["benchmark", "mlperf_results"], metadata={**report.metadata(), **common})
    yield dg.MaterializeResult(asset_key=["benchmark", "mlperf_run_conditions"], metadata=conditions.metadata())
    yield dg.MaterializeResult(asset_key=["benchmark", "mlperf_source_disagreements"],
                               metadata=disagreements.metadata())


mlperf_results_unique = sql_check(
    ["benchmark", "mlperf_results"], "one_row_per_result",
    "No two rows share round, division, suite, submitter, platform, model and scenario.", blocking=True)
mlperf_results_llm_units = sql_check(
    ["benchmark", "mlperf_results"], "llm_throughput_in_tokens",
    "LLM Offline/Server/Interactive results are tokens/s after unit correction (v4.0 llama2 Server excepted).")
mlperf_results_per_accel = sql_check(
    ["benchmark", "mlperf_results"], "per_accelerator_consistent",
    "result_per_accelerator x total_accelerators equals result_value for throughput rows.", blocking=True)


@dg.asset(
    key=["benchmark", "mlperf_reference"],
    deps=[["benchmark", "mlperf_results"]],
    group_name="benchmark",
    kinds={"duckdb", "sql"},
)
def mlperf_reference(context: dg.AssetExecutionContext, warehouse: Warehouse) -> dg.MaterializeResult:
    """Per accelerator and model, the MLPerf reference a config is compared with: the highest
    per-accelerator closed-division Server result in the newest round that has one, with the same
    system's Offline (an upper bound) and Interactive numbers; built by sql/benchmark/mlperf_reference.sql."""
    return build_table_from_sql(warehouse, "benchmark.mlperf_reference", MlperfReference)


@dg.asset(
    key=["benchmark", "mlperf_round_over_round"],
    deps=[["benchmark", "mlperf_results"]],
    group_name="benchmark",
    kinds={"duckdb", "sql"},
)
def mlperf_round_over_round(warehouse: Warehouse) -> dg.MaterializeResult:
    """The same accelerator, model and scenario across rounds (closed division): the best
    per-accelerator result of each round with its software and precision, and the change against
    the previous and the first round; built by sql/benchmark/mlperf_round_over_round.sql."""
    return build_table_from_sql(warehouse, "benchmark.mlperf_round_over_round", MlperfRoundOverRound)


MLPERF_ROUND_ASSETS = [["benchmark", "mlperf_results"], ["benchmark", "mlperf_run_conditions"],
                       ["benchmark", "mlperf_source_disagreements"]]


MLPERF_ROUND_OP = "benchmark__mlperf_results"


def round_run_config(locations: list[str]) -> dict[str, Any]:
    """Run config telling a round's partition run where its results are."""
    return {"ops": {MLPERF_ROUND_OP: {"config": {"locations": list(locations)}}}}


def plan_rounds(mlperf_locations: list[str], sources: Sources, log=None) -> dict[str, list[str]]:
    """Which rounds the inputs hold and where each round's results are: each explicit location is
    read once to see its rounds (content decides); without explicit locations, the sources file's."""
    if not mlperf_locations:
        return {name: sources.locations_for(name) for name in sources.round_names}
    plan: dict[str, list[str]] = {}
    for location in mlperf_locations:
        batch = mlperf_ingest.read_locations([location], sources.allowed_hosts, log=log)
        for round_name in batch.rounds:
            plan.setdefault(round_name, []).append(location)
    if not plan:
        raise IngestError(f"no MLPerf results in {mlperf_locations}: every file was skipped or quarantined")
    return dict(sorted(plan.items(), key=lambda item: round_sort_key(item[0])))
