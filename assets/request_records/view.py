"""observed.requests, a view: the records stored in the warehouse and every file read in place."""

from __future__ import annotations

from assets.core.sqltext import sql_string_literal
from assets.request_records.request_sql import TPOT_SQL, requests_select


def sampled_parts(scans: list[tuple[str, str]]) -> list[int]:
    """Which parts of view_parts pandera samples: the stored records and the first file of each reader
    (the parts of one reader are one SELECT over different files; sampling every file would scan them)."""
    chosen, readers = [0], set()
    for i, (_key, select) in enumerate(scans, start=1):
        reader = next((r for r in ("read_parquet", "read_csv", "read_ndjson") if r in select), select)
        if reader not in readers:
            readers.add(reader)
            chosen.append(i)
    return chosen


def view_parts(scans: list[tuple[str, str]]) -> list[str]:
    """observed.requests, as the SELECTs its UNION ALL joins: the records stored in the warehouse, and
    every file read in place (`scans`: source key and the checked SELECT that reads it,
    RequestPass.view_scans), placed in their sweep by observed.request_sources."""
    parts = ["SELECT * FROM observed.stored_requests"]
    for key, select in scans:
        rows = f"(SELECT {sql_string_literal(key)} AS source_key, *, {TPOT_SQL} AS tpot_ms FROM ({select}))"
        parts.append(requests_select(rows, "observed.request_sources", "source_key"))
    return parts
