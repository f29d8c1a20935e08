"""What a whole test run builds once and its tests share read-only: a published warehouse, the small case.

Under pytest-xdist every worker runs the session fixtures of its own; `built_once` makes the first worker that
asks build into the run's common temporary folder (the parent of each worker's basetemp) under a file lock, and
every other worker wait for it and read what was built (the pytest-xdist documentation's recipe). Without
xdist it simply builds. `kept_unchanged` is the read-only guard: the tests that share a build only read it, so at
the session's end each of its files is as it was built (a test that wrote into it fails the teardown, its files
named).
"""

import hashlib
import os
import pickle
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import pytest
from filelock import FileLock

T = TypeVar("T")


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], T]) -> T:
    """What `build(folder)` returns, built by one worker of the run and shared with every other (pickled)."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        return build(tmp_path_factory.mktemp(name))
    common = tmp_path_factory.getbasetemp().parent
    result = common / f"{name}.pickle"
    with FileLock(str(common / f"{name}.lock")):
        if result.exists():
            return pickle.loads(result.read_bytes())
        folder = common / name
        shutil.rmtree(folder, ignore_errors=True)  # a worker before this one failed while building
        folder.mkdir()
        built = build(folder)
        result.write_bytes(pickle.dumps(built))
        return built


def file_digests(folder: Path) -> dict[str, str]:
    """Relative path -> sha256 of every file below `folder` (a link: where it points), in order."""
    digests = {}
    for path in sorted(folder.rglob("*")):
        name = path.relative_to(folder).as_posix()
        if path.is_symlink():
            digests[name] = f"-> {os.readlink(path)}"
        elif path.is_file():
            digests[name] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digests


def changed_files(folder: Path, before: dict[str, str]) -> list[str]:
    """The files below `folder` added, removed or changed since `before` (file_digests of it)."""
    after = file_digests(folder)
    return sorted(name for name in before.keys() | after.keys() if before.get(name) != after.get(name))


@contextmanager
def kept_unchanged(*folders: Path) -> Iterator[None]:
    """Around a shared build's use: at the end, fail naming every file of `folders` that was added, removed or
    changed."""
    before = {folder: file_digests(folder) for folder in folders}
    yield
    for folder, digests in before.items():
        changed = changed_files(folder, digests)
        assert not changed, f"{folder} is shared read-only, yet these files of it changed: {changed}"
