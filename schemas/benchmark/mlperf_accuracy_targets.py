"""benchmark.mlperf_accuracy_targets: the accuracy bounds MLPerf's submission checker sets per benchmark."""

import pandera.polars as pa


class MlperfAccuracyTargets(pa.DataFrameModel):
    """One bound of MLPerf's accuracy gate: a benchmark's metric must be at least (min) or at most (max)
    target_fraction x reference_value (99% or 99.9% of the reference model's accuracy; output length within
    90-110%), in the rounds first_round to last_round (assets/reference/mlperf_accuracy_targets.csv)."""

    benchmark: str = pa.Field(description="MLPerf benchmark as results name it, with its -99/-99.9 suffix.")
    metric: str = pa.Field(description="Accuracy metric as the published Accuracy string keys it (ROUGEL, acc).")
    bound: str = pa.Field(isin=["min", "max"], description="min: at least the target; max: at most.")
    reference_value: float = pa.Field(description="The reference implementation's figure.")
    target_fraction: float = pa.Field(gt=0, description="Fraction of the reference (0.99, 0.999; 0.9/1.1 for length).")
    target_value: float = pa.Field(description="reference_value x target_fraction: the bound itself.")
    first_round: str = pa.Field(description="First round the bound was read for.")
    last_round: str = pa.Field(description="Last round the bound was read for.")
    first_round_order: int = pa.Field(description="first_round as a sortable number (v5.1 = 501).")
    last_round_order: int = pa.Field(description="last_round as a sortable number.")
    note: str = pa.Field(nullable=True, description="What the bound means when not a plain 99%/99.9% target.")
    evidence: str = pa.Field(isin=["benchmark"], description="Evidence class: benchmark (MLCommons' own rule).")

    class Config:
        strict = True
        coerce = True
        unique = ["benchmark", "metric", "bound", "first_round"]
