"""The unit tier never reads the shared data: a test that opens a file below ../shared (or BENCHBILL_SHARED)
fails at once, naming the file. `make test-unit` also runs this tier with BENCHBILL_SHARED pointing nowhere."""

import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.data import REPO_ROOT, SHARED

_GUARDED = tuple(sorted({os.path.realpath(SHARED) + os.sep, os.path.realpath(REPO_ROOT.parent / "shared") + os.sep}))
_ACTIVE = {"on": False}


def _refuse_shared_files(event: str, args: tuple[Any, ...]) -> None:
    if not _ACTIVE["on"] or event != "open" or not isinstance(args[0], (str, bytes, os.PathLike)):
        return
    path = os.path.realpath(os.fsdecode(args[0]))
    if path.startswith(_GUARDED):
        _ACTIVE["on"] = False  # the error itself may open files (tracebacks)
        raise PermissionError(
            f"a unit test opened {path}: the unit tier never reads the shared data (move the test to tests/integration)"
        )


sys.addaudithook(_refuse_shared_files)


@pytest.fixture(autouse=True)
def _no_shared_data() -> Iterator[None]:
    _ACTIVE["on"] = True
    try:
        yield
    finally:
        _ACTIVE["on"] = False
