"""benchmark.mlperf_accuracy: per MLPerf result and accuracy metric, the value and MLPerf's own target."""

import pandera.polars as pa

from schemas.vocab import SCENARIOS


class MlperfAccuracy(pa.DataFrameModel):
    """Per MLPerf result x accuracy metric x bound: the accuracy it published and the bound MLPerf's checker
    set (99% / 99.9% of the reference; output length within 90-110%). MLPerf's task at MLPerf's target:
    never our own task's quality (observed.quality)."""

    result_key: str = pa.Field(description="The result (benchmark.mlperf_results.result_key).")
    round: str = pa.Field(description="MLPerf round.")
    division: str = pa.Field(description="closed, open or network.")
    submitter: str = pa.Field(description="Organisation that submitted the result.")
    platform: str = pa.Field(description="Submitter's system id.")
    mlperf_model: str = pa.Field(description="MLPerf benchmark, with its -99/-99.9 suffix.")
    model_id: str = pa.Field(nullable=True, description="Canonical model id.")
    accuracy_target: str = pa.Field(nullable=True, description="99 or 99.9 (% of the reference), from the name.")
    scenario: str = pa.Field(isin=SCENARIOS, description="LoadGen scenario of the result.")
    precision: str = pa.Field(nullable=True, description="Weight precision of the result.")
    metric: str = pa.Field(description="Accuracy metric as published (ROUGEL, TOKENS_PER_SAMPLE, acc).")
    value: float = pa.Field(nullable=True, description="Its published value (empty when not a number).")
    bound: str = pa.Field(nullable=True, isin=["min", "max"], description="min: at least target_value; max: at most.")
    reference_value: float = pa.Field(nullable=True, description="The reference implementation's figure.")
    target_fraction: float = pa.Field(nullable=True, description="Fraction of the reference the bound is.")
    target_value: float = pa.Field(nullable=True, description="The bound: reference_value x target_fraction.")
    within_target: bool = pa.Field(nullable=True, description="True when the value is on the right side of the bound.")
    evidence: str = pa.Field(isin=["benchmark"], description="Evidence class: benchmark.")

    class Config:
        strict = True
        coerce = True
