"""benchmark.mlperf_source_disagreements: where two published sources of one MLPerf result differ."""

import pandera.polars as pa


class MlperfSourceDisagreements(pa.DataFrameModel):
    """One field of one MLPerf result on which two published sources (e.g. the round table and
    the submission tree) disagree: the value kept and the other one."""

    result_key: str = pa.Field(description="The result (benchmark.mlperf_results.result_key).")
    round: str = pa.Field(str_matches=r"^v\d+\.\d+$", description="MLPerf round.")
    field: str = pa.Field(description="Column on which the sources differ.")
    kept_value: str = pa.Field(nullable=True, description="Value kept in benchmark.mlperf_results.")
    other_value: str = pa.Field(nullable=True, description="Value in the other source.")
    relative_difference: float = pa.Field(nullable=True, description="(other - kept) / |kept|, for numbers.")
    kept_source_format: str = pa.Field(nullable=True, description="Format of the source kept.")
    kept_source: str = pa.Field(nullable=True, description="File or URL of the source kept.")
    kept_location: str = pa.Field(nullable=True, description="Where in the kept source.")
    other_source_format: str = pa.Field(description="Format of the other source.")
    other_source: str = pa.Field(description="File or URL of the other source.")
    other_location: str = pa.Field(description="Where in the other source.")

    class Config:
        strict = True
        coerce = True
