"""Observed evidence: our own serving measurements, read from the dump folders. The SQL-built observed
tables (load point measures, load points, delivered at SLO) come from `sql/observed/` through
`assets.sql_tables`."""

from collections.abc import Iterator

import dagster as dg

from assets.resources import Inputs, Warehouse
from assets.runs.collect import collect_all
from assets.runs.store import write_observed


@dg.multi_asset(
    specs=[
        dg.AssetSpec(
            ["observed", "runs"],
            group_name="observed",
            kinds={"duckdb", "polars"},
            description="One row per measured run of our stack (everything one tool wrote below one "
            "run.yaml), with its config (accelerator, model, precision, runtime, arrival).",
        ),
        dg.AssetSpec(
            ["observed", "measurements"],
            group_name="observed",
            kinds={"duckdb", "polars"},
            description="One row per run x load level x repeat as the tool reported it: offered and "
            "achieved rate, counts, tokens/s, and the tool's percentiles where its "
            "definition is ours (ms); from the dump files, recognised by content.",
        ),
        dg.AssetSpec(
            ["observed", "tool_metrics"],
            group_name="observed",
            kinds={"duckdb", "polars"},
            description="Every aggregate each tool reported (e.g. GuideLLM's TTFT-inclusive "
            "time_per_output_token_ms), under the tool's own name and definition.",
        ),
        dg.AssetSpec(
            ["observed", "request_sources"],
            group_name="observed",
            kinds={"duckdb"},
            description="Where each repeat's per-request records come from: the file, its checksum, "
            "whether observed.requests reads it in place or from the warehouse, rows kept "
            "and quarantined.",
        ),
        dg.AssetSpec(
            ["observed", "stored_requests"],
            group_name="observed",
            kinds={"duckdb"},
            description="Per-request records parsed from JSON dumps (and files not on disk), kept in "
            "the warehouse; part of observed.requests.",
        ),
        dg.AssetSpec(
            ["observed", "request_stats"],
            group_name="observed",
            kinds={"duckdb", "sql"},
            description="Per run x load level x repeat, from one DuckDB pass over the per-request "
            "records: counts, measured window, tokens, inter-arrival CV, the repeat's own "
            "percentiles; built by sql/observed/request_pass/request_stats.sql.",
        ),
        dg.AssetSpec(
            ["observed", "request_percentiles"],
            group_name="observed",
            kinds={"duckdb", "sql"},
            description="Per run x load level x measure: percentiles of the per-request records pooled "
            "over repeats, with a distribution-free order-statistic 95% interval; built by "
            "sql/observed/request_pass/request_percentiles.sql.",
        ),
        dg.AssetSpec(
            ["observed", "requests"],
            group_name="observed",
            kinds={"duckdb"},
            description="Per-request records where the dump has them (a view: the per-request files "
            "read in place by DuckDB, and observed.stored_requests): phase, status, start "
            "offset, tokens, TTFT, E2E and TPOT by our definition (ms).",
        ),
        dg.AssetSpec(
            ["observed", "request_texts"],
            group_name="observed",
            kinds={"duckdb", "polars"},
            description="Prompt and response texts of the requests, only when the run was started with "
            "--store-texts (BENCHBILL_STORE_TEXTS=1); empty otherwise, and no dump text "
            "reaches any other table.",
        ),
    ],
)
def observed_runs(
    context: dg.AssetExecutionContext, warehouse: Warehouse, inputs: Inputs
) -> Iterator[dg.MaterializeResult]:
    """Runs, measurements, tool aggregates and per-request records from the dump folders."""
    batch = collect_all(list(inputs.dumps), store_texts=inputs.store_texts, log=context.log.info)
    for run in batch.runs:
        flags = []
        if not run["accelerator_known"]:
            flags.append(f"accelerator {run['accelerator_raw']!r}")
        if not run["model_known"]:
            flags.append(f"model {run['model_raw']!r}")
        if flags:
            context.log.warning(f"run {run['run_label']}: unknown {', '.join(flags)} (kept raw, flagged)")
    with warehouse.connect() as conn:
        reports = write_observed(conn, batch)
    context.log.info(
        f"observed: {reports['observed.runs'].rows} runs, {reports['observed.measurements'].rows} "
        f"measurements, {sum(s['requests'] for s in batch.request_sources)} requests from "
        f"{reports['observed.request_sources'].rows} sources, "
        f"{sum(r.quarantined for r in reports.values())} quarantined"
    )
    for key in context.selected_asset_keys:
        yield dg.MaterializeResult(asset_key=key, metadata=reports[".".join(key.path)].metadata())
