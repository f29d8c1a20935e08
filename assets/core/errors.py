"""The errors every layer raises: input that cannot be read at all (or a URL that does not answer), and a frame
that does not fit its table."""

from __future__ import annotations


class IngestError(Exception):
    """Input that cannot be read at all: the message names the file or URL and what was expected."""


class NetworkError(IngestError):
    """A URL that did not answer after the retries (no connection, timeouts, 5xx, a truncated body): the network or
    the host failed, not the input; the message names the URL and the last problem."""


class SchemaMismatch(Exception):
    """A frame, or a row where it is built (assets.warehouse.rows), does not have the shape its table's pandera model
    demands (a whole-table problem)."""
