-- analytics.delivered_at_slo: per profile and config, the throughput delivered within the
-- profile's SLO as a low-high band: observed for our runs, projected (MLPerf Server x the
-- fraction our runs measured against MLPerf, else the profile's prior) for accelerators we have not measured.
--
-- Columns described on: observed.delivered_at_slo, projected.delivered_at_slo
-- column evidence: observed (measured on our run) or projected (MLPerf x the fraction our runs measured, else the profile's prior).
-- column config_key: The config's key: the run_id of our run (observed), or mlperf:<result_key> of the MLPerf Server result projected from (projected).
-- column delivered_output_tokens_per_s_per_accel_low: Delivered output tokens/s per accelerator, low end.
-- column delivered_output_tokens_per_s_per_accel_high: Delivered output tokens/s per accelerator, high end.
SELECT
    profile, 'observed' AS evidence, run_id AS config_key, run_label, model_id, accelerator_id,
    accelerator_count, precision, runtime, runtime_version, feasible, slo_crossed, binding_measure,
    delivered_requests_per_s_low, delivered_requests_per_s_high,
    delivered_output_tokens_per_s_low, delivered_output_tokens_per_s_high,
    delivered_output_tokens_per_s_low / accelerator_count AS delivered_output_tokens_per_s_per_accel_low,
    delivered_output_tokens_per_s_high / accelerator_count AS delivered_output_tokens_per_s_per_accel_high,
    unmeasured_bounds, method
FROM observed.delivered_at_slo
UNION ALL
SELECT
    profile, 'projected', 'mlperf:' || mlperf_result_key, NULL, model_id, accelerator_id,
    accelerator_count, precision, runtime, runtime_version, true, NULL, NULL,
    delivered_requests_per_s_low, delivered_requests_per_s_high,
    delivered_output_tokens_per_s_low, delivered_output_tokens_per_s_high,
    delivered_output_tokens_per_s_low / accelerator_count,
    delivered_output_tokens_per_s_high / accelerator_count,
    NULL, method
FROM projected.delivered_at_slo
ORDER BY profile, evidence, accelerator_id, run_label
