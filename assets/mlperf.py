"""Benchmark evidence from MLPerf Inference: canonical results and the per-config reference."""


from pathlib import Path
from typing import Any

import dagster as dg
import polars as pl
import yaml

from assets import mlperf_tables
from assets.fetch import is_url, read_location
from assets.sqlfiles import build_table_from_sql, sql_check
from assets.warehouse import IngestError, Reject, SourceFile, write_table
from pipelines.resources import Inputs, Warehouse
from schemas.mlperf_reference import MlperfReference
from schemas.mlperf_results import MlperfResults


def load_sources(path: str | Path) -> tuple[list[str], list[str]]:
    """(round-table locations, allowed hosts) from a sources file."""
    path = Path(path)
    try:
        content = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise IngestError(f"{path}: cannot read the MLPerf sources file ({exc})") from exc
    if not isinstance(content, dict) or not isinstance(content.get("rounds"), list):
        raise IngestError(f"{path}: expected `rounds:` (a list of {{round, url}}) and `allowed_hosts:`")
    locations = []
    for i, entry in enumerate(content["rounds"]):
        if not isinstance(entry, dict) or not entry.get("url"):
            raise IngestError(f"{path}: rounds[{i}] has no url")
        locations.append(str(entry["url"]))
    hosts = [str(h) for h in content.get("allowed_hosts") or []]
    return locations, hosts


def read_round_tables(locations: list[str], allowed_hosts: list[str], log=None) -> tuple[
        list[dict[str, Any]], list[Reject], list[SourceFile]]:
    """Canonical rows, rejects and the file inventory for every given location.

    A file or URL named explicitly must be a round table; inside a folder, files that are not
    are listed in the inventory as skipped.
    """
    rows: list[dict[str, Any]] = []
    rejects: list[Reject] = []
    files: list[SourceFile] = []
    for location in locations:
        explicit = is_url(location) or Path(location).is_file()
        for fetched in read_location(location, allowed_hosts, progress=log):
            detected = mlperf_tables.detect(fetched)
            if detected.format is None:
                if explicit:
                    raise IngestError(f"{fetched.name}: not an MLPerf round table this version reads "
                                      f"({detected.note}); expected a summary_results.json list of records")
                files.append(SourceFile(fetched.name, fetched.sha256, len(fetched.data), "unrecognised",
                                        "skipped", note=detected.note))
                continue
            parsed, bad = mlperf_tables.parse_summary_results(detected.payload, fetched)
            rows += parsed
            rejects += bad
            files.append(SourceFile(fetched.name, fetched.sha256, len(fetched.data), detected.format, "read",
                                    rows=len(parsed), note=f"{len(bad)} records quarantined" if bad else ""))
            if log:
                log(f"read {fetched.name}: {len(parsed)} results, {len(bad)} quarantined")
    kept, duplicates = mlperf_tables.drop_duplicates(rows)
    return kept, rejects + duplicates, files


def results_frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    frame = pl.DataFrame(rows, infer_schema_length=None)
    frame = frame.with_columns(
        pl.format("{}", pl.col("source")).alias("_source"),
        pl.format("record {}", pl.col("source_row")).alias("_location"),
    )
    return frame.sort("round_order", "division", "suite", "submitter", "platform", "used_model", "scenario")


@dg.asset(
    key=["benchmark", "mlperf_results"],
    group_name="benchmark",
    kinds={"duckdb", "polars"},
)
def mlperf_results(context: dg.AssetExecutionContext, warehouse: Warehouse, inputs: Inputs) -> dg.MaterializeResult:
    """One canonical row per published MLPerf Inference result (corrected unit, per-accelerator
    value, canonical accelerator and model, provenance), from round tables on disk or at MLCommons."""
    if inputs.mlperf:
        locations, hosts = list(inputs.mlperf), load_sources(inputs.sources_file)[1]
    else:
        locations, hosts = load_sources(inputs.sources_file)
    rows, rejects, files = read_round_tables(locations, hosts, log=context.log.info)
    if not rows:
        raise IngestError(f"no MLPerf results read from {locations}: every file was skipped or quarantined")
    with warehouse.connect() as conn:
        report = write_table(conn, "benchmark.mlperf_results", results_frame(rows), MlperfResults, rejects, files)
    context.log.info(f"benchmark.mlperf_results: {report.rows} rows, {report.quarantined} quarantined")
    rounds = sorted({r["round"] for r in rows})
    return dg.MaterializeResult(metadata={**report.metadata(), "rounds": ", ".join(rounds)})


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
    deps=[mlperf_results],
    group_name="benchmark",
    kinds={"duckdb", "sql"},
)
def mlperf_reference(context: dg.AssetExecutionContext, warehouse: Warehouse) -> dg.MaterializeResult:
    """Per accelerator and model, the MLPerf reference a config is compared with: the highest
    per-accelerator closed-division Server result in the newest round that has one, with the same
    system's Offline (an upper bound) and Interactive numbers; built by sql/benchmark/mlperf_reference.sql."""
    return build_table_from_sql(warehouse, "benchmark.mlperf_reference", MlperfReference)
