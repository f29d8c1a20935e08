"""Provenance records: a rejected input row or file (audit.quarantine) and a file or URL looked at
(audit.source_files). Readers return them; the warehouse writer stores them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


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
