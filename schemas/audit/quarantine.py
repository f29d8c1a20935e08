"""audit.quarantine: every rejected input row or file, with its reason (created from this model by
assets.warehouse.write)."""

import pandera.polars as pa


class Quarantine(pa.DataFrameModel):
    """One rejected input row or file: which table it was meant for, where it came from and why
    it was rejected. Nothing is dropped silently."""

    table_name: str = pa.Field(description="Table the row or file was meant for (schema.table).")
    source: str = pa.Field(description="File path or URL the rejected row or file came from.")
    location: str = pa.Field(description="Where in the source: record N, line N, stage file, run <label>, ...")
    reason: str = pa.Field(description="Why it was rejected, naming the field and what was expected.")
    row_json: str = pa.Field(nullable=True, description="The rejected row as JSON, when there is one.")
    scope: str = pa.Field(
        nullable=True,
        description=(
            "The part of the table the row belongs to when it is replaced part by part (e.g. round=v5.1); "
            "empty for tables rebuilt whole."
        ),
    )

    class Config:
        strict = True
