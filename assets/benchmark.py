"""Benchmark evidence: MLPerf Inference results per round (with their run conditions and where sources
disagree) and dated accelerator-hour prices. The SQL-built benchmark tables (the per-config MLPerf reference,
the round-over-round view) come from `sql/benchmark/` through `assets.sql_tables`."""

from collections.abc import Iterator

import dagster as dg

from assets.config.prices import prices_frame, read_prices
from assets.config.sources import load_sources
from assets.mlperf_rounds.accuracy import write_accuracy_targets
from assets.mlperf_rounds.ingest import read_locations
from assets.mlperf_rounds.rounds import round_locations, write_round
from assets.partitions import mlperf_rounds
from assets.resources import Inputs, Warehouse
from assets.specs import OWNERS, PYTHON_CODE_VERSION, definition_metadata, selected_tables, table_metadata, table_spec
from assets.warehouse.write import write_table
from schemas.benchmark.accelerator_prices import AcceleratorPrices

FLAGGED_SHOWN = 5  # implausible results named one by one in the run's log; the rest are counted


class MlperfRoundConfig(dg.Config):
    """Where a round's results are (files, folders, URLs); empty: the run's inputs or the sources file."""

    locations: list[str] = []


@dg.multi_asset(
    name="benchmark__mlperf_results",
    specs=[
        table_spec("benchmark.mlperf_results", {"duckdb", "polars"}),
        table_spec("benchmark.mlperf_run_conditions", {"duckdb", "polars"}),
        table_spec("benchmark.mlperf_source_disagreements", {"duckdb", "polars"}),
    ],
    partitions_def=mlperf_rounds,
    can_subset=True,  # a run that selects one of the round's tables writes only that table
)
def mlperf_round(
    context: dg.AssetExecutionContext, config: MlperfRoundConfig, warehouse: Warehouse, inputs: Inputs
) -> Iterator[dg.MaterializeResult]:
    """One MLPerf round: every source that holds it, merged to one row per result; replaces the
    round's rows and records the ingestion as a version of the round."""
    round_name = context.partition_key
    sources = load_sources(inputs.sources_file)
    locations = round_locations(round_name, config.locations, inputs.mlperf, sources)
    batch = read_locations(locations, sources.allowed_hosts, round_name=round_name, log=context.log.info)
    tables = selected_tables(context)
    with warehouse.connect() as conn:
        written = write_round(conn, round_name, batch, locations, tables)
    implausible = [r for r in batch.rows if not r["plausible"]]
    unofficial = [r for r in batch.rows if not r["official"]]
    if unofficial:
        context.log.warning(
            f"round {round_name}: {len(unofficial)} of {len(batch.rows)} results are not official (kept, never a "
            f"reference nor in round-over-round): {unofficial[0]['unofficial_reason']}"
        )
    for row in implausible[:FLAGGED_SHOWN]:
        context.log.warning(
            f"round {round_name}: {row['result_key']} is implausible (kept, never a reference nor in "
            f"round-over-round): {row['implausible_reason']}"
        )
    if len(implausible) > FLAGGED_SHOWN:
        context.log.warning(f"round {round_name}: {len(implausible) - FLAGGED_SHOWN} more implausible results")
    reports = written.reports
    said = {
        "benchmark.mlperf_results": lambda r: f"{r.rows} results, {r.quarantined} quarantined",
        "benchmark.mlperf_run_conditions": lambda r: f"{r.rows} with run conditions",
        "benchmark.mlperf_source_disagreements": lambda r: f"{r.rows} disagreements",
    }
    context.log.info(
        f"round {round_name}: "
        + ", ".join(said[table](report) for table, report in reports.items())
        + (f"; version {written.versions[-1]['version']} ({written.change})" if written.versions else "")
    )
    for table in tables:
        metadata = table_metadata(reports[table])
        if table == "benchmark.mlperf_results":
            metadata |= {
                "round": round_name,
                "locations": dg.MetadataValue.json(locations),
                "sources_sha256": written.versions[-1]["sources_sha256"],
                "change": written.change,
                "implausible_results": len(implausible),
                "unofficial_results": len(unofficial),
            }
        yield dg.MaterializeResult(asset_key=table.split("."), metadata=metadata)


@dg.asset(
    key=["benchmark", "accelerator_prices"],
    group_name="benchmark",
    owners=OWNERS,
    code_version=PYTHON_CODE_VERSION,
    metadata=definition_metadata("benchmark.accelerator_prices"),
    kinds={"duckdb", "csv"},
)
def accelerator_prices(context: dg.AssetExecutionContext, warehouse: Warehouse, inputs: Inputs) -> dg.MaterializeResult:
    """Dated accelerator-hour prices by price class and provider, each with its source, from the
    prices CSV (the bundled default lists real published prices)."""
    rows, rejects, file = read_prices(inputs.prices)
    with warehouse.connect() as conn:
        report = write_table(
            conn, "benchmark.accelerator_prices", prices_frame(rows), AcceleratorPrices, rejects, [file]
        )
    unknown = sorted({r["accelerator_raw"] for r in rows if not r["accelerator_known"]})
    if unknown:
        context.log.warning(f"prices for accelerators with no canonical id (kept, flagged): {unknown}")
    return dg.MaterializeResult(metadata=table_metadata(report))


@dg.multi_asset(specs=[table_spec("benchmark.mlperf_accuracy_targets", {"duckdb", "csv"})])
def mlperf_accuracy_targets(warehouse: Warehouse) -> dg.MaterializeResult:
    """MLPerf's accuracy bounds per benchmark and metric (from its submission checker), as a table."""
    with warehouse.connect() as conn:
        report = write_accuracy_targets(conn)
    return dg.MaterializeResult(asset_key=["benchmark", "mlperf_accuracy_targets"], metadata=table_metadata(report))
