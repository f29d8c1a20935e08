"""Observed evidence: our own serving measurements, and the SLO-feasible rate they show."""


import dagster as dg
import duckdb
import polars as pl

from assets import dumps, request_stats
from assets.sqlfiles import build_table_from_sql, sql_check
from assets.warehouse import Reject, WriteReport, column_list, create_view, frame_from_rows, qualified, write_table
from pipelines.resources import Inputs, Warehouse
from schemas.delivered_at_slo import DeliveredAtSlo
from schemas.load_point_measures import LoadPointMeasures
from schemas.load_points import LoadPoints
from schemas.measurements import Measurements
from schemas.request_percentiles import RequestPercentiles
from schemas.request_sources import RequestSources
from schemas.request_stats import RequestStats
from schemas.request_texts import RequestTexts
from schemas.requests import Requests
from schemas.runs import Runs
from schemas.stored_requests import StoredRequests
from schemas.tool_metrics import ToolMetrics

DUMP_TABLES = (["observed", "runs"], ["observed", "measurements"], ["observed", "tool_metrics"],
               ["observed", "request_sources"], ["observed", "stored_requests"], ["observed", "request_stats"],
               ["observed", "request_percentiles"], ["observed", "requests"], ["observed", "request_texts"])
REPEAT_KEY = ["run_id", "load_index", "repeat_index"]


def keep_children(conn: duckdb.DuckDBPyConnection, frame: pl.DataFrame | None, parent: str, keys: list[str],
                  what: str) -> tuple[pl.DataFrame | None, list[Reject]]:
    """The rows of `frame` whose parent row (same `keys`) was kept in table `parent`; the others are
    quarantined, one reject per parent: numbers of a quarantined repeat must not reach a percentile."""
    if frame is None or frame.is_empty():
        return frame, []
    kept = conn.execute(f"SELECT DISTINCT {column_list(keys)} FROM {qualified(parent)}").pl()
    orphans = frame.join(kept, on=keys, how="anti")
    if orphans.is_empty():
        return frame, []
    rejects = [Reject(str(row.get("source") or parent), ", ".join(f"{k} {row[k]}" for k in keys),
                      f"{what}: its row in {parent} was quarantined, so these are not used either", None)
               for row in orphans.select(*keys, *(["source"] if "source" in orphans.columns else []))
               .unique(keys, maintain_order=True).iter_rows(named=True)]
    return frame.join(kept, on=keys, how="semi"), rejects


