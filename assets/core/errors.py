"""The errors every layer raises: input that cannot be read at all, and a frame that does not fit its table."""

from __future__ import annotations


class IngestError(Exception):
    """Input that cannot be read at all: the message names the file or URL and what was expected."""


class SchemaMismatch(Exception):
    """A frame does not have the shape its table's pandera model demands (a whole-table problem)."""
