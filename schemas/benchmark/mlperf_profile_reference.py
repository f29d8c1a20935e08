"""benchmark.mlperf_profile_reference: per profile and accelerator, the MLPerf scenario (Server or Interactive)
the profile is compared with, and why."""

import pandera.polars as pa


class MlperfProfileReference(pa.DataFrameModel):
    """Per profile x MLPerf reference of its model (benchmark.mlperf_reference): the scenario whose latency
    bounds are closest to the profile's SLO without being tighter (Interactive when the profile is at least as
    strict bound by bound and a result exists, else Server), its number, and both scenarios' columns."""

    profile: str = pa.Field(description="Profile the reference is chosen for.")
    model_id: str = pa.Field(description="Canonical model id.")
    accelerator_id: str = pa.Field(description="Canonical accelerator id of the reference system.")
    reference_scenario: str = pa.Field(
        isin=["Server", "Interactive"], description="MLPerf scenario the profile is compared with."
    )
    reference_result_key: str = pa.Field(description="result_key of that scenario's result (benchmark.mlperf_results).")
    reference_tokens_per_s_per_accel: float = pa.Field(
        gt=0, description="That result's tokens/s per accelerator: the ceiling the profile is compared with."
    )
    reference_reason: str = pa.Field(
        description="Why this scenario: the profile's TTFT and TPOT bounds against Interactive's, bound by bound."
    )
    profile_ttft_bound_ms: float = pa.Field(nullable=True, gt=0, description="The profile's tightest TTFT bound, ms.")
    profile_ttft_measure: str = pa.Field(nullable=True, description="Which TTFT percentile that bound is on.")
    profile_tpot_bound_ms: float = pa.Field(nullable=True, gt=0, description="The profile's tightest TPOT bound, ms.")
    profile_tpot_measure: str = pa.Field(nullable=True, description="Which TPOT percentile that bound is on.")
    server_result_key: str = pa.Field(description="result_key of the Server result.")
    server_tokens_per_s_per_accel: float = pa.Field(gt=0, description="MLPerf Server tokens/s per accelerator.")
    server_ttft_p99_ms: float = pa.Field(
        nullable=True, gt=0, description="MLPerf Server's p99 TTFT bound, ms (MLPerf's rules, per model)."
    )
    server_tpot_p99_ms: float = pa.Field(nullable=True, gt=0, description="MLPerf Server's p99 TPOT bound, ms.")
    interactive_result_key: str = pa.Field(
        nullable=True, description="result_key of the same system's Interactive result."
    )
    interactive_tokens_per_s_per_accel: float = pa.Field(
        nullable=True, gt=0, description="Same system's MLPerf Interactive tokens/s per accelerator."
    )
    interactive_ttft_p99_ms: float = pa.Field(
        nullable=True, gt=0, description="MLPerf Interactive's p99 TTFT bound, ms."
    )
    interactive_tpot_p99_ms: float = pa.Field(
        nullable=True, gt=0, description="MLPerf Interactive's p99 TPOT bound, ms."
    )
    evidence: str = pa.Field(isin=["benchmark"], description="Evidence class of the row: benchmark.")

    class Config:
        strict = True
        coerce = True
        unique = ["profile", "accelerator_id"]