@dg.multi_asset(
    specs=[
        dg.AssetSpec(["observed", "runs"], group_name="observed", kinds={"duckdb", "polars"},
                     description="One row per measured run of our stack (everything one tool wrote below one "
                                 "run.yaml), with its config (accelerator, model, precision, runtime, arrival)."),
        dg.AssetSpec(["observed", "measurements"], group_name="observed", kinds={"duckdb", "polars"},
                     description="One row per run x load level x repeat as the tool reported it: offered and "
                                 "achieved rate, counts, tokens/s, and the tool's percentiles where its "
                                 "definition is ours (ms); from the dump files, recognised by content."),
        dg.AssetSpec(["observed", "tool_metrics"], group_name="observed", kinds={"duckdb", "polars"},
                     description="Every aggregate each tool reported (e.g. GuideLLM's TTFT-inclusive "
                                 "time_per_output_token_ms), under the tool's own name and definition."),
        dg.AssetSpec(["observed", "request_sources"], group_name="observed", kinds={"duckdb"},
                     description="Where each repeat's per-request records come from: the file, its checksum, "
                                 "whether observed.requests reads it in place or from the warehouse, rows kept "
                                 "and quarantined."),
        dg.AssetSpec(["observed", "stored_requests"], group_name="observed", kinds={"duckdb"},
                     description="Per-request records parsed from JSON dumps (and files not on disk), kept in "
                                 "the warehouse; part of observed.requests."),
        dg.AssetSpec(["observed", "request_stats"], group_name="observed", kinds={"duckdb", "sql"},
                     description="Per run x load level x repeat, from one DuckDB pass over the per-request "
                                 "records: counts, measured window, tokens, inter-arrival CV, the repeat's own "
                                 "percentiles; built by sql/observed/request_stats.sql."),
        dg.AssetSpec(["observed", "request_percentiles"], group_name="observed", kinds={"duckdb", "sql"},
                     description="Per run x load level x measure: percentiles of the per-request records pooled "
                                 "over repeats, with a distribution-free order-statistic 95% interval; built by "
                                 "sql/observed/request_percentiles.sql."),
        dg.AssetSpec(["observed", "requests"], group_name="observed", kinds={"duckdb"},
                     description="Per-request records where the dump has them (a view: the per-request files "
                                 "read in place by DuckDB, and observed.stored_requests): phase, status, start "
                                 "offset, tokens, TTFT, E2E and TPOT by our definition (ms)."),
        dg.AssetSpec(["observed", "request_texts"], group_name="observed", kinds={"duckdb", "polars"},
                     description="Prompt and response texts of the requests, only when the run was started with "
                                 "--store-texts (BENCHBILL_STORE_TEXTS=1); empty otherwise, and no dump text "
                                 "reaches any other table."),
    ],
)
def observed_runs(context: dg.AssetExecutionContext, warehouse: Warehouse, inputs: Inputs):
    """Runs, measurements, tool aggregates and per-request records from the dump folders."""
    batch = dumps.collect_all(list(inputs.dumps), store_texts=inputs.store_texts, log=context.log.info)
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
    runs, measurements, sources = reports[0], reports[1], reports[3]
    context.log.info(f"observed: {runs.rows} runs, {measurements.rows} measurements, "
                     f"{sum(s['requests'] for s in batch.request_sources)} requests from {sources.rows} sources, "
                     f"{sum(r.quarantined for r in reports)} quarantined")
    for key, report in zip(DUMP_TABLES, reports):
        yield dg.MaterializeResult(asset_key=key, metadata=report.metadata())


def write_observed(conn: duckdb.DuckDBPyConnection, batch: dumps.ObservedBatch) -> list[WriteReport]:
    """The dump tables (DUMP_TABLES, in that order) from one batch, and the view observed.requests: children of
    a quarantined run or repeat are quarantined with it (its request sources, and so its records in the view;
    its stored records, request statistics and texts; the pooled percentiles of its load level)."""
    def frame(name: str, model) -> pl.DataFrame:
        found = batch.frame(name)
        return found if found is not None else frame_from_rows([], model)

    runs = write_table(conn, "observed.runs", frame_from_rows(batch.runs, Runs), Runs,
                       [r for r in batch.rejects if r.location.startswith("run ")], [])
    measurements, orphans = keep_children(conn, frame_from_rows(batch.measurements, Measurements),
                                          "observed.runs", ["run_id"], "measurements of a run")
    reports = [runs, write_table(conn, "observed.measurements", measurements, Measurements,
                                 [r for r in batch.rejects if not r.location.startswith("run ")] + orphans,
                                 batch.files)]
    metrics, _ = keep_children(conn, frame_from_rows(batch.tool_metrics, ToolMetrics), "observed.measurements",
                               REPEAT_KEY, "tool aggregates of a repeat")
    reports.append(write_table(conn, "observed.tool_metrics", metrics, ToolMetrics))
    sources, orphans = keep_children(conn, frame_from_rows(batch.request_sources, RequestSources),
                                     "observed.measurements", REPEAT_KEY, "requests of a repeat")
    reports.append(write_table(conn, "observed.request_sources", sources, RequestSources, orphans))
    for table, model, what in (("stored_requests", StoredRequests, "stored requests of a repeat"),
                               ("request_stats", RequestStats, "request statistics of a repeat")):
        kept, _ = keep_children(conn, frame(table, model), "observed.measurements", REPEAT_KEY, what)
        reports.append(write_table(conn, f"observed.{table}", kept, model))
    # A level's percentiles are pooled over its repeats: one quarantined repeat withholds them all.
    percentiles, withheld = frame("request_percentiles", RequestPercentiles), []
    pooled_over_orphans = frame_from_rows(batch.request_sources, RequestSources).join(
        sources, on=REPEAT_KEY, how="anti").unique(["run_id", "load_index"], maintain_order=True)
    if not pooled_over_orphans.is_empty():
        withheld += [Reject(source, f"run_id {run_id}, load_index {load_index}", "percentiles pooled over a load "
                            "level's repeats: one of its repeats was quarantined, so they are not used", None)
                     for run_id, load_index, source in pooled_over_orphans.select(
                         "run_id", "load_index", "source").iter_rows()]
        percentiles = percentiles.join(pooled_over_orphans.select("run_id", "load_index"),
                                       on=["run_id", "load_index"], how="anti")
    reports.append(write_table(conn, "observed.request_percentiles", percentiles, RequestPercentiles, withheld))
    create_view(conn, "observed.requests", request_stats.view_parts(batch.scans), Requests, batch.request_rejects,
                request_stats.sampled_parts(batch.scans))
    reports.append(WriteReport("observed.requests", int(sources.get_column("requests").sum() or 0),
                               len(batch.request_rejects)))
    texts, _ = keep_children(conn, frame("request_texts", RequestTexts), "observed.measurements", REPEAT_KEY,
                             "texts of a repeat")
    reports.append(write_table(conn, "observed.request_texts", texts, RequestTexts))
    return reports


