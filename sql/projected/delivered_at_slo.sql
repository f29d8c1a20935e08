-- projected.delivered_at_slo: for each profile and MLPerf reference of the same model on an accelerator
-- we have no run of our own for, the MLPerf tokens/s x the profile's delivered-fraction prior; the MLPerf
-- scenario is the one that matches the profile (benchmark.mlperf_profile_reference: Interactive when the
-- profile is at least as strict as Interactive's bounds and a result exists, else Server).
--
-- Requests/s need output tokens per request: the profile's workload if given, else the mean of its traffic log
-- (requirement.traffic_shape), else the reference result's TOKENS_PER_SAMPLE; with none, requests/s (and cost per
-- request) stay empty.
WITH candidates AS (
    SELECT
        p.profile,
        ref.model_id,
        ref.accelerator_id,
        ref.total_accelerators AS accelerator_count,
        ref.precision,
        ref.runtime,
        ref.runtime_version,
        pr.reference_result_key AS mlperf_result_key,
        pr.reference_scenario,
        pr.reference_tokens_per_s_per_accel,
        ref.server_tokens_per_s_per_accel,
        p.delivered_fraction_prior_lo,
        p.delivered_fraction_prior_hi,
        coalesce(p.output_tokens_mean, t.output_tokens_mean, ref.output_tokens_per_sample) AS output_tokens_per_request,
        CASE
            WHEN p.output_tokens_mean IS NOT NULL THEN 'profile workload.output_tokens_mean'
            WHEN t.output_tokens_mean IS NOT NULL THEN 'mean output tokens of the profile''s traffic log'
            WHEN ref.output_tokens_per_sample IS NOT NULL THEN 'MLPerf TOKENS_PER_SAMPLE of the reference result'
        END AS output_tokens_basis,
        pr.reference_tokens_per_s_per_accel * ref.total_accelerators * p.delivered_fraction_prior_lo
            AS delivered_output_tokens_per_s_low,
        pr.reference_tokens_per_s_per_accel * ref.total_accelerators * p.delivered_fraction_prior_hi
            AS delivered_output_tokens_per_s_high
    FROM requirement.profiles AS p
    JOIN benchmark.mlperf_reference AS ref ON ref.model_id = p.model_id
    LEFT JOIN requirement.traffic_shape AS t ON t.profile = p.profile
    JOIN benchmark.mlperf_profile_reference AS pr
        ON pr.profile = p.profile AND pr.accelerator_id = ref.accelerator_id AND pr.model_id = ref.model_id
    WHERE NOT EXISTS (
        SELECT 1
        FROM observed.delivered_at_slo AS d
        WHERE d.profile = p.profile AND d.accelerator_id = ref.accelerator_id
    )
)
SELECT
    profile,
    model_id,
    accelerator_id,
    accelerator_count,
    precision,
    runtime,
    runtime_version,
    mlperf_result_key,
    reference_scenario,
    reference_tokens_per_s_per_accel,
    server_tokens_per_s_per_accel,
    delivered_fraction_prior_lo,
    delivered_fraction_prior_hi,
    output_tokens_per_request,
    output_tokens_basis,
    delivered_output_tokens_per_s_low / output_tokens_per_request AS delivered_requests_per_s_low,
    delivered_output_tokens_per_s_high / output_tokens_per_request AS delivered_requests_per_s_high,
    delivered_output_tokens_per_s_low,
    delivered_output_tokens_per_s_high,
    'MLPerf ' || reference_scenario || ' tokens/s per accelerator x delivered-fraction prior [lo, hi]; requests/s = tokens/s / '
        || coalesce(output_tokens_basis, 'unknown output tokens per request') AS method,
    'projected' AS evidence
FROM candidates
ORDER BY profile, accelerator_id
