"""The one contract every format reader follows, MLPerf forms and dump formats alike.

A reader is a module (checked against `Reader` by the type checker, as a protocol implementation):

- `FORMATS`: the names of the formats it recognises, as `audit.source_files.detected_format` records them;
- `SKIPPED`: the formats it recognises and does not read, each with the reason listed beside the file;
- `recognise(item) -> str | None`: which of its formats the item holds, by content (never by name), or None;
- `parse(item, kind) -> parsed`: what the item holds (rows, records, measurements), with what it rejected
  and why (never a silent drop).

Each family registers its readers in one list, in the order they are tried (`formats/mlperf/registry.py`,
`formats/dumps/registry.py`): adding a format is one module and one line there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, TypeVar

Item = TypeVar("Item", contravariant=True)
Result = TypeVar("Result", covariant=True)


class Reader(Protocol[Item, Result]):
    """A format reader: recognises items by content and parses the ones it recognises."""

    @property
    def FORMATS(self) -> tuple[str, ...]: ...  # noqa: N802 - a module constant, as readers spell it

    @property
    def SKIPPED(self) -> Mapping[str, str]: ...  # noqa: N802

    def recognise(self, item: Item) -> str | None: ...

    def parse(self, item: Item, kind: str) -> Result: ...
