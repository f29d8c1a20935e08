"""benchmark.mlperf_round_over_round: the best result of an accelerator x benchmark x scenario per
round, and how it moved against the previous and first rounds (speedup > 1 is better)."""

import pandera.polars as pa

from schemas.vocab import SCENARIOS, UNITS


class MlperfRoundOverRound(pa.DataFrameModel):
    """Per accelerator x MLPerf benchmark x scenario x round: the best result (per accelerator for
    throughput, the system's for latency), who submitted it, and the speedup against the previous
    and the first round with a result (software gains show here)."""

    accelerator_id: str = pa.Field(description="Canonical accelerator id.")
    model_id: str = pa.Field(nullable=True, description="Canonical model id; empty when unknown.")
    mlperf_model: str = pa.Field(description="MLPerf benchmark model name.")
    scenario: str = pa.Field(isin=SCENARIOS, description="LoadGen scenario.")
    result_unit: str = pa.Field(isin=UNITS, description="Unit of the result.")
    metric_kind: str = pa.Field(isin=["throughput", "latency"], description="throughput or latency.")
    round: str = pa.Field(str_matches=r"^v\d+\.\d+$", description="MLPerf round.")
    round_order: int = pa.Field(description="Sortable number of the round.")
    best_value: float = pa.Field(gt=0, description="Best result in the round, on value_basis, in result_unit.")
    value_basis: str = pa.Field(
        isin=["per accelerator", "system latency"],
        description=("per accelerator (throughput / accelerators) or system latency."),
    )
    results_in_round: int = pa.Field(ge=1, description="Results of the round for this accelerator, model and scenario.")
    submitter: str = pa.Field(description="Submitter of the best result.")
    platform: str = pa.Field(description="System id of the best result.")
    system_name: str = pa.Field(nullable=True, description="System description of the best result.")
    accelerator_count: int = pa.Field(nullable=True, ge=0, description="Accelerators in that system.")
    software: str = pa.Field(nullable=True, description="Software stack of the best result.")
    runtime: str = pa.Field(nullable=True, description="Inference runtime recognised in software.")
    runtime_version: str = pa.Field(nullable=True, description="Version of the runtime.")
    precision: str = pa.Field(nullable=True, description="Normalised weight precision of the best result.")
    result_key: str = pa.Field(description="result_key of the best result in benchmark.mlperf_results.")
    previous_round: str = pa.Field(nullable=True, description="The previous round with a result, if any.")
    previous_value: float = pa.Field(nullable=True, gt=0, description="Best value in the previous round.")
    speedup_vs_previous: float = pa.Field(
        nullable=True,
        gt=0,
        description=("Improvement over the previous round (> 1 is better, for throughput and latency alike)."),
    )
    first_round: str = pa.Field(description="The first round with a result.")
    speedup_vs_first: float = pa.Field(gt=0, description="Improvement over the first round (> 1 is better).")
    rounds_with_results: int = pa.Field(
        ge=1, description="Rounds with a result for this accelerator, model and scenario."
    )
    evidence: str = pa.Field(isin=["benchmark"], description="Evidence class of the row: benchmark.")

    class Config:
        strict = True
        coerce = True
