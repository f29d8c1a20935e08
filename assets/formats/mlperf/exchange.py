"""What an MLPerf reader is handed and what it gives: one file (`MlperfFile`, its JSON decoded once, when
it is JSON, for every reader that looks), and its records in the final-report form (`MlperfParsed`), which
`rows.records_to_rows` turns into canonical rows."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from assets.core.records import Reject
from assets.inputs.files import Fetched
from assets.inputs.textinput import decode_json, looks_like_json


@dataclass
class MlperfFile:
    """One input file or URL body. `json` is its decoded JSON (decoded on first use; IngestError naming the
    file when it looks like JSON and is not), or None when it does not look like JSON."""

    fetched: Fetched

    @property
    def name(self) -> str:
        return self.fetched.name

    @property
    def data(self) -> bytes:
        return self.fetched.data

    @property
    def is_json(self) -> bool:
        return looks_like_json(self.fetched.data)

    @functools.cached_property
    def json(self) -> Any:
        return decode_json(self.fetched.data, self.fetched.name) if self.is_json else None


@dataclass(frozen=True)
class MlperfParsed:
    """A file's records as (location, final-report record) pairs, what was rejected, a note for the file
    inventory, and whether a record must say how many nodes its system has (forms without system columns
    do not)."""

    records: list[tuple[str, Any]] = field(default_factory=list)
    rejects: list[Reject] = field(default_factory=list)
    note: str = ""
    require_nodes: bool = True
