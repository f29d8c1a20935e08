"""What the dumps folders yield, ready for the observed tables."""

from __future__ import annotations

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
