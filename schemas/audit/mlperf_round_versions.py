"""audit.mlperf_round_versions: every ingestion of an MLPerf round, with its sources' checksums
and what changed against the previous one (published tables do get corrected)."""

import pandera.polars as pa


class MlperfRoundVersions(pa.DataFrameModel):
    """One ingestion of an MLPerf round whose sources were new or changed: their checksums and
    how many results were added, removed or changed."""

    round: str = pa.Field(str_matches=r"^v\d+\.\d+$", description="MLPerf round.")
    version: int = pa.Field(ge=1, description="Ingestion number of the round (1 = first seen).")
    ingested_at: str = pa.Field(description="When it was ingested (UTC, ISO 8601).")
    sources_sha256: str = pa.Field(
        str_length={"min_value": 64, "max_value": 64},
        description=("SHA-256 over the checksums of the round's sources."),
    )
    sources: str = pa.Field(description="Files or URLs the round was read from.")
    change: str = pa.Field(isin=["new", "corrected"], description="new (first ingestion) or corrected.")
    previous_sha256: str = pa.Field(nullable=True, description="sources_sha256 of the previous version.")
    rows: int = pa.Field(ge=0, description="Results of the round after this ingestion.")
    rows_added: int = pa.Field(ge=0, description="Results added against the previous version.")
    rows_removed: int = pa.Field(ge=0, description="Results removed against the previous version.")
    values_changed: int = pa.Field(ge=0, description="Results whose row changed against the previous version.")

    class Config:
        strict = True
        coerce = True
