"""Run partitions: the dumps folders cut into the units that are read, stored and reused on their own.

A partition is one folder holding a `run.yaml` with every file whose deepest `run.yaml` (on disk) is that one,
plus the `run.yaml` of the folders above it (their keys are merged into its config); the files no `run.yaml`
governs form one partition per dumps folder (they are quarantined with the reason). Every run (a sweep) lies in
exactly one partition, so a partition's results depend on its own files alone: adding or changing one sweep
rescans that sweep's partition and reuses the others (`assets.runs.partition_store`). A file copied into two
partitions is read in each (a copy inside one partition is read once, as before)."""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from assets.core.errors import IngestError
from assets.core.records import SourceFile
from assets.inputs.files import display, sha256_bytes, walk_files
from assets.runs.sidecar import SIDECAR

NO_SIDECAR = ""  # the `folder` of the partition of files no run.yaml governs


@dataclass(frozen=True)
class RunPartition:
    """One partition of a dumps folder: `key` is stable while the dumps folder and the run.yaml folder are
    (and usable as a Dagster mapping key); `files` are the paths read, in walk order (the run.yaml of the
    folders above included); `skipped` what the walk found and did not read, with the reason."""

    key: str
    root: str
    folder: str  # the run.yaml folder relative to root ('.' for the root itself); NO_SIDECAR: none governs
    files: tuple[str, ...]
    skipped: tuple[SourceFile, ...]

    @property
    def label(self) -> str:
        where = "files no run.yaml governs" if self.folder == NO_SIDECAR else self.folder
        return f"{self.root}: {where}"


def relative(path: Path, root: Path) -> PurePosixPath:
    return PurePosixPath(path.relative_to(root).as_posix())


def governing_sidecars(folder: PurePosixPath, sidecars: Iterable[PurePosixPath]) -> list[PurePosixPath]:
    """run.yaml folders from the root down to `folder` (shallowest first)."""
    present = set(sidecars)
    return [p for p in reversed([folder, *folder.parents]) if p in present]


def partition_key(root: str, folder: str) -> str:
    return "run_" + sha256_bytes(f"{os.path.abspath(root)}\n{folder}".encode())[:16]


def _owner(folder: PurePosixPath, sidecars: set[PurePosixPath]) -> str:
    """The partition a file of `folder` belongs to: its deepest run.yaml folder, or none."""
    chain = governing_sidecars(folder, sidecars)
    return chain[-1].as_posix() if chain else NO_SIDECAR


def plan_partitions(roots: Sequence[str], links_into: Sequence[str] | None = None) -> list[RunPartition]:
    """The partitions of every dumps folder, in the order their runs are read (dumps folder, then run.yaml
    folder). Only the folders are walked: nothing is opened. A link may lead into any of the dumps folders or
    of `links_into` (None: anywhere), as `collect_all` follows them."""
    allowed = None if links_into is None else [*roots, *links_into]
    partitions: list[RunPartition] = []
    for root in roots:
        base = Path(root)
        if not base.is_dir():
            raise IngestError(f"{root}: dumps folder does not exist or is not a folder")
        skipped: list[tuple[Path, SourceFile]] = []

        def tell(path: Path, kind: str, reason: str, found: list[tuple[Path, SourceFile]] = skipped) -> None:
            found.append((path, SourceFile(display(path), None, None, kind, "skipped", note=reason)))

        paths = list(walk_files(base, links_into=allowed, skipped=tell))
        sidecars = {relative(p, base).parent for p in paths if p.name == SIDECAR}
        owned: dict[str, list[str]] = defaultdict(list)
        owned_skips: dict[str, list[SourceFile]] = defaultdict(list)
        for path in paths:
            owned[_owner(relative(path, base).parent, sidecars)].append(str(path))
        for path, entry in skipped:
            owned_skips[_owner(relative(path, base).parent, sidecars)].append(entry)
        for folder in sorted(set(owned) | set(owned_skips), key=lambda f: (f != NO_SIDECAR, PurePosixPath(f))):
            above = (
                []
                if folder == NO_SIDECAR
                else [str(base / link / SIDECAR) for link in governing_sidecars(PurePosixPath(folder), sidecars)[:-1]]
            )
            partitions.append(
                RunPartition(
                    partition_key(root, folder),
                    root,
                    folder,
                    tuple(above + owned[folder]),
                    tuple(owned_skips[folder]),
                )
            )
    return partitions
