"""The warehouse's single-writer lock: one `benchbill run` (or Dagster run) writes a warehouse at a time.

An advisory `flock` on `.benchbill.lock` in the warehouse folder, re-entrant within a process (a
`benchbill run` holds it from its first ingestion to its publish while each Dagster run inside it takes it
again); a second writer says whom it waits for, waits up to its timeout, then refuses.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO


class WarehouseBusy(RuntimeError):
    """Another run holds the warehouse's writer lock."""


_HELD: dict[str, tuple[IO[str], int]] = {}  # lock file -> (open handle, holders) in this process


def acquire(lock_path: Path, timeout_s: float) -> None:
    """Take the lock at `lock_path` (or count one more holder if this process has it); WarehouseBusy after
    `timeout_s` seconds of another process holding it."""
    folder = lock_path.parent
    folder.mkdir(parents=True, exist_ok=True)
    key = str(lock_path.resolve())
    if key in _HELD:
        handle, holders = _HELD[key]
        _HELD[key] = (handle, holders + 1)
        return
    handle = open(lock_path, "a+")
    deadline = time.monotonic() + timeout_s
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
                    f"{folder}: another benchbill run is writing this warehouse ({holder}); "
                    f"waited {timeout_s:g} s. Let it finish, or pass another --warehouse."
                ) from None
            if not told:
                print(
                    f"benchbill: {folder} is being written by another run ({holder}); waiting up to "
                    f"{timeout_s:g} s for it to finish",
                    file=sys.stderr,
                    flush=True,
                )
                told = True
            time.sleep(0.2)
    handle.seek(0)
    handle.truncate()
    handle.write(f"pid {os.getpid()} since {time.strftime('%Y-%m-%dT%H:%M:%S')}")
    handle.flush()
    _HELD[key] = (handle, 1)


def release(lock_path: Path) -> None:
    """Give back one hold of the lock; the last holder in this process unlocks it."""
    key = str(lock_path.resolve())
    handle, holders = _HELD[key]
    if holders > 1:
        _HELD[key] = (handle, holders - 1)
        return
    del _HELD[key]
    fcntl.flock(handle, fcntl.LOCK_UN)
    handle.close()


@contextlib.contextmanager
def holding(lock_path: Path, timeout_s: float) -> Iterator[None]:
    """Hold the lock for the block."""
    acquire(lock_path, timeout_s)
    try:
        yield
    finally:
        release(lock_path)
