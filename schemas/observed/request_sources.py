"""observed.request_sources: where the per-request records of each repeat come from, and how they are read."""

import pandera.polars as pa

from schemas.vocab import LOAD_KINDS


class RequestSources(pa.DataFrameModel):
    """One source of per-request records (a file, or one level of a file that holds several) placed in a
    run's sweep: the file, its checksum, whether observed.requests reads it in place or from the
    warehouse, and how many of its rows were kept and quarantined."""

    run_id: str = pa.Field(description="Run the records belong to (observed.runs.run_id).")
    load_index: int = pa.Field(ge=0, description="Load level of the records (0-based).")
    repeat_index: int = pa.Field(ge=0, description="Repeat of the level (0-based).")
    source: str = pa.Field(description="Dump file the records are read from.")
    source_sha256: str = pa.Field(nullable=True, description="sha256 of the file's content when it was ingested.")
    reader: str = pa.Field(
        description=(
            "Where observed.requests reads the records: `stored in observed.stored_requests` (parsed from JSON), "
            "`stored in the warehouse: records/<name>.parquet` (a per-request file, copied once as checked, keyed by "
            "its content: editing, moving or deleting the dump does not change what is published), or `read in "
            "place` (only where no warehouse folder owns the records: library use)."
        ),
    )
    location: str = pa.Field(description="Which part of the file: all rows, or the level's column value.")
    source_key: str = pa.Field(description="Key of the source inside the request pass (the file, or file#measurement).")
    file_offered_rate_per_s: float = pa.Field(
        nullable=True,
        description=(
            "The file's own offered_rate_per_s value for these rows (generic files that hold several levels)."
        ),
    )
    file_concurrency: float = pa.Field(
        nullable=True,
        description=("The file's own concurrency value for these rows (generic files that hold several levels)."),
    )
    level_kind: str = pa.Field(
        isin=LOAD_KINDS, description=("How the level's load was set (rate or concurrency), as the rows were pooled.")
    )
    level_nominal: float = pa.Field(
        nullable=True,
        description=(
            "The level's nominal load the rows were pooled under (requests/s or concurrency); NULL: a level of its own."
        ),
    )
    first_ordinal: int = pa.Field(
        ge=1, description=("Position in the file of the repeat's first row (1-based); request_index counts from it.")
    )
    first_start_s: float = pa.Field(
        nullable=True,
        description=(
            "Send time of the repeat's first request as the file states it (start_offset_s counts from it), s."
        ),
    )
    requests: int = pa.Field(ge=0, description="Rows kept (every phase and status), after quarantine.")
    rows_quarantined: int = pa.Field(
        ge=0, description="Rows that failed a check of observed.requests (audit.quarantine)."
    )
    evidence: str = pa.Field(isin=["observed"], description="Evidence class: observed.")

    class Config:
        strict = True
        coerce = True
        unique = ["run_id", "load_index", "repeat_index"]
