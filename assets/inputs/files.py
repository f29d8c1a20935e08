"""Local input files: their bytes with a checksum (`Fetched`), folders walked in sorted order, and files
too large to hold, read by their first and last bytes while they are hashed (`LargeFile`), on every
core at once."""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from assets.core.errors import IngestError

MAX_LOCAL_FILE_BYTES = 2 * 1024 * 1024 * 1024  # an input file read into memory; larger is refused, named
MAX_SETTINGS_FILE_BYTES = 10 * 1024 * 1024  # settings files (run.yaml, profiles, prices, sources): a few kilobytes


@dataclass(frozen=True)
class Fetched:
    """The bytes of one input, named by its path or URL."""

    name: str
    data: bytes
    sha256: str
    commit: str | None = None


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def open_regular(path: Path) -> BinaryIO:
    """`path` opened for reading when it is a regular file (after links); IngestError naming it otherwise. Opened
    without blocking, so a FIFO or a device is refused at once rather than waited on or read forever."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise IngestError(f"{display(path)}: {not_regular(mode)}, not a file: never opened as input")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def sha256_file(path: Path) -> str:
    """The sha256 of a regular file's content, read a chunk at a time (never the whole file in memory)."""
    digest = hashlib.sha256()
    with open_regular(path) as handle:
        while chunk := handle.read(8 * 1024 * 1024):
            digest.update(chunk)
    return digest.hexdigest()


def display(path: Path | str) -> str:
    """A path as text that can always be printed and stored (bytes that are not UTF-8 shown as \\xNN)."""
    return os.fsencode(path).decode("utf-8", errors="backslashreplace")


def not_regular(mode: int) -> str:
    """What a file that is not a regular file is, by its mode."""
    for test, kind in (
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISDIR, "a folder"),
    ):
        if test(mode):
            return kind
    return "not a regular file"


# A folder holding this file is a warehouse (its writer lock, assets/warehouse/layout.py): never walked as input.
WAREHOUSE_MARKER = ".benchbill.lock"

Skipped = Callable[[Path, str, str], None]  # (path, kind, reason) of an entry a walk does not yield


def _inside(real: str, roots: Sequence[str]) -> bool:
    return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


def walk_files(
    root: Path, *, links_into: Sequence[str | Path] | None = None, skipped: Skipped | None = None
) -> Iterator[Path]:
    """Every regular file below `root` (following symlinks, never twice), in sorted order. Never yielded, and told
    to `skipped` with the reason: FIFOs, sockets, devices (also behind a link), dangling links, names that are not
    UTF-8, warehouse folders (WAREHOUSE_MARKER), and, when `links_into` is given, links whose target lies outside
    `root` and every folder of `links_into` (None: links may lead anywhere)."""
    tell = skipped or (lambda _path, _kind, _reason: None)
    allowed = None if links_into is None else [os.path.realpath(r) for r in (root, *links_into)]
    seen: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        real = os.path.realpath(dirpath)
        if real in seen:
            dirnames[:] = []
            continue
        seen.add(real)
        if WAREHOUSE_MARKER in filenames:
            dirnames[:] = []
            tell(
                Path(dirpath),
                "warehouse folder",
                f"holds {WAREHOUSE_MARKER}: a benchbill warehouse, never read as input",
            )
            continue
        kept = []
        for name in sorted(dirnames):
            folder = Path(dirpath) / name
            if _admitted(folder, allowed, tell):
                kept.append(name)
        dirnames[:] = kept
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if not _admitted(path, allowed, tell):
                continue
            try:
                mode = path.stat().st_mode
            except OSError as exc:
                if path.is_symlink():
                    tell(path, "dangling symlink", f"points at {display(os.readlink(path))} which does not exist")
                else:
                    tell(path, "unreadable", f"cannot be looked at ({exc.strerror})")
                continue
            if not stat.S_ISREG(mode):
                tell(path, "not a file", f"{not_regular(mode)}: never opened (it could block or never end)")
                continue
            yield path


