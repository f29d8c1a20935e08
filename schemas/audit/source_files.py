"""audit.source_files: every file or URL an asset looked at (created from this model by
assets.warehouse.write)."""

import pandera.polars as pa


class SourceFiles(pa.DataFrameModel):
    """One file or URL an asset looked at, whether read, skipped or quarantined."""

    table_name: str = pa.Field(description="Table whose asset looked at the file (schema.table).")
    source: str = pa.Field(description="File path or URL.")
    sha256: str = pa.Field(nullable=True, description="SHA-256 of the file's bytes.")
    size_bytes: int = pa.Field(nullable=True, description="Size of the file in bytes.")
    detected_format: str = pa.Field(description="Format recognised from the content (or unrecognised).")
    status: str = pa.Field(description="read, skipped or quarantined.")
    rows: int = pa.Field(description="Rows the file contributed.")
    note: str = pa.Field(nullable=True, description="Why a file was skipped, or what else to know about it.")
    scope: str = pa.Field(
        nullable=True,
        description=(
            "The part of the table the row belongs to when it is replaced part by part (e.g. round=v5.1); "
            "empty for tables rebuilt whole."
        ),
    )

    class Config:
        strict = True
