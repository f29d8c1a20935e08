"""benchmark.mlperf_source_disagreements: where two published sources of one MLPerf result differ."""

import pandera.polars as pa


class MlperfSourceDisagreements(pa.DataFrameModel):
    result_key: str
    round: str = pa.Field(str_matches=r"^v\d+\.\d+$")
    field: str
    kept_value: str = pa.Field(nullable=True)
    other_value: str = pa.Field(nullable=True)
    relative_difference: float = pa.Field(nullable=True)
    kept_source_format: str = pa.Field(nullable=True)
    kept_source: str = pa.Field(nullable=True)
    kept_location: str = pa.Field(nullable=True)
    other_source_format: str
    other_source: str
    other_location: str

    class Config:
        strict = True
        coerce = True
