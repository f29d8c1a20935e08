"""Resources: where the warehouse lives (and its single-writer lock), and which inputs a run reads."""

import contextlib
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import duckdb
from pydantic import PrivateAttr

from assets.core.paths import DEFAULT_PRICES, DEFAULT_PROFILES, DEFAULT_SOURCES
from assets.runs.partition_store import PartitionStore, partition_store
from assets.warehouse import lock
from assets.warehouse.layout import WarehouseLayout


class Warehouse(dg.ConfigurableResource):
    """The warehouse folder: a private `build.duckdb` the run writes, and the published
    `serving.duckdb` readers open. Holding this resource in a run holds the single-writer lock. `run_store`: where
    the run partitions and owned records are (empty: the folder; s3://bucket/prefix, gs://bucket/prefix: object
    storage, with its fsspec options as JSON in `run_store_options`)."""

    dir: str = "warehouse"
    lock_timeout_s: float = 30.0
    run_store: str = ""
    run_store_options: str = ""
    _holding: bool = PrivateAttr(default=False)

    @property
    def layout(self) -> WarehouseLayout:
        return WarehouseLayout(Path(self.dir), self.run_store, self.run_store_options)

    @property
    def path(self) -> Path:
        return self.layout.path

    @property
    def build_path(self) -> Path:
        return self.layout.build_path

    @property
    def serving_path(self) -> Path:
        return self.layout.serving_path

    @property
    def report_path(self) -> Path:
        return self.layout.report_path

    @property
    def parquet_dir(self) -> Path:
        return self.layout.parquet_dir

    @property
    def parquet_current(self) -> Path:
        return self.layout.parquet_current

    @contextlib.contextmanager
    def connect(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A read-write connection to the private build file, closed on exit (reading the run store's records
        through its filesystem when they are on object storage)."""
        self.path.mkdir(parents=True, exist_ok=True)
        conn = duckdb.connect(str(self.build_path))
        try:
            remote = self.layout.object_store
            if remote is not None:
                remote.register(conn)
            yield conn
        finally:
            conn.close()

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        """Hold the single-writer lock (re-entrant within this process): `benchbill run` holds it from
        its first ingestion to its publish, so two runs never interleave their jobs."""
        with lock.holding(self.layout.lock_path, self.lock_timeout_s):
            yield

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        if context.dagster_run is None:  # a sensor's or schedule's tick writes nothing: it never waits for a run
            return
        lock.acquire(self.layout.lock_path, self.lock_timeout_s)
        self._holding = True

    def teardown_after_execution(self, context: dg.InitResourceContext) -> None:
        if self._holding:
            lock.release(self.layout.lock_path)
            self._holding = False


class RunStore(dg.ConfigurableResource):
    """The warehouse folder's stored run partitions (`runs/`) and owned per-request records (`records/`): written
    by content and atomically, so the partition steps, each in its own process, write them without the writer
    lock (which the run that launched them holds); on object storage when `run_store` names one (as Warehouse's)."""

    dir: str = "warehouse"
    run_store: str = ""
    run_store_options: str = ""

    @property
    def store(self) -> PartitionStore:
        return partition_store(WarehouseLayout(Path(self.dir), self.run_store, self.run_store_options))


class Inputs(dg.ConfigurableResource):
    """What a run reads: MLPerf round tables (paths or URLs; empty means the sources file),
    dump folders (and the folders their links may lead into), the price table and the profiles;
    `store_texts` keeps the prompt and response texts of dumps (observed.request_texts), which are
    otherwise never stored; and, from `benchbill run`, the fingerprint of all of them and of the code
    (assets/warehouse/fingerprint.py), recorded with the build."""

    mlperf: list[str] = []
    sources_file: str = str(DEFAULT_SOURCES)
    dumps: list[str] = []
    prices: str = str(DEFAULT_PRICES)
    profiles: str = str(DEFAULT_PROFILES)
    store_texts: bool = False
    # Folders (besides the dump folders) that links below a dump folder may lead into; a link leading elsewhere
    # is skipped with the reason. None follows links anywhere: only for code that builds Inputs itself (tests);
    # `benchbill run` and the environment settings (pipelines/settings.py) always give a list.
    allow_links_into: list[str] | None = None
    fingerprint: str = ""
    code_sha256: str = ""
    fingerprint_inputs: str = ""
