"""The observed tables from one batch: children of a quarantined run or repeat are quarantined with it."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pandera.polars as pa
import polars as pl

from assets.core.records import Reject
from assets.core.sqltext import column_list, qualified, sql_path_literal, sql_string_literal
from assets.request_records.records_files import owned_records_name, reusable_records, write_records
from assets.request_records.view import sampled_parts, view_parts
from assets.runs.batch import ObservedBatch
from assets.warehouse import catalog
from assets.warehouse.validate import frame_from_rows
from assets.warehouse.views import create_view
from assets.warehouse.write import WriteReport, write_table
from schemas.observed.measurements import Measurements
from schemas.observed.request_percentiles import RequestPercentiles
from schemas.observed.request_sources import RequestSources
from schemas.observed.request_stats import RequestStats
from schemas.observed.request_texts import RequestTexts
from schemas.observed.requests import Requests
from schemas.observed.runs import Runs
from schemas.observed.stored_requests import StoredRequests
from schemas.observed.tool_metrics import ToolMetrics

REPEAT_KEY = ["run_id", "load_index", "repeat_index"]


def keep_children(
    conn: duckdb.DuckDBPyConnection, frame: pl.DataFrame, parent: str, keys: list[str], what: str
) -> tuple[pl.DataFrame, list[Reject]]:
    """The rows of `frame` whose parent row (same `keys`) was kept in table `parent`; the others are
    quarantined, one reject per parent: numbers of a quarantined repeat must not reach a percentile."""
    if frame.is_empty():
        return frame, []
    kept = conn.execute(f"SELECT DISTINCT {column_list(keys)} FROM {qualified(parent)}").pl()
    orphans = frame.join(kept, on=keys, how="anti")
    if orphans.is_empty():
        return frame, []
    rejects = [
        Reject(
            str(row.get("source") or parent),
            ", ".join(f"{k} {row[k]}" for k in keys),
            f"{what}: its row in {parent} was quarantined, so these are not used either",
            None,
        )
        for row in orphans.select(*keys, *(["source"] if "source" in orphans.columns else []))
        .unique(keys, maintain_order=True)
        .iter_rows(named=True)
    ]
    return frame.join(kept, on=keys, how="semi"), rejects


def write_observed(
    conn: duckdb.DuckDBPyConnection, batch: ObservedBatch, records_dir: Path | None = None
) -> dict[str, WriteReport]:
    """The observed tables of one batch and the view observed.requests, each table's report by its name:
    children of a quarantined run or repeat are quarantined with it (its request sources, and so its records
    in the view; its stored records, request statistics and texts; the pooled percentiles of its load level).
    With `records_dir` (the warehouse's), the per-request files are copied there first (`own_records`) and the
    view reads those copies, never the dump folders."""
    if records_dir is not None:
        own_records(conn, batch, records_dir)

    def frame(name: str, model: type[pa.DataFrameModel]) -> pl.DataFrame:
        found = batch.frame(name)
        return found if found is not None else frame_from_rows([], model)

    runs = write_table(
        conn,
        "observed.runs",
        frame_from_rows(batch.runs, Runs),
        Runs,
        [r for r in batch.rejects if r.location.startswith("run ")],
        [],
    )
    measurements, orphans = keep_children(
        conn, frame_from_rows(batch.measurements, Measurements), "observed.runs", ["run_id"], "measurements of a run"
    )
    reports = [
        runs,
        write_table(
            conn,
            "observed.measurements",
            measurements,
            Measurements,
            [r for r in batch.rejects if not r.location.startswith("run ")] + orphans,
            batch.files,
        ),
    ]
    metrics, _ = keep_children(
        conn,
        frame_from_rows(batch.tool_metrics, ToolMetrics),
        "observed.measurements",
        REPEAT_KEY,
        "tool aggregates of a repeat",
    )
    reports.append(write_table(conn, "observed.tool_metrics", metrics, ToolMetrics))
    sources, orphans = keep_children(
        conn,
        frame_from_rows(batch.request_sources, RequestSources),
        "observed.measurements",
        REPEAT_KEY,
        "requests of a repeat",
    )
    reports.append(write_table(conn, "observed.request_sources", sources, RequestSources, orphans))
    for table, model, what in (
        ("stored_requests", StoredRequests, "stored requests of a repeat"),
        ("request_stats", RequestStats, "request statistics of a repeat"),
    ):
        kept, _ = keep_children(conn, frame(table, model), "observed.measurements", REPEAT_KEY, what)
        reports.append(write_table(conn, f"observed.{table}", kept, model))
    percentiles, withheld = withhold_pooled(
        frame("request_percentiles", RequestPercentiles),
        frame_from_rows(batch.request_sources, RequestSources),
        sources,
    )
    reports.append(write_table(conn, "observed.request_percentiles", percentiles, RequestPercentiles, withheld))
    create_view(
        conn, "observed.requests", view_parts(batch.scans), Requests, batch.request_rejects, sampled_parts(batch.scans)
    )
    requests = int(sources.get_column("requests").sum() or 0)
    reports.append(
        WriteReport(
            "observed.requests",
            requests,
            len(batch.request_rejects),
            table_rows=requests,
            preview=catalog.preview_markdown(conn, "observed.requests"),
            sources=catalog.source_list([str(s["source"]) for s in batch.request_sources]),
        )
    )
    texts, _ = keep_children(
        conn, frame("request_texts", RequestTexts), "observed.measurements", REPEAT_KEY, "texts of a repeat"
    )
    reports.append(write_table(conn, "observed.request_texts", texts, RequestTexts))
    return {report.table: report for report in reports}


def owned_select(copy: Path | str) -> str:
    """The SELECT the view observed.requests reads an owned records file with: a path, or the URL of a run store
    on object storage (read through its registered filesystem, `assets.warehouse.objectstore`)."""
    where = sql_string_literal(copy) if isinstance(copy, str) else sql_path_literal(copy.resolve())
    return f"SELECT * FROM read_parquet({where})"


def own_records(conn: duckdb.DuckDBPyConnection, batch: ObservedBatch, records_dir: Path) -> list[str]:
    """Each file observed.requests would read in place, copied into `records_dir` as the pass checked it (one
    Parquet file named by the file's content and the code that checks it: written once, reused while both are
    unchanged, or written again when damaged; written to a temporary name and renamed, so a kill leaves no half file
    under the real name), and the batch pointed at the copies. What is published then never changes with the dump
    folders. Returns the names of the copies the batch reads."""
    if not batch.scans:
        return []
    records_dir.mkdir(parents=True, exist_ok=True)
    sha_of = {s["source_key"]: s["source_sha256"] for s in batch.request_sources}
    owned: list[tuple[str, str]] = []
    stored_as: dict[str, str] = {}
    for key, select in batch.scans:
        name = owned_records_name(sha_of.get(key), key)
        target = records_dir / name
        if not reusable_records(target):  # missing, or damaged and removed: written again from its source
            write_records(conn, select, target)
        owned.append((key, owned_select(target)))
        stored_as[key] = f"stored in the warehouse: records/{name}"
    batch.scans = owned
    for source in batch.request_sources:
        if source["source_key"] in stored_as:
            source["reader"] = stored_as[source["source_key"]]
    return sorted({value.rsplit("/", 1)[1] for value in stored_as.values()})


def withhold_pooled(
    percentiles: pl.DataFrame, all_sources: pl.DataFrame, kept_sources: pl.DataFrame
) -> tuple[pl.DataFrame, list[Reject]]:
    """A level's percentiles are pooled over its repeats: one quarantined repeat (a request source of `all_sources`
    not in `kept_sources`) withholds them all, with a reject per level saying why."""
    pooled_over_orphans = all_sources.join(kept_sources, on=REPEAT_KEY, how="anti").unique(
        ["run_id", "load_index"], maintain_order=True
    )
    if pooled_over_orphans.is_empty():
        return percentiles, []
    withheld = [
        Reject(
            source,
            f"run_id {run_id}, load_index {load_index}",
            "percentiles pooled over a load level's repeats: one of its repeats was quarantined, so they are not used",
            None,
        )
        for run_id, load_index, source in pooled_over_orphans.select("run_id", "load_index", "source").iter_rows()
    ]
    kept = percentiles.join(pooled_over_orphans.select("run_id", "load_index"), on=["run_id", "load_index"], how="anti")
    return kept, withheld