def _admitted(path: Path, allowed: list[str] | None, tell: Skipped) -> bool:
    """False (told why) for a name that is not UTF-8, or a link leading out of the allowed folders."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        tell(path, "name not UTF-8", f"the name {display(path)} is not valid UTF-8: rename it to read it")
        return False
    if allowed is not None and path.is_symlink():
        target = os.path.realpath(path)
        if not _inside(target, allowed):
            tell(
                path,
                "link outside the dumps folders",
                f"points at {display(target)}, outside the dumps folders and the folders links may lead into "
                "(--allow-links-into DIR or BENCHBILL_ALLOW_LINKS_INTO allows it)",
            )
            return False
    return True


def read_local(location: str | Path) -> list[Fetched]:
    """The bytes of a local file, or of every file below a local folder."""
    path = Path(location)
    if not path.exists():
        raise IngestError(
            f"{path}: no such file or folder (relative paths start from {Path.cwd()}); "
            "check the path given on the command line or in BENCHBILL_* settings"
        )
    files = list(walk_files(path)) if path.is_dir() else [path]  # a FIFO or a device is refused by read_whole
    fetched = []
    for file in files:
        data = read_whole(file)
        fetched.append(Fetched(name=str(file), data=data, sha256=sha256_bytes(data)))
    return fetched


def settings_size_problem(path: Path) -> str | None:
    """Why a settings file is too large to read (its size from stat, before a byte of it is read or hashed), or None
    (a file that cannot be looked at is left to the reading, which says why)."""
    try:
        size = path.stat().st_size
    except OSError:
        return None
    if size <= MAX_SETTINGS_FILE_BYTES:
        return None
    return f"{display(path)}: {size:,} bytes, too large for a settings file (limit {MAX_SETTINGS_FILE_BYTES:,})"


def read_settings_file(location: str | Path) -> Fetched:
    """A settings file's bytes, refused by its size before it is read or hashed (IngestError naming it)."""
    if Path(location).is_dir():
        raise IngestError(f"{display(location)}: a folder, where a settings file was expected")
    problem = settings_size_problem(Path(location))
    if problem is not None:
        raise IngestError(problem + ": refused before it was read")
    return read_local(location)[0]


def read_whole(file: Path) -> bytes:
    """All the bytes of a local file, read into memory; IngestError naming the file when it cannot be read
    or is above MAX_LOCAL_FILE_BYTES (files DuckDB reads in place are never read whole: no limit there)."""
    try:
        size = file.stat().st_size
        if size > MAX_LOCAL_FILE_BYTES:
            raise IngestError(
                f"{display(file)}: {size:,} bytes, above the {MAX_LOCAL_FILE_BYTES:,}-byte limit for one "
                "input file; split it (a generic per-request log can be several files)"
            )
        with open_regular(file) as handle:
            return handle.read()
    except OSError as exc:
        raise IngestError(f"{display(file)}: cannot read ({exc.strerror}); check its permissions") from exc


# ---- reading and recognising one file ---------------------------------------------------------


@dataclass(frozen=True)
class LargeFile:
    """A dump file larger than LARGE_FILE_BYTES: its checksum (hashed as it streams past), size and first
    (HEAD_BYTES) and last (TAIL_BYTES) bytes, never all of it in memory. Only the formats that are this large in
    practice (per-request records, read by DuckDB in place) use it whole; any other is read in full."""

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
TAIL_BYTES = 256 * 1024  # the last bytes kept too: a log's report printed at its end is recognised there


def read_dump_file(path: Path) -> Fetched | LargeFile:
    """A dump file with its sha256: all its bytes, or (above LARGE_FILE_BYTES) a LargeFile."""
    try:
        size = path.stat().st_size
        if size <= LARGE_FILE_BYTES:
            return read_local(path)[0]
        digest, head = hashlib.sha256(), b""
        with open_regular(path) as handle:
            while chunk := handle.read(8 * 1024 * 1024):
                head = head or chunk[:HEAD_BYTES]
                digest.update(chunk)
            handle.seek(max(0, size - TAIL_BYTES))
            tail = handle.read()
    except OSError as exc:
        raise IngestError(f"{display(path)}: cannot read ({exc.strerror}); check its permissions") from exc
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
        hashed = zip(large, pool.map(_read_or_none, large))
        return {path: fetched for path, fetched in hashed if fetched is not None}


def _read_or_none(path: Path) -> Fetched | LargeFile | None:
    """read_dump_file, or None when the file cannot be read (read_dump_file says why when asked again)."""
    try:
        return read_dump_file(path)
    except IngestError:
        return None


def without_bytes(fetched: Fetched) -> LargeFile:
    return LargeFile(
        fetched.name, fetched.sha256, len(fetched.data), fetched.data[:HEAD_BYTES], fetched.data[-TAIL_BYTES:]
    )


def size_of(fetched: Fetched | LargeFile) -> int:
    return fetched.size if isinstance(fetched, LargeFile) else len(fetched.data)


def head_of(fetched: Fetched | LargeFile) -> bytes:
    """The first bytes of a file (all of them, for a file held whole)."""
    return fetched.head if isinstance(fetched, LargeFile) else fetched.data
