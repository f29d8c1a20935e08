"""benchmark.mlperf_round_over_round: the best result of an accelerator x benchmark x scenario per
round, and how it moved against the previous and first rounds (speedup > 1 is better)."""

import pandera.polars as pa

from schemas.mlperf_results import SCENARIOS, UNITS


class MlperfRoundOverRound(pa.DataFrameModel):
    accelerator_id: str
    model_id: str = pa.Field(nullable=True)
    mlperf_model: str
    scenario: str = pa.Field(isin=SCENARIOS)
    result_unit: str = pa.Field(isin=UNITS)
    metric_kind: str = pa.Field(isin=["throughput", "latency"])
    round: str = pa.Field(str_matches=r"^v\d+\.\d+$")
    round_order: int
    best_value: float = pa.Field(gt=0)
    value_basis: str = pa.Field(isin=["per accelerator", "system latency"])
    results_in_round: int = pa.Field(ge=1)
    submitter: str
    platform: str
    system_name: str = pa.Field(nullable=True)
    total_accelerators: int = pa.Field(nullable=True, ge=0)
    software: str = pa.Field(nullable=True)
    runtime: str = pa.Field(nullable=True)
    runtime_version: str = pa.Field(nullable=True)
    precision: str = pa.Field(nullable=True)
    result_key: str
    previous_round: str = pa.Field(nullable=True)
    previous_value: float = pa.Field(nullable=True, gt=0)
    speedup_vs_previous: float = pa.Field(nullable=True, gt=0)
    first_round: str
    speedup_vs_first: float = pa.Field(gt=0)
    rounds_with_results: int = pa.Field(ge=1)
    evidence: str = pa.Field(isin=["benchmark"])

    class Config:
        strict = True
        coerce = True
