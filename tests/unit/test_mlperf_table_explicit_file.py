"""A round table read as an explicit file must be one: another format is a clear error."""

import pytest

from assets.core.errors import IngestError
from assets.mlperf_rounds.ingest import read_locations


def test_explicit_file_in_another_format_is_an_error(tmp_path):
    other = tmp_path / "table.json"
    other.write_text('{"0": {"Something": "x"}}')
    with pytest.raises(IngestError, match="not an MLPerf result file this version reads"):
        read_locations([str(other)], [])
