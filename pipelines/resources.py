"""Resources: where the warehouse lives (and its single-writer lock), and which inputs a run reads."""


import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dagster as dg
import duckdb
from pydantic import PrivateAttr

DEFAULTS_DIR = Path(__file__).resolve().parent.parent / "assets" / "defaults"
DEFAULT_SOURCES = DEFAULTS_DIR / "mlperf_sources.yaml"
DEFAULT_PRICES = DEFAULTS_DIR / "prices.csv"
DEFAULT_PROFILES = DEFAULTS_DIR / "profiles.yaml"


class WarehouseBusy(RuntimeError):
    """Another run holds the warehouse's writer lock."""


class Warehouse(dg.ConfigurableResource):
    """The warehouse folder: a private `build.duckdb` the run writes, and the published
    `serving.duckdb` readers open. Holding this resource in a run holds the single-writer lock."""

    dir: str = "warehouse"
    lock_timeout_s: float = 30.0
    _lock_handle: Any = PrivateAttr(default=None)

    @property
    def path(self) -> Path:
        return Path(self.dir)

    @property
    def build_path(self) -> Path:
        return self.path / "build.duckdb"

    @property
    def serving_path(self) -> Path:
        return self.path / "serving.duckdb"

    @property
    def report_path(self) -> Path:
        return self.path / "report.html"

    @property
    def parquet_dir(self) -> Path:
        return self.path / "parquet"

    @property
    def parquet_current(self) -> Path:
        """The newest complete Parquet export (a symlink swapped atomically)."""
        return self.parquet_dir / "current"

    @contextlib.contextmanager
    def connect(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A read-write connection to the private build file, closed on exit."""
        self.path.mkdir(parents=True, exist_ok=True)
        conn = duckdb.connect(str(self.build_path))
        try:
            yield conn
        finally:
            conn.close()

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        lock_path = self.path / ".benchbill.lock"
        handle = open(lock_path, "a+")
        deadline = time.monotonic() + self.lock_timeout_s
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    handle.seek(0)
                    holder = handle.read().strip() or "unknown"
                    handle.close()
                    raise WarehouseBusy(
                        f"{self.path}: another benchbill run is writing this warehouse ({holder}); "
                        f"waited {self.lock_timeout_s:.0f} s. Let it finish, or pass another --warehouse."
                    ) from None
                time.sleep(0.2)
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()} since {time.strftime('%Y-%m-%dT%H:%M:%S')}")
        handle.flush()
        self._lock_handle = handle

    def teardown_after_execution(self, context: dg.InitResourceContext) -> None:
        if self._lock_handle is not None:
            fcntl.flock(self._lock_handle, fcntl.LOCK_UN)
            self._lock_handle.close()
            self._lock_handle = None


class Inputs(dg.ConfigurableResource):
    """What a run reads: MLPerf round tables (paths or URLs; empty means the sources file),
    dump folders, the price table and the profiles; and, from `benchbill run`, the fingerprint of
    all of them and of the code (assets/fingerprint.py), recorded with the build."""

    mlperf: list[str] = []
    sources_file: str = str(DEFAULT_SOURCES)
    dumps: list[str] = []
    prices: str = str(DEFAULT_PRICES)
    profiles: str = str(DEFAULT_PROFILES)
    fingerprint: str = ""
    code_sha256: str = ""
    fingerprint_inputs: str = ""
