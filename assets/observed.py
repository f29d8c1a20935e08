"""Observed evidence: our own serving measurements, read from the dump folders run partition by run partition
(one step per partition, each storing its results in the warehouse, `assets.runs.partition_store`), then
assembled into the observed tables by one step. The SQL-built observed tables (load point measures, load points,
delivered at SLO) come from `sql/observed/` through `assets.sql_tables`."""

from collections.abc import Iterator
from typing import Any

import dagster as dg

from assets.partitions import DUMP_RUN_PARTITIONS, dump_runs
from assets.resources import Inputs, RunStore, Warehouse
from assets.runs.batch import merge_batches
from assets.runs.partition import RunPartition, plan_partitions
from assets.runs.quality import write_quality
from assets.runs.store import write_observed
from assets.specs import OWNERS, PYTHON_CODE_VERSION, table_metadata, table_spec

RUN_PARTITIONS_KEY = dg.AssetKey(["observed", "run_partitions"])
RUN_PARTITION_KEY = dg.AssetKey(["observed", "run_partition"])
NO_PARTITION = "none"  # the one mapping key planned when the dump folders hold no file: the index is still written

run_partition = dg.AssetSpec(
    RUN_PARTITION_KEY,
    group_name="observed",
    kinds={"parquet"},
    partitions_def=dump_runs,
    owners=OWNERS,
    code_version=PYTHON_CODE_VERSION,
    description="One run partition's stored results (a run.yaml folder's runs, read from its files), reported by "
    "the step that read or reused them.",
)


@dg.op(out=dg.DynamicOut())
def plan_run_partitions(context: dg.OpExecutionContext, inputs: Inputs) -> Iterator[dg.DynamicOutput[Any]]:
    """The run partitions of the dump folders (only folders walked, nothing opened), each registered as a
    partition of observed/run_partition and handed to its own step."""
    partitions = plan_partitions(list(inputs.dumps), inputs.allow_links_into)
    known = set(context.instance.get_dynamic_partitions(DUMP_RUN_PARTITIONS))
    new = [p.key for p in partitions if p.key not in known]
    if new:
        context.instance.add_dynamic_partitions(DUMP_RUN_PARTITIONS, new)
    context.log.info(f"observed: {len(partitions)} run partitions in {len(inputs.dumps)} dump folders")
    if not partitions:
        yield dg.DynamicOutput(None, mapping_key=NO_PARTITION)
    for index, partition in enumerate(partitions):
        yield dg.DynamicOutput((index, partition), mapping_key=partition.key)


@dg.op
def scan_run_partition(
    context: dg.OpExecutionContext, inputs: Inputs, run_store: RunStore, planned: tuple[int, RunPartition] | None
) -> tuple[int, dict[str, Any]] | None:
    """One run partition: its stored results reused when its files are unchanged, else its files read and the
    results stored."""
    if planned is None:
        return None
    index, partition = planned
    result = run_store.store.scan_or_reuse(partition, inputs.store_texts, log=context.log.info)
    what = "read" if result.scanned else "unchanged, stored results reused"
    context.log.info(f"{partition.label}: {what} ({result.files_hashed} of {result.files} files hashed)")
    context.log_event(dg.AssetMaterialization(RUN_PARTITION_KEY, partition=partition.key, metadata=result.as_dict()))
    return index, result.as_dict()


@dg.op
def index_run_partitions(
    context: dg.OpExecutionContext, run_store: RunStore, results: list[tuple[int, dict[str, Any]] | None]
) -> dg.Output[list[dict[str, Any]]]:
    """The partitions of this plan, in order, recorded in the warehouse (what observed_runs assembles)."""
    from assets.runs.stored_partition import PartitionResult

    ordered = [PartitionResult(**found) for _index, found in sorted(r for r in results if r is not None)]
    run_store.store.write_index(ordered)
    return dg.Output(
        [r.as_dict() for r in ordered],
        metadata={
            "partitions": len(ordered),
            "partitions_read": sum(r.scanned for r in ordered),
            "partitions_reused": sum(not r.scanned for r in ordered),
            "files": sum(r.files for r in ordered),
            "files_hashed": sum(r.files_hashed for r in ordered),
        },
    )


