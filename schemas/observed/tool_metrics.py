"""observed.tool_metrics: every aggregate a tool reported, under the tool's own name and definition."""

import pandera.polars as pa


class ToolMetrics(pa.DataFrameModel):
    """One aggregate number a benchmark tool reported, kept under the tool's own name, statistic
    and unit (whether or not its definition matches ours)."""

    run_id: str = pa.Field(description="Run the number belongs to (observed.runs.run_id).")
    load_index: int = pa.Field(ge=0, description="Load level (0-based).")
    repeat_index: int = pa.Field(ge=0, description="Repeat of the level (0-based).")
    tool: str = pa.Field(description="Tool that reported the number.")
    metric: str = pa.Field(description="The tool's name for the metric.")
    statistic: str = pa.Field(description="Which statistic (mean, p50, p99, ...), as the tool names it.")
    value: float = pa.Field(description="The number, in unit.")
    unit: str = pa.Field(description="Unit of value, as reported.")
    tool_definitions: str = pa.Field(description="How the tool defines its metrics, against ours.")

    class Config:
        strict = True
        coerce = True
