"""Observed evidence: our own serving measurements, read from the dump folders. The SQL-built observed
tables (load point measures, load points, delivered at SLO) come from `sql/observed/` through
`assets.sql_tables`."""

from collections.abc import Iterator

import dagster as dg

from assets.resources import Inputs, Warehouse
from assets.runs.collect import collect_all
from assets.runs.store import write_observed
from assets.specs import table_spec


@dg.multi_asset(
    specs=[
        table_spec("observed.runs", {"duckdb", "polars"}),
        table_spec("observed.measurements", {"duckdb", "polars"}),
        table_spec("observed.tool_metrics", {"duckdb", "polars"}),
        table_spec("observed.request_sources", {"duckdb"}),
        table_spec("observed.stored_requests", {"duckdb"}),
        table_spec("observed.request_stats", {"duckdb", "sql"}),
        table_spec("observed.request_percentiles", {"duckdb", "sql"}),
        table_spec("observed.requests", {"duckdb"}),
        table_spec("observed.request_texts", {"duckdb", "polars"}),
    ],
)
def observed_runs(
    context: dg.AssetExecutionContext, warehouse: Warehouse, inputs: Inputs
) -> Iterator[dg.MaterializeResult]:
    """Runs, measurements, tool aggregates and per-request records from the dump folders."""
    batch = collect_all(
        list(inputs.dumps),
        store_texts=inputs.store_texts,
        log=context.log.info,
        links_into=inputs.allow_links_into,
        records_dir=warehouse.layout.records_dir,
    )
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
    with warehouse.connect() as conn:
        reports = write_observed(conn, batch, warehouse.layout.records_dir)
    context.log.info(
        f"observed: {reports['observed.runs'].rows} runs, {reports['observed.measurements'].rows} "
        f"measurements, {sum(s['requests'] for s in batch.request_sources)} requests from "
        f"{reports['observed.request_sources'].rows} sources, "
        f"{sum(r.quarantined for r in reports.values())} quarantined"
    )
    for key in context.selected_asset_keys:
        yield dg.MaterializeResult(asset_key=key, metadata=reports[".".join(key.path)].metadata())
