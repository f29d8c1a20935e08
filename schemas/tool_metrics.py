"""observed.tool_metrics: every aggregate a tool reported, under the tool's own name and definition."""

import pandera.polars as pa


class ToolMetrics(pa.DataFrameModel):
    run_id: str
    load_index: int = pa.Field(ge=0)
    repeat_index: int = pa.Field(ge=0)
    tool: str
    metric: str
    statistic: str
    value: float
    unit: str
    tool_definitions: str

    class Config:
        strict = True
        coerce = True
