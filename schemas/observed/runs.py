"""observed.runs: one row per measured run of our own stack, with its config from run.yaml."""

import pandera.polars as pa

from schemas.vocab import ARRIVALS, LOAD_KINDS, PRECISION_SOURCES


class Runs(pa.DataFrameModel):
    """One measured run of our serving stack (a sweep of load levels), with its config from the
    run.yaml sidecars above its dump files."""

    run_id: str = pa.Field(unique=True, description="Stable id of the run (from its label and files' checksums).")
    run_label: str = pa.Field(
        unique=True, description=("Human name of the run: run.yaml's label, or the folder path below the dumps folder.")
    )
    tool: str = pa.Field(description="Benchmark tool that wrote the dump (e.g. inference-perf).")
    tool_version: str = pa.Field(
        nullable=True,
        description=(
            "Version of the tool: run.yaml's `tool_version`, else as the dump files state it (comma-separated)."
        ),
    )
    accelerator_raw: str = pa.Field(description="Accelerator as written in run.yaml.")
    accelerator_id: str = pa.Field(nullable=True, description="Canonical accelerator id; empty when unknown.")
    accelerator_known: bool = pa.Field(description="True when accelerator_raw matched a canonical accelerator.")
    accelerator_count: int = pa.Field(ge=1, le=100000, description="Accelerators serving the model in the run.")
    model_raw: str = pa.Field(description="Model as written in run.yaml.")
    model_id: str = pa.Field(nullable=True, description="Canonical model id; empty when unknown.")
    model_known: bool = pa.Field(description="True when model_raw matched a canonical model id.")
    model_key: str = pa.Field(
        description=(
            "What profiles, calibrated configs and quality evidence are matched on (canonical.model_key): the "
            "canonical model id, else the model's name without organisation and quantisation words "
            "(requirement.profiles.model_key)."
        )
    )
    precision_raw: str = pa.Field(
        nullable=True, description="Precision as written in run.yaml; empty when run.yaml states none."
    )
    precision: str = pa.Field(
        nullable=True,
        description=(
            "Canonical weight precision (assets/reference/precisions.csv: fp8, nvfp4, nf4, int4, q4_k_m, ...; "
            "a comma list widest first when several are named); empty when unknown."
        ),
    )
    precision_known: bool = pa.Field(
        description="True when the precision used matched the precision table; false: kept raw in precision_raw."
    )
    precision_source: str = pa.Field(
        isin=PRECISION_SOURCES,
        description="Where the precision comes from: run.yaml, or the model name (run.yaml states none).",
    )
    weight_bits: int = pa.Field(
        nullable=True, ge=1, le=64, description="Bits per weight of the precision (the narrowest of a list)."
    )
    activation_bits: int = pa.Field(
        nullable=True,
        ge=1,
        le=64,
        description="Bits per activation, when the precision or the model name says (W8A8: 8, W4A16: 16).",
    )
    precision_scheme: str = pa.Field(
        nullable=True,
        description=(
            "The quantisation scheme, as observed.quality.scheme writes it (int4-w4a16-awq, int4-w4a8, fp8): what "
            "quality evidence is matched on; run.yaml's precision completed by the model name's when they agree."
        ),
    )
    precision_note: str = pa.Field(
        nullable=True,
        description=(
            "Why the precision deserves a look: an unknown value, or run.yaml contradicting the model name "
            "(run.yaml's is used)."
        ),
    )
    runtime: str = pa.Field(description="Serving runtime (e.g. vLLM).")
    runtime_version: str = pa.Field(nullable=True, description="Version of the serving runtime.")
    runtime_settings: str = pa.Field(
        nullable=True,
        description=(
            "Runtime settings, as JSON: run.yaml's `settings`, with the server settings the dump files or their "
            "sweep folders state (those win)."
        ),
    )
    workload: str = pa.Field(
        nullable=True,
        description=(
            "What the run's measurements measured besides the load, as the files state it (dataset, input/output "
            "length targets, prompt count, tool settings), as JSON; measurements of one folder that differ here "
            "are separate runs, never repeats. Empty when the files state nothing."
        ),
    )
    arrival: str = pa.Field(
        isin=ARRIVALS, description="Arrival pattern: constant, poisson, gamma, concurrency or trace."
    )
    load_kind: str = pa.Field(
        isin=LOAD_KINDS, description=("How load levels are set: by request rate, or by concurrency.")
    )
    plan_id: str = pa.Field(
        nullable=True,
        description=(
            "The measurement plan the run measures (run.yaml's `plan`: plans/<plan_id>/plan.json in the warehouse), "
            "scored in calibrated.prospective_validation; empty for a run no plan asked for. Not part of the config: "
            "the run joins its config's other runs and fit."
        ),
    )
    load_points: int = pa.Field(ge=0, description="Load levels read for the run.")
    repeats_max: int = pa.Field(ge=0, description="Most repeats of any load level of the run.")
    requests: int = pa.Field(ge=0, description="Per-request records read for the run (0 when the dump has none).")
    formats: str = pa.Field(description="Dump formats the run's files were recognised as (comma-separated).")
    sidecar: str = pa.Field(description="run.yaml files that describe the run (shallowest first, joined by +).")
    report_dir: str = pa.Field(description="Folder holding the run's dump files.")
    source_sha256: str = pa.Field(description="SHA-256 over the checksums of the run's load-level files.")
    evidence: str = pa.Field(isin=["observed"], description="Evidence class of the row: observed.")

    class Config:
        strict = True
        coerce = True
