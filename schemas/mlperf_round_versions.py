"""audit.mlperf_round_versions: every ingestion of an MLPerf round, with its sources' checksums
and what changed against the previous one (published tables do get corrected)."""

import pandera.polars as pa


class MlperfRoundVersions(pa.DataFrameModel):
    round: str = pa.Field(str_matches=r"^v\d+\.\d+$")
    version: int = pa.Field(ge=1)
    ingested_at: str
    sources_sha256: str = pa.Field(str_length={"min_value": 64, "max_value": 64})
    sources: str
    change: str = pa.Field(isin=["new", "corrected"])
    previous_sha256: str = pa.Field(nullable=True)
    rows: int = pa.Field(ge=0)
    rows_added: int = pa.Field(ge=0)
    rows_removed: int = pa.Field(ge=0)
    values_changed: int = pa.Field(ge=0)

    class Config:
        strict = True
        coerce = True
