"""Local input files: their bytes with a checksum (`Fetched`), folders walked in sorted order, and files
too large to hold, read by their first and last bytes while they are hashed (`LargeFile`), on every
core at once."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from assets.core.errors import IngestError

MAX_LOCAL_FILE_BYTES = 2 * 1024 * 1024 * 1024  # an input file read into memory; larger is refused, named


@dataclass(frozen=True)
class Fetched:
    """The bytes of one input, named by its path or URL."""

    name: str
    data: bytes
    sha256: str
    commit: str | None = None


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    """The sha256 of a file's content, read a chunk at a time (never the whole file in memory)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(8 * 1024 * 1024):
            digest.update(chunk)
    return digest.hexdigest()


def walk_files(root: Path) -> Iterator[Path]:
    """Every regular file below `root` (following symlinks, never twice), in sorted order."""
    seen: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        real = os.path.realpath(dirpath)
        if real in seen:
            dirnames[:] = []
            continue
        seen.add(real)
        dirnames.sort()
        for name in sorted(filenames):
            yield Path(dirpath) / name


def read_local(location: str | Path) -> list[Fetched]:
    """The bytes of a local file, or of every file below a local folder."""
    path = Path(location)
    if not path.exists():
        raise IngestError(
            f"{path}: no such file or folder (relative paths start from {Path.cwd()}); "
            "check the path given on the command line or in BENCHBILL_* settings"
        )
    files = [path] if path.is_file() else list(walk_files(path))
    fetched = []
    for file in files:
        data = read_whole(file)
        fetched.append(Fetched(name=str(file), data=data, sha256=sha256_bytes(data)))
    return fetched


def read_whole(file: Path) -> bytes:
    """All the bytes of a local file, read into memory; IngestError naming the file when it cannot be read
    or is above MAX_LOCAL_FILE_BYTES (files DuckDB reads in place are never read whole: no limit there)."""
    try:
        size = file.stat().st_size
        if size > MAX_LOCAL_FILE_BYTES:
            raise IngestError(
                f"{file}: {size:,} bytes, above the {MAX_LOCAL_FILE_BYTES:,}-byte limit for one "
                "input file; split it (a generic per-request log can be several files)"
            )
        return file.read_bytes()
    except OSError as exc:
        raise IngestError(f"{file}: cannot read ({exc}); check its permissions") from exc


# ---- reading and recognising one file ---------------------------------------------------------


@dataclass(frozen=True)
class LargeFile:
    """A dump file larger than LARGE_FILE_BYTES: its checksum (hashed as it streams past), size and
    first and last bytes, never all of it in memory. Only the formats that are this large in practice
    (per-request records, read by DuckDB in place) use it whole; any other is read in full."""

    name: str
    sha256: str
    size: int
    head: bytes
    tail: bytes

    @property
    def data(self) -> bytes:
        """All the bytes, read now (for code that needs a file whole, like a Fetched's `data`; the size
        limit of files read into memory applies)."""
        return read_whole(Path(self.name))


LARGE_FILE_BYTES = 16 * 1024 * 1024
HEAD_BYTES = 1024 * 1024


def read_dump_file(path: Path) -> Fetched | LargeFile:
    """A dump file with its sha256: all its bytes, or (above LARGE_FILE_BYTES) a LargeFile."""
    try:
        size = path.stat().st_size
        if size <= LARGE_FILE_BYTES:
            return read_local(path)[0]
        digest, head = hashlib.sha256(), b""
        with open(path, "rb") as handle:
            while chunk := handle.read(8 * 1024 * 1024):
                head = head or chunk[:HEAD_BYTES]
                digest.update(chunk)
            handle.seek(max(0, size - 8))
            tail = handle.read()
    except OSError as exc:
        raise IngestError(f"{path}: cannot read ({exc}); check its permissions") from exc
    return LargeFile(str(path), digest.hexdigest(), size, head, tail)


def megabytes(paths: list[Path]) -> str:
    total = 0
    for path in paths:
        try:
            total += path.stat().st_size
        except OSError:
            continue  # read_dump_file reports it
    return f"{total / 1e6:,.1f}"


def hash_large_files(paths: list[Path], log: Callable[[str], None] | None = None) -> dict[Path, Fetched | LargeFile]:
    """The files above LARGE_FILE_BYTES, hashed on every core at once (hashlib lets go of the GIL)."""
    large = []
    for path in paths:
        try:
            if path.stat().st_size > LARGE_FILE_BYTES:
                large.append(path)
        except OSError:
            continue  # read_dump_file reports it
    if len(large) < 2:
        return {}
    if log:
        log(f"checksums of {len(large)} large files ({megabytes(large)} MB)")
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return dict(zip(large, pool.map(read_dump_file, large)))


def without_bytes(fetched: Fetched) -> LargeFile:
    return LargeFile(fetched.name, fetched.sha256, len(fetched.data), fetched.data[:HEAD_BYTES], fetched.data[-8:])


def size_of(fetched: Fetched | LargeFile) -> int:
    return fetched.size if isinstance(fetched, LargeFile) else len(fetched.data)


def head_of(fetched: Fetched | LargeFile) -> bytes:
    """The first bytes of a file (all of them, for a file held whole)."""
    return fetched.head if isinstance(fetched, LargeFile) else fetched.data
