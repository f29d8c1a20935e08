"""The end-to-end tier runs the pipeline over the real published files: it stops at once, saying so, without them."""

import pytest

from tests.support.data import missing_shared_data

if (problem := missing_shared_data()) is not None:
    raise pytest.UsageError(problem)
