"""What the dumps folders yield, ready for the observed tables."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from assets.core.records import Reject, SourceFile
from assets.warehouse.rows import frame_schema
from schemas.observed.request_sources import RequestSources

# observed.request_sources rows as a frame (also the keys that place request groups in a sweep): its model's columns.
REQUEST_SOURCE_SCHEMA = frame_schema(RequestSources)


@dataclass
class ObservedBatch:
    """What the dumps folders yield: rows for observed.runs, observed.measurements,
    observed.tool_metrics and observed.request_sources; the request pass's observed.request_stats,
    observed.request_percentiles and the records to store (observed.stored_requests); the files
    read in place for the view observed.requests (`scans`: source key, checked SELECT); rejects and
    the file inventory; with `store_texts`, the prompt and response texts (observed.request_texts;
    otherwise none is kept). Each row is built against its table's model (assets.warehouse.rows.row_for)."""

    runs: list[dict[str, Any]] = field(default_factory=list)
    measurements: list[dict[str, Any]] = field(default_factory=list)
    tool_metrics: list[dict[str, Any]] = field(default_factory=list)
    request_sources: list[dict[str, Any]] = field(default_factory=list)
    request_stats: list[pl.DataFrame] = field(default_factory=list)
    request_percentiles: list[pl.DataFrame] = field(default_factory=list)
    stored_requests: list[pl.DataFrame] = field(default_factory=list)
    scans: list[tuple[str, str]] = field(default_factory=list)
    rejects: list[Reject] = field(default_factory=list)
    request_rejects: list[Reject] = field(default_factory=list)
    files: list[SourceFile] = field(default_factory=list)
    request_texts: list[pl.DataFrame] = field(default_factory=list)
    store_texts: bool = False  # keep prompt/response texts (observed.request_texts); off: never held
    # Task-quality evaluations found beside the dumps (assets.runs.quality): observed.quality rows, rejects, files.
    quality: list[dict[str, Any]] = field(default_factory=list)
    quality_rejects: list[Reject] = field(default_factory=list)
    quality_files: list[SourceFile] = field(default_factory=list)

    def frame(self, name: str) -> pl.DataFrame | None:
        """One of the request pass's tables, all roots together (None when no root had any)."""
        frames = getattr(self, name)
        return pl.concat(frames, how="vertical_relaxed") if frames else None


# A run.yaml's note in audit.source_files when it governs no recognised dump file.
IDLE_SIDECAR_NOTE = "governs no recognised dump file: no run is read from this folder"


def merge_batches(batches: list[ObservedBatch], store_texts: bool = False) -> ObservedBatch:
    """The batches of the partitions, in plan order, as one: a run label used twice is quarantined the second
    time; a run.yaml read by several partitions (the folders below it) is listed once, idle only when it
    governed no run in any of them."""
    total = ObservedBatch(store_texts=store_texts)
    labels: dict[str, str] = {}
    sidecar_notes: dict[str, list[str]] = defaultdict(list)
    said: set[tuple[str, str, str]] = set()
    for batch in batches:
        dropped = set()
        for run in batch.runs:
            if run["run_label"] in labels:
                dropped.add(run["run_id"])
                total.rejects.append(
                    Reject(
                        run["sidecar"],
                        f"run {run['run_label']}",
                        f"duplicate run label {run['run_label']!r}: already used by "
                        f"{labels[run['run_label']]}; set `label` in run.yaml",
                        run,
                    )
                )
                continue
            labels[run["run_label"]] = run["report_dir"]
            total.runs.append(run)
        kept = pl.col("run_id").is_in(list(dropped)).not_()
        total.measurements += [m for m in batch.measurements if m["run_id"] not in dropped]
        total.tool_metrics += [m for m in batch.tool_metrics if m["run_id"] not in dropped]
        total.request_sources += [s for s in batch.request_sources if s["run_id"] not in dropped]
        for name in ("request_stats", "request_percentiles", "stored_requests"):
            getattr(total, name).extend(frame.filter(kept) for frame in getattr(batch, name))
        dropped_keys = {s["source_key"] for s in batch.request_sources if s["run_id"] in dropped}
        total.scans += [(key, select) for key, select in batch.scans if key not in dropped_keys]
        total.request_texts += [frame.filter(kept) for frame in batch.request_texts]
        # a run.yaml above several partitions is read by each: what is wrong with it is said once
        total.rejects += [r for r in batch.rejects if (r.source, r.location, r.reason) not in said]
        said |= {(r.source, r.location, r.reason) for r in batch.rejects}
        total.quality += batch.quality
        total.quality_rejects += batch.quality_rejects
        total.quality_files += batch.quality_files
        total.request_rejects += batch.request_rejects
        for file in batch.files:
            if file.detected_format == "run.yaml sidecar":
                if file.source in sidecar_notes:
                    sidecar_notes[file.source].append(file.note)
                    continue
                sidecar_notes[file.source].append(file.note)
            total.files.append(file)
    total.files = [
        dataclasses.replace(f, note=next((n for n in sidecar_notes[f.source] if n != IDLE_SIDECAR_NOTE), f.note))
        if f.detected_format == "run.yaml sidecar"
        else f
        for f in total.files
    ]
    return total
