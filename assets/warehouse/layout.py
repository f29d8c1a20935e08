"""Where a warehouse keeps its files: the private build file, the published serving file, the report, the
Parquet exports, the stored engine-model fits and the writer lock, all in one folder; its stored run partitions and
owned records there too, or in a run store on object storage (`run_store`: s3://bucket/prefix, gs://bucket/prefix)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from assets.inputs.files import WAREHOUSE_MARKER
from assets.warehouse.objectstore import ObjectStore


@dataclass(frozen=True)
class WarehouseLayout:
    """The files of one warehouse folder; `run_store` (empty: the folder) and its fsspec options (JSON) say where
    its run partitions and records are."""

    dir: Path
    run_store: str = ""
    run_store_options: str = ""

    @property
    def object_store(self) -> ObjectStore | None:
        """The run store on object storage that holds `runs/` and `records/`, or None: the warehouse folder does."""
        return ObjectStore(self.run_store.strip(), self.run_store_options) if self.run_store.strip() else None

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
        """Per-request records the warehouse owns: one Parquet file per source file's content (and code); with a run
        store on object storage, `object_store`'s records/ instead."""
        return self.dir / "records"

    @property
    def runs_dir(self) -> Path:
        """Each run partition's stored results and the checksums of its files (`assets.runs.partition_store`); with a
        run store on object storage, `object_store`'s runs/ instead."""
        return self.dir / "runs"

    @property
    def fits_dir(self) -> Path:
        """Each config's stored calibration and the fingerprint of what it was fitted on (`assets.calibrate.fit_store`);
        always in the folder (a few kB a config)."""
        return self.dir / "fits"

    @property
    def plans_dir(self) -> Path:
        """Each measurement plan: the prediction made before measuring and the files a team's tools run
        (`assets.plan.store`); always in the folder, never removed by a run."""
        return self.dir / "plans"

    @property
    def lock_path(self) -> Path:
        return self.dir / WAREHOUSE_MARKER  # also marks the folder as a warehouse: never walked as dumps