@dg.graph_asset(
    key=RUN_PARTITIONS_KEY, group_name="observed", kinds={"parquet"}, owners=OWNERS, code_version=PYTHON_CODE_VERSION
)
def run_partitions() -> Any:
    """The dump folders' run partitions, each read (or its stored results reused) in its own step, and their
    index: one step per partition, so an executor that runs steps in parallel processes runs them in parallel."""
    return index_run_partitions(plan_run_partitions().map(scan_run_partition).collect())


@dg.multi_asset(
    specs=[
        table_spec("observed.runs", {"duckdb", "polars"}, deps=[RUN_PARTITIONS_KEY]),
        table_spec("observed.measurements", {"duckdb", "polars"}, deps=[RUN_PARTITIONS_KEY]),
        table_spec("observed.tool_metrics", {"duckdb", "polars"}, deps=[RUN_PARTITIONS_KEY]),
        table_spec("observed.request_sources", {"duckdb"}, deps=[RUN_PARTITIONS_KEY]),
        table_spec("observed.stored_requests", {"duckdb"}, deps=[RUN_PARTITIONS_KEY]),
        table_spec("observed.request_stats", {"duckdb", "sql"}, deps=[RUN_PARTITIONS_KEY]),
        table_spec("observed.request_percentiles", {"duckdb", "sql"}, deps=[RUN_PARTITIONS_KEY]),
        table_spec("observed.requests", {"duckdb"}, deps=[RUN_PARTITIONS_KEY]),
        table_spec("observed.request_texts", {"duckdb", "polars"}, deps=[RUN_PARTITIONS_KEY]),
        table_spec("observed.quality", {"duckdb", "json"}, deps=[RUN_PARTITIONS_KEY]),
    ],
    # One pass writes every table (each child table is kept against its parent just written); selecting some
    # materialises those, and the others rewritten with them are recorded as materialised by the same step.
    can_subset=True,
)
def observed_runs(
    context: dg.AssetExecutionContext, warehouse: Warehouse, inputs: Inputs, run_store: RunStore
) -> Iterator[dg.MaterializeResult]:
    """Runs, measurements, tool aggregates and per-request records from the dump folders, and the task-quality
    evaluations found beside them (observed.quality), assembled from the stored results of their run partitions."""
    batch = merge_batches(run_store.store.load_all(inputs.store_texts), inputs.store_texts)
    for run in batch.runs:
        flags = []
        if not run["accelerator_known"]:
            flags.append(f"accelerator {run['accelerator_raw']!r}")
        if not run["model_known"]:
            flags.append(f"model {run['model_raw']!r}")
        if not run["precision_known"]:
            flags.append(f"precision {run['precision_raw']!r}")
        if flags:
            context.log.warning(f"run {run['run_label']}: unknown {', '.join(flags)} (kept raw, flagged)")
        if run["precision_note"] and run["precision_known"]:
            context.log.warning(f"run {run['run_label']}: {run['precision_note']}")
    for note in dict.fromkeys(row["model_note"] for row in batch.quality if not row["model_known"]):
        context.log.warning(f"quality evidence: {note}")  # once per model no alias table knows
    with warehouse.connect() as conn:
        reports = write_observed(conn, batch)  # each partition's records are owned already
        reports["observed.quality"] = write_quality(conn, batch.quality, batch.quality_rejects, batch.quality_files)
    context.log.info(
        f"observed: {reports['observed.runs'].rows} runs, {reports['observed.measurements'].rows} "
        f"measurements, {sum(s['requests'] for s in batch.request_sources)} requests from "
        f"{reports['observed.request_sources'].rows} sources, "
        f"{sum(r.quarantined for r in reports.values())} quarantined"
    )
    for key in context.selected_asset_keys:
        yield dg.MaterializeResult(asset_key=key, metadata=table_metadata(reports[".".join(key.path)]))
    for table, report in reports.items():
        if dg.AssetKey(table.split(".")) not in context.selected_asset_keys:
            context.log_event(
                dg.AssetMaterialization(
                    asset_key=table.split("."),
                    description="rewritten with the selected observed tables (one pass writes them all)",
                    metadata=table_metadata(report),
                )
            )
