"""audit.run_fingerprint: what the published warehouse was built from, for skipping a run that would change nothing."""

import pandera.polars as pa


class RunFingerprint(pa.DataFrameModel):
    """The fingerprint of the inputs and the code a build was made from (one row), published with it: a
    `benchbill run` whose fingerprint equals the published one has nothing to change and only prints."""

    fingerprint: str = pa.Field(
        nullable=True,
        description=(
            "sha256 over every input's content and the code, SQL and library versions; empty when the run was not "
            "started by `benchbill run` (a Dagster job), which never matches."
        ),
    )
    code_sha256: str = pa.Field(nullable=True, description="sha256 over the pipeline's code, SQL and reference tables.")
    inputs: str = pa.Field(
        description="JSON list of what the fingerprint covers: each input file or URL and its sha256."
    )
    recorded_at: str = pa.Field(description="When the build recorded it (UTC, ISO 8601); published with the build.")

    class Config:
        strict = True
        coerce = True
