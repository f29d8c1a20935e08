-- analytics.engine_models: per config (everything but the workload and the load generator's settings), the
-- calibrated engine model fitted on its own load levels: step costs, caps, what it was fitted on, its fit and
-- held-out error, and whether it may be used (status; the reason in words).
--
-- Columns described on: calibrated.engine_models
SELECT
    config_key, config_label, status, status_reason, accelerator_id, accelerator_count, model_id, model_key,
    precision,
    runtime, runtime_version, engine_settings, run_labels, workloads, load_levels, saturated_levels, metrics_measured,
    measured_tokens_per_s_max,
    scheduling, chunked_prefill, replicas, step_b0_ms, step_b1_ms_per_prefill_token, step_b2_ms_per_decode_token,
    step_b3_ms_per_prefill_token_per_1k_context, request_overhead_ms, token_budget_per_step,
    max_running_sequences, kv_cache_tokens, fit_rel_error_median, fit_rel_error_worst,
    heldout_rel_error_median, heldout_rel_error_worst, heldout_ttft_p95_below_knee_rel_error_median,
    heldout_delivered_at_slo_rel_error_worst, workloads_fitted, load_levels_fitted, fit_notes
FROM calibrated.engine_models
ORDER BY status, config_label
