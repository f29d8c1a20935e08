"""What the drop-folder sensor compares: the dump folders' files by content, each with the run.yaml files that
govern it, as one digest (`dumps_fingerprint`)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from assets.core.errors import IngestError
from assets.inputs.files import display, sha256_file, walk_files
from assets.runs.partition import governing_sidecars, relative
from assets.runs.sidecar import SIDECAR


def dump_checksums(folders: list[str], links_into: Sequence[str] | None = None) -> set[str]:
    """Each regular file below the dump folders as its content's sha256 and the contents of the run.yaml files
    that govern it (shallowest first; links followed as `collect_all` follows them). Names and places do not
    matter while the same run.yaml files govern a file; which run.yaml governs which file does (two run.yaml
    files swapped, or a file moved into another run's folder, is new content)."""
    checksums = set()
    allowed = None if links_into is None else [*folders, *links_into]
    for folder in sorted(folders):
        root = Path(folder)
        if not root.is_dir():
            checksums.add(f"missing folder {folder}")
            continue
        content: dict[Path, str] = {}
        for path in walk_files(root, links_into=allowed):
            try:
                content[path] = sha256_file(path)  # streamed: a per-request log may be gigabytes
            except (IngestError, OSError):  # replaced by a FIFO since the walk, or unreadable: the run says so
                content[path] = f"unreadable {display(path)}"
        sidecars = {_folder_of(path, root): sha for path, sha in content.items() if path.name == SIDECAR}
        for path, sha in content.items():
            chain = governing_sidecars(_folder_of(path, root), sidecars)
            checksums.add(" ".join([sha, *(sidecars[link] for link in chain)]))
    return checksums


def _folder_of(path: Path, root: Path) -> PurePosixPath:
    """The folder of `path` relative to `root` (a file reached through a link outside it: its own folder)."""
    try:
        return relative(path.parent, root)
    except ValueError:
        return PurePosixPath(path.parent.as_posix())


def dumps_fingerprint(folders: list[str], links_into: Sequence[str] | None = None) -> str:
    """A digest of the set of file contents below the dump folders, each with the run.yaml files governing it
    (`dump_checksums`): a new file (or a changed or removed one, or one governed by other run.yaml files) changes
    it; the same file copied again under another name, or into another folder the same run.yaml files govern,
    does not."""
    return hashlib.sha256("\n".join(sorted(dump_checksums(folders, links_into))).encode()).hexdigest()
