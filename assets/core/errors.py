"""The errors every layer raises: input that cannot be read at all (or a URL that does not answer), and a frame
that does not fit its table."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


class IngestError(Exception):
    """Input that cannot be read at all: the message names the file or URL and what was expected."""


class NetworkError(IngestError):
    """A URL that did not answer after the retries (no connection, timeouts, 5xx, a truncated body): the network or
    the host failed, not the input; the message names the URL and the last problem."""


class SchemaMismatch(Exception):
    """A frame, or a row where it is built (assets.warehouse.rows), does not have the shape its table's pandera model
    demands (a whole-table problem)."""


READER_FAILURE_CHARS = 300  # of an unexpected exception's message kept in the reason


@contextmanager
def costs_only_itself(name: str) -> Iterator[None]:
    """Any exception a reader raises on one input (a bug or a limit it meets: Python's integer-conversion limit,
    a recursion limit, memory) re-raised as the IngestError naming `name`, so that the file is quarantined with the
    reason and the rest is read."""
    try:
        yield
    except IngestError:
        raise
    except Exception as exc:  # noqa: BLE001 - that is the point: one bad file costs only itself
        message = str(exc)
        if len(message) > READER_FAILURE_CHARS:
            message = message[:READER_FAILURE_CHARS] + "..."
        raise IngestError(f"{name}: could not be read ({type(exc).__name__}: {message})") from exc
