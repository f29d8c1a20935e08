"""Resources: where the warehouse lives (and its single-writer lock), and which inputs a run reads."""


import contextlib
import fcntl
import os
import sys
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
    _holding: bool = PrivateAttr(default=False)

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

    @property
    def lock_path(self) -> Path:
        return self.path / ".benchbill.lock"

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        """Hold the single-writer lock (re-entrant within this process): `benchbill run` holds it from
        its first ingestion to its publish, so two runs never interleave their jobs."""
        self._acquire()
        try:
            yield
        finally:
            self._release()

    def _acquire(self) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        key = str(self.lock_path.resolve())
        if key in _HELD:
            handle, holders = _HELD[key]
            _HELD[key] = (handle, holders + 1)
            return
        handle = open(self.lock_path, "a+")
        deadline = time.monotonic() + self.lock_timeout_s
        told = False
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                handle.seek(0)
                holder = handle.read().strip() or "unknown"
                if time.monotonic() >= deadline:
                    handle.close()
                    raise WarehouseBusy(
                        f"{self.path}: another benchbill run is writing this warehouse ({holder}); "
                        f"waited {self.lock_timeout_s:g} s. Let it finish, or pass another --warehouse."
                    ) from None
                if not told:
                    print(f"benchbill: {self.path} is being written by another run ({holder}); waiting up to "
                          f"{self.lock_timeout_s:g} s for it to finish", file=sys.stderr, flush=True)
                    told = True
                time.sleep(0.2)
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()} since {time.strftime('%Y-%m-%dT%H:%M:%S')}")
        handle.flush()
        _HELD[key] = (handle, 1)

    def _release(self) -> None:
        key = str(self.lock_path.resolve())
        handle, holders = _HELD[key]
        if holders > 1:
            _HELD[key] = (handle, holders - 1)
            return
        del _HELD[key]
        fcntl.flock(handle, fcntl.LOCK_UN)
        handle.close()

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        self._acquire()
        self._holding = True

    def teardown_after_execution(self, context: dg.InitResourceContext) -> None:
        if self._holding:
            self._release()
            self._holding = False


_HELD: dict[str, tuple[Any, int]] = {}  # lock file -> (open handle, holders) in this process


class Inputs(dg.ConfigurableResource):
    """What a run reads: MLPerf round tables (paths or URLs; empty means the sources file),
    dump folders, the price table and the profiles; `store_texts` keeps the prompt and response
    texts of dumps (observed.request_texts), which are otherwise never stored; and, from `benchbill
    run`, the fingerprint of all of them and of the code (assets/fingerprint.py), recorded with the
    build."""

    mlperf: list[str] = []
    sources_file: str = str(DEFAULT_SOURCES)
    dumps: list[str] = []
    prices: str = str(DEFAULT_PRICES)
    profiles: str = str(DEFAULT_PROFILES)
    store_texts: bool = False
    fingerprint: str = ""
    code_sha256: str = ""
    fingerprint_inputs: str = ""
