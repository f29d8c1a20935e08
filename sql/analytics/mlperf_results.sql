-- analytics.mlperf_results: published MLPerf Inference results (benchmark evidence), one row per
-- result, with the columns most analyses need; benchmark.mlperf_results has every column.
--
-- Columns described on: benchmark.mlperf_results
SELECT
    round,
    division,
    submitter,
    system_name,
    platform,
    accelerator_id,
    accelerator_raw,
    accelerator_count,
    mlperf_model,
    model_id,
    accuracy_target,
    scenario,
    result_value,
    result_unit,
    result_per_accelerator,
    tokens_per_s_per_accel,
    precision,
    software,
    runtime,
    runtime_version,
    availability,
    inferred,
    unit_corrected,
    plausible,
    implausible_reason,
    official,
    unofficial_reason,
    result_key,
    source,
    source_row,
    details_url,
    evidence
FROM benchmark.mlperf_results
ORDER BY round_order DESC, mlperf_model, scenario, result_per_accelerator DESC NULLS LAST
