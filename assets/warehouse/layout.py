"""Where a warehouse keeps its files: the private build file, the published serving file, the report, the
Parquet exports and the writer lock, all in one folder."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from assets.inputs.files import WAREHOUSE_MARKER


@dataclass(frozen=True)
class WarehouseLayout:
    """The files of one warehouse folder."""

    dir: Path

    @property
    def path(self) -> Path:
        return self.dir

    @property
    def build_path(self) -> Path:
        """The private file runs write (never opened by readers)."""
        return self.dir / "build.duckdb"

    @property
    def serving_path(self) -> Path:
        """The published file analysts and BI tools open read-only."""
        return self.dir / "serving.duckdb"

    @property
    def report_path(self) -> Path:
        return self.dir / "report.html"

    @property
    def parquet_dir(self) -> Path:
        return self.dir / "parquet"

    @property
    def parquet_current(self) -> Path:
        """The newest complete Parquet export (a symlink swapped atomically)."""
        return self.parquet_dir / "current"

    @property
    def records_dir(self) -> Path:
        """Per-request records the warehouse owns: one Parquet file per source file's content (and code)."""
        return self.dir / "records"

    @property
    def runs_dir(self) -> Path:
        """Each run partition's stored results and the checksums of its files (`assets.runs.partition_store`)."""
        return self.dir / "runs"

    @property
    def lock_path(self) -> Path:
        return self.dir / WAREHOUSE_MARKER  # also marks the folder as a warehouse: never walked as dumps