@dg.asset(
    key=["observed", "load_point_measures"],
    deps=[["observed", "measurements"], ["observed", "request_percentiles"], ["observed", "request_stats"]],
    group_name="observed",
    kinds={"duckdb", "sql"},
)
def load_point_measures(warehouse: Warehouse) -> dg.MaterializeResult:
    """Per run x load level x measure: the estimate (recomputed from per-request records, else the tool's
    aggregate where its definition is ours) and a 95% interval (order statistics of the records, widened to
    the range of repeats); built by sql/observed/load_point_measures.sql."""
    return build_table_from_sql(warehouse, "observed.load_point_measures", LoadPointMeasures)


@dg.asset(
    key=["observed", "load_points"],
    deps=[["observed", "measurements"], ["observed", "request_stats"], ["observed", "load_point_measures"]],
    group_name="observed",
    kinds={"duckdb", "sql"},
)
def load_points(warehouse: Warehouse) -> dg.MaterializeResult:
    """One row per run x load level over its repeats: offered and achieved rate, p50-p99 TTFT, TPOT, ITL,
    E2E in ms, tokens/s, errors and excluded requests; built by sql/observed/load_points.sql."""
    return build_table_from_sql(warehouse, "observed.load_points", LoadPoints)


load_points_achieved_vs_offered = sql_check(
    ["observed", "load_points"], "achieved_not_above_offered",
    "Achieved request rate stays within 10% above the offered rate (more would mean a unit or parsing error).",
    severity=dg.AssetCheckSeverity.WARN)


@dg.asset(
    key=["observed", "delivered_at_slo"],
    deps=[["observed", "runs"], ["observed", "load_points"], ["observed", "load_point_measures"],
          ["requirement", "profiles"], ["requirement", "slo_bounds"]],
    group_name="observed",
    kinds={"duckdb", "sql"},
)
def delivered_at_slo(warehouse: Warehouse) -> dg.MaterializeResult:
    """Per run x profile (same model), the SLO-feasible request-rate band: low = the highest achieved
    rate whose percentile intervals surely meet every bound, high = the crossing interpolated towards the
    first point failing even optimistically; built by sql/observed/delivered_at_slo.sql."""
    return build_table_from_sql(warehouse, "observed.delivered_at_slo", DeliveredAtSlo)


delivered_band_ordered = sql_check(
    ["observed", "delivered_at_slo"], "band_ordered",
    "low <= high, and high never above the first failing load point's achieved rate.", blocking=True)
