"""Archives in dump folders (zip, tar, tar.gz/.bz2/.xz, and single gzip/bzip2/xz files), recognised by
content and read in memory.

A member is read as if it were a file in a folder named after the archive
(`dumps/h100/results.tar.gz/stage_0_lifecycle_metrics.json`): nothing is ever extracted to disk, so
nothing can be written outside the dumps tree, and a run.yaml inside the archive governs its members
like any other. Refused members, listed in `audit.source_files` with the reason: absolute names and
`..` (path traversal), symbolic and hard links (links out), devices and pipes, archives inside
archives. Limits, checked on the sizes the archive declares before anything is decompressed and
again while reading: MAX_MEMBERS members, MAX_MEMBER_BYTES per member and MAX_TOTAL_BYTES per
archive once decompressed. An archive that breaks a limit (a zip or gzip bomb) is quarantined whole,
decompressed no further than the limit.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import stat
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import PurePosixPath

from assets.core.records import Reject, SourceFile
from assets.inputs.files import Fetched, sha256_bytes

MAX_MEMBERS = 10_000
MAX_MEMBER_BYTES = 512 * 1024 * 1024
MAX_TOTAL_BYTES = 2 * 1024 * 1024 * 1024
_CHUNK = 1 << 20
_COMPRESSED = ((b"\x1f\x8b", "gzip", gzip.open), (b"BZh", "bzip2", bz2.open), (b"\xfd7zXZ\x00", "xz", lzma.open))


class ArchiveProblem(ValueError):
    """An archive that is not read at all; the message says why."""


def kind_of(data: bytes) -> str | None:
    """zip, tar, or the compression of a compressed file (gzip, bzip2, xz), by content; None otherwise."""
    if data.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return "zip"
    if data[257:262] == b"ustar":
        return "tar"
    return next((name for magic, name, _opener in _COMPRESSED if data.startswith(magic)), None)


def _read_capped(handle, cap: int, what: str) -> bytes:
    """Read `handle` to its end, but never more than `cap` bytes decompressed."""
    chunks, size = [], 0
    while chunk := handle.read(min(_CHUNK, cap + 1 - size)):
        chunks.append(chunk)
        size += len(chunk)
        if size > cap:
            raise ArchiveProblem(
                f"{what} expands beyond the {cap:,}-byte limit (a decompression bomb?); not read further"
            )
    return b"".join(chunks)


def unsafe_name(name: str) -> str | None:
    """Why a member name may not be read (it would point outside the archive's folder), or None."""
    parts = name.replace("\\", "/").split("/")
    if name.startswith(("/", "\\")) or (len(parts[0]) == 2 and parts[0][1] == ":"):
        return "absolute path: members are read inside the archive's folder only"
    if ".." in parts:
        return "'..' in the path (path traversal): members are read inside the archive's folder only"
    if not any(parts):
        return "empty name"
    return None


class _Budget:
    def __init__(self) -> None:
        self.members = 0
        self.total = 0

    def take(self, declared: int, what: str) -> int:
        """The bytes `what` may still expand to; ArchiveProblem when the archive is over its limits."""
        self.members += 1
        if self.members > MAX_MEMBERS:
            raise ArchiveProblem(f"more than {MAX_MEMBERS:,} members")
        if declared > MAX_MEMBER_BYTES:
            raise ArchiveProblem(
                f"{what} declares {declared:,} bytes, above the {MAX_MEMBER_BYTES:,}-byte limit per member"
            )
        if self.total + declared > MAX_TOTAL_BYTES:
            raise ArchiveProblem(f"members declare more than the {MAX_TOTAL_BYTES:,}-byte limit per archive")
        return min(MAX_MEMBER_BYTES, MAX_TOTAL_BYTES - self.total)

    def spend(self, size: int) -> None:
        self.total += size


def _zip_members(data: bytes, budget: _Budget) -> Iterator[tuple[str, bytes | None, str]]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for info in sorted(archive.infolist(), key=lambda i: i.filename):
            if info.is_dir():
                continue
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                yield info.filename, None, "a symbolic link: links are not followed out of an archive"
                continue
            cap = budget.take(info.file_size, info.filename)
            with archive.open(info) as handle:
                content = _read_capped(handle, cap, info.filename)
            budget.spend(len(content))
            yield info.filename, content, ""


def _tar_members(data: bytes, budget: _Budget) -> Iterator[tuple[str, bytes | None, str]]:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as archive:
        members = []
        for member in archive:  # headers only: a member's data is decompressed when read below
            if member.isfile():
                budget.take(member.size, member.name)
                budget.spend(member.size)
            members.append(member)
        for member in sorted(members, key=lambda m: m.name):
            if member.isdir():
                continue
            if member.issym() or member.islnk():
                yield (
                    member.name,
                    None,
                    f"a {'symbolic' if member.issym() else 'hard'} link to {member.linkname!r}: "
                    "links are not followed out of an archive",
                )
            elif not member.isfile():
                yield member.name, None, "a device, pipe or other special file"
            else:
                handle = archive.extractfile(member)
                yield member.name, _read_capped(handle, member.size, member.name), ""


def members(data: bytes, single_name: str = "content") -> Iterator[tuple[str, bytes | None, str]]:
    """(name, content or None, reason it is not read) for each member, in name order (a compressed
    single file is one member named `single_name`). ArchiveProblem when the archive cannot be read
    or breaks a limit."""
    kind = kind_of(data)
    budget = _Budget()
    try:
        if kind == "zip":
            yield from _zip_members(data, budget)
            return
        if kind == "tar":
            yield from _tar_members(data, budget)
            return
        opener = next(o for _m, name, o in _COMPRESSED if name == kind)
        with opener(io.BytesIO(data)) as handle:
            head = handle.read(512)
        if head[257:262] == b"ustar":  # a compressed tar
            yield from _tar_members(data, budget)
            return
        with opener(io.BytesIO(data)) as handle:  # one compressed file
            yield single_name, _read_capped(handle, min(MAX_MEMBER_BYTES, MAX_TOTAL_BYTES), "the content"), ""
    except (zipfile.BadZipFile, tarfile.TarError, OSError, EOFError, lzma.LZMAError, ValueError) as exc:
        if isinstance(exc, ArchiveProblem):
            raise
        raise ArchiveProblem(f"a damaged {kind} archive ({type(exc).__name__}: {exc})") from None


def expand(
    fetched: Fetched, rel: PurePosixPath, files: list[SourceFile], rejects: list[Reject]
) -> Iterator[tuple[Fetched, PurePosixPath]]:
    """The file itself, or, for an archive, each member that may be read, named as a file in a folder
    named after the archive. The archive and each refused member are listed in `files`; an archive
    that cannot be read is quarantined (`rejects`)."""
    kind = kind_of(fetched.data)
    if kind is None:
        yield fetched, rel
        return
    size = len(fetched.data)
    archive_name = PurePosixPath(fetched.name).name
    single = archive_name.rsplit(".", 1)[0] if archive_name.endswith((".gz", ".bz2", ".xz")) else archive_name
    try:
        found = list(members(fetched.data, single))
    except ArchiveProblem as problem:
        files.append(
            SourceFile(fetched.name, fetched.sha256, size, f"{kind} archive", "quarantined", note=str(problem))
        )
        rejects.append(Reject(fetched.name, "archive", f"{kind} archive not read: {problem}"))
        return
    files.append(
        SourceFile(
            fetched.name,
            fetched.sha256,
            size,
            f"{kind} archive",
            "read",
            rows=len(found),
            note="members read as files of a folder named after the archive",
        )
    )
    for name, content, refused in found:
        if content is not None and not refused:
            refused = unsafe_name(name) or ("an archive inside an archive is not opened" if kind_of(content) else "")
        member = f"{fetched.name}/{name}"
        if refused or content is None:
            files.append(
                SourceFile(
                    member,
                    None if content is None else sha256_bytes(content),
                    None if content is None else len(content),
                    "archive member",
                    "skipped",
                    note=refused,
                )
            )
            continue
        yield Fetched(name=member, data=content, sha256=sha256_bytes(content)), rel / PurePosixPath(name)
