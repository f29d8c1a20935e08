"""Provenance records: a rejected input row or file (audit.quarantine) and a file or URL looked at
(audit.source_files), and the hidden columns that say where a row came from. Readers return them; the warehouse
writer stores them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# The hidden columns a row may carry on its way to its table: the file (or run.yaml) it came from and where in it.
# They are never stored: a row that fails its table's checks is quarantined under them (assets.warehouse.validate;
# without them, under the table's name and the row's position).
SOURCE_COLUMN = "_source"
LOCATION_COLUMN = "_location"
HIDDEN_COLUMNS = (SOURCE_COLUMN, LOCATION_COLUMN)


@dataclass(frozen=True)
class Reject:
    """One rejected input row or file, destined for `audit.quarantine`."""

    source: str
    location: str
    reason: str
    row: dict[Any, Any] | None = None


@dataclass(frozen=True)
class SourceFile:
    """One file or URL an asset looked at, destined for `audit.source_files`."""

    source: str
    sha256: str | None
    size_bytes: int | None
    detected_format: str
    status: str
    rows: int = 0
    note: str = ""
