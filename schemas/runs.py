"""observed.runs: one row per measured run of our own stack, with its config from run.yaml."""

import pandera.polars as pa

ARRIVALS = ["constant", "poisson", "gamma", "concurrency", "trace"]


class Runs(pa.DataFrameModel):
    run_id: str = pa.Field(unique=True)
    run_label: str = pa.Field(unique=True)
    tool: str
    tool_version: str = pa.Field(nullable=True)
    accelerator_raw: str
    accelerator_id: str = pa.Field(nullable=True)
    accelerator_known: bool
    accelerator_count: int = pa.Field(ge=1, le=100000)
    model_raw: str
    model_id: str = pa.Field(nullable=True)
    model_known: bool
    precision_raw: str
    precision: str = pa.Field(nullable=True)
    runtime: str
    runtime_version: str = pa.Field(nullable=True)
    runtime_settings: str = pa.Field(nullable=True)
    arrival: str = pa.Field(isin=ARRIVALS)
    load_kind: str = pa.Field(isin=["rate", "concurrency"])
    load_points: int = pa.Field(ge=0)
    repeats_max: int = pa.Field(ge=0)
    requests: int = pa.Field(ge=0)
    formats: str
    sidecar: str
    report_dir: str
    source_sha256: str
    evidence: str = pa.Field(isin=["observed"])

    class Config:
        strict = True
        coerce = True
