"""The warehouse's single-writer lock: one `benchbill run` (or Dagster run) writes a warehouse at a time.

An advisory `flock` on `.benchbill.lock` in the warehouse folder, re-entrant within a process (a
`benchbill run` holds it from its first ingestion to its publish while each Dagster run inside it takes it
again); a second writer says whom it waits for, waits up to its timeout, then refuses. The lock file is
opened without following a link (a link planted there never truncates its target) and must be a regular
file; a warehouse that cannot hold it (read-only, full disk, a name that is not UTF-8) is one clear message.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from assets.core.faults import checkpoint
from assets.inputs.files import display, not_regular


class WarehouseProblem(RuntimeError):
    """The warehouse folder cannot be written by this run: the message names the path and what to do."""


class WarehouseBusy(WarehouseProblem):
    """Another run holds the warehouse's writer lock."""


def _open_lock_file(lock_path: Path) -> IO[str]:
    """The lock file opened read-write (created if missing), never through a link, only when a regular file."""
    folder = lock_path.parent
    try:
        os.fsencode(lock_path).decode("utf-8")
    except UnicodeDecodeError:
        raise WarehouseProblem(
            f"{display(folder)}: the warehouse folder's name is not valid UTF-8 (DuckDB needs UTF-8 paths); "
            "rename it or pass another --warehouse"
        ) from None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise WarehouseProblem(cannot_write(lock_path, exc)) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise WarehouseProblem(
            f"{display(lock_path)}: {not_regular(mode)} where the warehouse's lock file belongs; remove it"
        )
    os.set_blocking(fd, True)
    return os.fdopen(fd, "r+")


def cannot_write(path: Path, exc: OSError) -> str:
    """One clear message for a warehouse file that cannot be created or written, by the reason."""
    if exc.errno == errno.ELOOP:
        return (
            f"{display(path)}: is a symbolic link; the warehouse's lock file is never opened through a link "
            "(it would truncate the target): remove the link"
        )
    if exc.errno == errno.ENOSPC:
        return (
            f"{display(path)}: no space left on the device holding it ({file_system_of(path)}); free some space "
            "there, then run again"
        )
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return (
            f"{display(path)}: cannot be written ({exc.strerror}): the warehouse folder must be writable by this "
            "run; pass another --warehouse, or run as a user who may write there"
        )
    return f"{display(path)}: cannot be written ({exc.strerror}); check the warehouse folder"


def file_system_of(path: Path) -> str:
    """The file system `path` is written to, in words: its mount point and the space free there (the nearest
    folder of `path` that exists is asked; the warehouse's folders may be on different devices)."""
    place = Path(os.path.abspath(path))
    while not place.exists() and place != place.parent:
        place = place.parent
    mount = place
    try:
        device = os.stat(mount).st_dev
        while mount != mount.parent and os.stat(mount.parent).st_dev == device:
            mount = mount.parent
        found = os.statvfs(place)
    except OSError:
        return "its file system could not be examined"
    return f"the file system mounted at {display(mount)}, {found.f_bavail * found.f_frsize / 1e6:,.1f} MB free"


_HELD: dict[str, tuple[IO[str], int]] = {}  # lock file -> (open handle, holders) in this process


def _key(lock_path: Path) -> str:
    """The lock file's place, its folder's links resolved but not the file's own (never followed)."""
    return os.path.join(os.path.realpath(lock_path.parent), lock_path.name)


def acquire(lock_path: Path, timeout_s: float) -> None:
    """Take the lock at `lock_path` (or count one more holder if this process has it); WarehouseBusy after
    `timeout_s` seconds of another process holding it."""
    folder = lock_path.parent
    key = _key(lock_path)
    if key in _HELD:
        handle, holders = _HELD[key]
        _HELD[key] = (handle, holders + 1)
        return
    handle = _open_lock_file(lock_path)
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
                    f"{display(folder)}: another benchbill run is writing this warehouse ({holder}); "
                    f"waited {timeout_s:g} s. Let it finish, or pass another --warehouse."
                ) from None
            if not told:
                print(
                    f"benchbill: {display(folder)} is being written by another run ({holder}); waiting up to "
                    f"{timeout_s:g} s for it to finish",
                    file=sys.stderr,
                    flush=True,
                )
                told = True
            time.sleep(0.2)
    try:
        handle.seek(0)
        handle.truncate()
        checkpoint("lock.writing", lock_path)
        handle.write(f"pid {os.getpid()} since {time.strftime('%Y-%m-%dT%H:%M:%S')}")
        handle.flush()
    except OSError as exc:
        fcntl.flock(handle, fcntl.LOCK_UN)
        handle.close()
        raise WarehouseProblem(cannot_write(lock_path, exc)) from None
    _HELD[key] = (handle, 1)


def release(lock_path: Path) -> None:
    """Give back one hold of the lock; the last holder in this process unlocks it."""
    key = _key(lock_path)
    handle, holders = _HELD[key]
    if holders > 1:
        _HELD[key] = (handle, holders - 1)
        return
    del _HELD[key]
    fcntl.flock(handle, fcntl.LOCK_UN)
    handle.close()


def busy_with(lock_path: Path) -> str | None:
    """Who holds the lock at `lock_path` now ("pid N since T"), without waiting or taking it for longer than a
    look; None when nobody does (or no lock file exists yet) or this process holds it."""
    if _key(lock_path) in _HELD or not lock_path.exists():
        return None
    handle = _open_lock_file(lock_path)
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return handle.read().strip() or "a process that did not say which"
        fcntl.flock(handle, fcntl.LOCK_UN)
        return None
    finally:
        handle.close()


@contextlib.contextmanager
def holding(lock_path: Path, timeout_s: float) -> Iterator[None]:
    """Hold the lock for the block."""
    acquire(lock_path, timeout_s)
    try:
        yield
    finally:
        release(lock_path)
