"""A request source of a run, and what the request pass (`assets.request_records.request_pass`) holds of it: one
`SourceState` per source, holding its id in the pass's SQL, its load level, how its file is read (as it was
given, with every value as text, from its records in the warehouse) and whether it holds copies of rows."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl

from assets.formats.dumps.exchange import RequestScan
from assets.formats.dumps.scan_sql import checked_scan_sql
from assets.request_records.request_sql import frame_part, owned_part, scan_part

FRAME_ROWS = ("request", -1)  # a JSON format's records are named as `checked_column` names them: request 0, ...


@dataclass(frozen=True)
class Source:
    """One request source of a run: a file read in place (RequestScan), or the frame of one measurement,
    with the load level its rows belong to: `level_kind`/`level_nominal` when the measurement says it
    (None: from the file's own level columns, else the run's kind)."""

    key: str
    name: str
    requests: RequestScan | pl.DataFrame
    run_id: str
    run_kind: str
    level_kind: str | None
    level_nominal: float | None
    sha256: str | None = None  # of the file's content, naming its records in the warehouse (owned_records_name)

    @property
    def in_place(self) -> bool:
        return isinstance(self.requests, RequestScan) and self.requests.data is None

    def row_name(self, ordinal: int) -> str:
        if isinstance(self.requests, RequestScan):
            return self.requests.row_name(ordinal)
        return f"{FRAME_ROWS[0]} {ordinal + FRAME_ROWS[1]}"


@dataclass
class SourceState:
    """One source as the pass holds it: its id in the SQL, its load level's SQL columns, and for a file, the scan
    (re-pointed to a temporary copy if not on disk) and how the pass reads it; for a frame, its rows and texts."""

    source: Source
    id: int
    level: str  # SQL columns: its run and load level (request_sql.level_columns)
    scan: RequestScan | None = None  # a file's scan; None: a frame
    frame: pl.DataFrame | None = None  # a frame's rows (request_sql.ROW_TYPES)
    texts: pl.DataFrame | None = None  # a frame's prompt and response texts (only when the pass stores texts)
    readable: bool = True  # False: DuckDB cannot read the file; left out, listed in RequestPass.unreadable
    tolerant: bool = False  # read with every value as text (its typed read failed)
    copies: bool = False  # holds copies of rows (counted by hash), found by a window
    owned: Path | None = None  # its records in the warehouse, which the pass reads instead of the file
    reused: bool = False  # its records were already there (checked for copies when written: no hash)
    screened: bool | None = None  # screened for copies as its records were written: any? (None: not screened)

    @property
    def key(self) -> str:
        return self.source.key

    def part(self, explain: bool = False) -> str:
        """The SELECT of this source's rows as the pass reads them: a frame's from `request_frames`; a file's
        checked (the reasons only when `explain`), from its records in the warehouse when it has some (hashed
        there unless its copies are known: found, or searched for as its records were written)."""
        if self.scan is None:
            return frame_part(self.id, self.level)
        if self.owned is None or explain:
            copies = "find" if self.copies else "hash" if self.scan.read_once else None
            return scan_part(self.id, self.level, self.checked(copies, explain))
        hashed = self.scan.read_once and not self.copies and not self.reused and self.screened is None
        return owned_part(self.id, self.level, self.owned, hashed)

    def checked(self, copies: str | None, explain: bool = False) -> str:
        """The file's rows checked (`checked_scan_sql`: `copies` "find", "hash" or None), read with every value
        as text once its typed read failed."""
        assert self.scan is not None
        return checked_scan_sql(self.scan, self.scan.select_for(self.tolerant), explain=explain, copies=copies)
