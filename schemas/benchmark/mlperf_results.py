"""benchmark.mlperf_results: one canonical row per published MLPerf Inference result."""

import pandera.polars as pa

from schemas.vocab import SCENARIOS, UNITS

# The suites a result may belong to, one spelling per set (records.normalise_suite writes them).
SUITES = ["datacenter", "edge", "datacenter,edge"]


class MlperfResults(pa.DataFrameModel):
    """One published MLPerf Inference result (round x division x submitter x system x model x
    scenario), with the unit corrected, the per-accelerator value, canonical accelerator and model
    ids, and the file or URL it was read from."""

    result_key: str = pa.Field(
        unique=True,
        description=("Stable key of the result: round/division/suite/submitter/platform/used_model/scenario."),
    )
    round: str = pa.Field(str_matches=r"^v\d+\.\d+$", description="MLPerf Inference round, e.g. v5.1.")
    round_order: int = pa.Field(ge=0, description="Sortable number of the round (v5.1 sorts after v4.1).")
    mlperf_id: str = pa.Field(nullable=True, description="MLCommons' result id as published (e.g. 5.1-0042).")
    division: str = pa.Field(
        isin=["closed", "open", "network"],
        description=("closed (fixed model and rules, comparable), open (changes allowed) or network."),
    )
    suite: str = pa.Field(
        isin=SUITES,
        description=(
            "Benchmark suite: datacenter, edge, or datacenter,edge for a system submitted to both (published "
            "as datacenter,edge, edge,datacenter or capitalised; one spelling here)."
        ),
    )
    submitter: str = pa.Field(description="Organisation that submitted the result.")
    availability: str = pa.Field(
        nullable=True, description=("available, preview or rdi (research, development, internal) as published.")
    )
    platform: str = pa.Field(description="Submitter's system id (the systems/<platform>.json name).")
    system_name: str = pa.Field(nullable=True, description="System description as published.")
    used_model: str = pa.Field(
        description=("Model name the submitter ran (equals mlperf_model unless the table says otherwise).")
    )
    mlperf_model: str = pa.Field(description="MLPerf benchmark model name, e.g. llama3.1-8b or llama2-70b-99.")
    model_id: str = pa.Field(
        nullable=True,
        description=("Canonical model id from assets/reference/models.csv; empty when the name is unknown."),
    )
    model_known: bool = pa.Field(description="True when mlperf_model matched a canonical model id.")
    accuracy_target: str = pa.Field(
        nullable=True,
        isin=["99", "99.9"],
        description=(
            "Accuracy target from the model's -99 / -99.9 suffix (% of the reference accuracy); empty when none."
        ),
    )
    dataset: str = pa.Field(nullable=True, description="Data set the benchmark runs, from mlperf_workloads.csv.")
    scenario: str = pa.Field(
        isin=SCENARIOS,
        description=(
            "LoadGen scenario: Offline (all queries at once, an upper bound), Server (Poisson arrivals under "
            "a latency bound), Interactive (Server with tighter LLM latency bounds), SingleStream, MultiStream."
        ),
    )
    result_value: float = pa.Field(
        gt=0, lt=1e12, description=("Published performance result of the whole system, in result_unit.")
    )
    result_unit: str = pa.Field(
        isin=UNITS, description=("Unit of result_value after correction by assets/reference/mlperf_units.csv.")
    )
    result_unit_raw: str = pa.Field(nullable=True, description="Unit as published (Performance_Units).")
    unit_corrected: bool = pa.Field(description="True when the published unit was mislabelled and corrected.")
    unit_rule: str = pa.Field(nullable=True, description="Note of the unit rule that applied, when one did.")
    result_field: str = pa.Field(
        nullable=True,
        description=("LoadGen log field the result was taken from (e.g. result_tokens_per_second), when known."),
    )
    metric_kind: str = pa.Field(
        isin=["throughput", "latency"], description=("throughput (higher is better) or latency (lower is better).")
    )
    result_per_accelerator: float = pa.Field(
        nullable=True,
        gt=0,
        description=(
            "Throughput per accelerator: result_value / accelerator_count, in result_unit; empty for latency "
            "results and CPU-only systems."
        ),
    )
    tokens_per_s: float = pa.Field(
        nullable=True, gt=0, description=("Whole-system tokens per second, when result_unit is tokens/s.")
    )
    tokens_per_s_per_accel: float = pa.Field(
        nullable=True, gt=0, description=("Tokens per second per accelerator, when result_unit is tokens/s.")
    )
    accelerator_raw: str = pa.Field(
        nullable=True, description="Accelerator name as published (None, N/A, - or empty on CPU-only systems)."
    )
    accelerator_id: str = pa.Field(
        nullable=True,
        description=(
            "Canonical accelerator id from assets/reference/accelerators.csv; empty when unknown or CPU-only."
        ),
    )
    accelerator_known: bool = pa.Field(description="True when accelerator_raw matched a canonical accelerator.")
    is_cpu_only: bool = pa.Field(
        description=(
            "True for systems without accelerators: no accelerator per node, and the accelerator named "
            "empty, None, N/A or - (any case)."
        )
    )
    accelerators_per_node: int = pa.Field(
        nullable=True, ge=0, le=100000, description=("Accelerators per node as published (a#).")
    )
    nodes: int = pa.Field(nullable=True, ge=1, le=100000, description="Number of nodes in the system, when published.")
    accelerator_count: int = pa.Field(
        nullable=True, ge=0, le=1000000, description=("nodes x accelerators_per_node (0 for CPU-only systems).")
    )
    processor: str = pa.Field(nullable=True, description="Host processor as published.")
    software: str = pa.Field(nullable=True, description="Software stack as published.")
    runtime: str = pa.Field(nullable=True, description="Inference runtime recognised in software (e.g. vLLM).")
    runtime_version: str = pa.Field(nullable=True, description="Version of runtime recognised in software.")
    operating_system: str = pa.Field(nullable=True, description="Operating system as published.")
    precision_raw: str = pa.Field(nullable=True, description="Weight data types as published.")
    precision: str = pa.Field(
        nullable=True,
        description=(
            "Normalised weight precisions: one token (fp8) or, when the weights mix precisions, every distinct "
            "one as a comma list widest first (fp16,fp8,int8: the narrowest is the last). Empty when "
            "precision_raw is empty, UNSET, or holds a token the vocabulary does not know (precision_raw keeps it)."
        ),
    )
    accuracy_raw: str = pa.Field(nullable=True, description="Accuracy as published (e.g. ROUGE1: 44.45 ...).")
    accuracy_json: str = pa.Field(nullable=True, description="Accuracy parsed into a JSON object of metric: value.")
    inferred: bool = pa.Field(description="True when MLCommons marks the result as inferred rather than measured.")
    has_power: bool = pa.Field(description="True when the result comes with a power measurement.")
    power_value: float = pa.Field(nullable=True, ge=0, description="Power result, in power_unit.")
    power_unit: str = pa.Field(nullable=True, description="Unit of power_value as published.")
    details_url: str = pa.Field(nullable=True, description="MLCommons page with the result's details.")
    source_format: str = pa.Field(description="Format the row was read from (e.g. summary_results_json).")
    source: str = pa.Field(description="File path or URL the row was read from.")
    source_sha256: str = pa.Field(
        str_length={"min_value": 64, "max_value": 64}, description=("SHA-256 of the source file's bytes.")
    )
    source_commit: str = pa.Field(nullable=True, description="Git commit named in the source URL, if any.")
    source_row: int = pa.Field(ge=0, description="Position of the record in the source (0-based).")
    source_location: str = pa.Field(
        description=(
            "Where in the source the result is: record N, sheet and row, or the file within a submission tree."
        )
    )
    plausible: bool = pa.Field(
        description=(
            "False when the result's per-accelerator figure cannot be trusted (implausible_reason says why): the "
            "system name states another count of the accelerator than the result declares, or the "
            "per-accelerator value is more than 5x from the median of at least 3 peers of the same round, "
            "division, accelerator, benchmark and scenario with none within 2x of it (assets/formats/mlperf/"
            "plausibility.py). Kept here; never a reference nor in round-over-round."
        )
    )
    implausible_reason: str = pa.Field(nullable=True, description="Why the result is not plausible; empty when it is.")
    official: bool = pa.Field(
        description=(
            "False for results that are not a published round's: read from an unofficial/test submissions "
            "source (MLCommons' automation tests, e.g. mlperf_inference_unofficial_submissions_v5.0) or linking to "
            "another round's repository. Kept here; never a reference nor in round-over-round."
        )
    )
    unofficial_reason: str = pa.Field(
        nullable=True, description="Why the result is not official (the source or link that tells); empty when it is."
    )
    evidence: str = pa.Field(
        isin=["benchmark"],
        description=("Evidence class of the row: benchmark (published, auditable reference numbers)."),
    )

    class Config:
        strict = True
        coerce = True
