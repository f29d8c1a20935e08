"""Dump folders: a folder that does not exist is a clear error."""

import pytest

from assets.core.errors import IngestError
from assets.runs.collect import collect_all


def test_missing_dumps_folder_is_an_error(tmp_path):
    with pytest.raises(IngestError, match="dumps folder does not exist"):
        collect_all([str(tmp_path / "nope")])
