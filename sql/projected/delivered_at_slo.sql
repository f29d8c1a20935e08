-- projected.delivered_at_slo: for each profile and MLPerf reference of the same model on an accelerator
-- we have no run of our own for, the MLPerf tokens/s x a delivered fraction [low, high]; the MLPerf
-- scenario is the one that matches the profile (benchmark.mlperf_profile_reference: Interactive when the
-- profile is at least as strict as Interactive's bounds and a result exists, else Server).
--
-- The fraction is learnt from our own bands where they measure the gap (projected.measured_fractions: the
-- profile's bands, measured as run or calibrated on our traffic, on an accelerator with an MLPerf reference of the
-- same model, each fraction in (0.001, 1.5]): low = the least of their low fractions, high = the greatest of their
-- high fractions, over every accelerator we ran (one band: its own low and high). Where none measures it, the
-- profile's delivered_fraction_prior. delivered_fraction_basis says which, on which bands, and which bands were not
-- learnt from and why.
--
-- Requests/s need output tokens per request: the mean of the profile's resolved workload (requirement.workload: the
-- one token mix every evidence class reads), else, for a profile that states no output lengths at all, the
-- reference result's TOKENS_PER_SAMPLE (labelled in output_tokens_basis); with neither, requests/s (and cost per
-- request) stay empty.
WITH learnt AS (
    SELECT profile,
           min(delivered_fraction_low) FILTER (WHERE learnt_from) AS fraction_low,
           max(delivered_fraction_high) FILTER (WHERE learnt_from) AS fraction_high,
           count(*) FILTER (WHERE learnt_from) AS runs,
           string_agg(run_labels || CASE WHEN source = 'calibrated' THEN ' calibrated on our traffic' ELSE '' END
                          || ' on ' || accelerator_id || ' ' || printf('%.3f', delivered_fraction_low)
                          || '-' || printf('%.3f', delivered_fraction_high), ', ' ORDER BY accelerator_id, run_labels)
               FILTER (WHERE learnt_from) AS learnt_bands,
           string_agg(run_labels || CASE WHEN source = 'calibrated' THEN ' calibrated' ELSE '' END || ' ('
                          || not_learnt_reason || ')', ', ' ORDER BY accelerator_id, run_labels, source)
               FILTER (WHERE NOT learnt_from AND mlperf_result_key IS NOT NULL) AS refused_bands
    FROM projected.measured_fractions
    GROUP BY profile
),
fractions AS (
    SELECT p.profile, p.model_id, p.delivered_fraction_prior_low, p.delivered_fraction_prior_high,
           coalesce(l.runs, 0) AS runs,
           CASE WHEN l.runs > 0 THEN l.fraction_low ELSE p.delivered_fraction_prior_low END AS fraction_low,
           CASE WHEN l.runs > 0 THEN l.fraction_high ELSE p.delivered_fraction_prior_high END AS fraction_high,
           CASE
               WHEN l.runs > 0
                   THEN 'learnt from ' || l.runs || CASE WHEN l.runs = 1 THEN ' band' ELSE ' bands' END || ' of ours ('
                       || l.learnt_bands || '; delivered / MLPerf of the same accelerator and model): '
                       || CASE WHEN l.runs = 1 THEN 'one band, so min and max are its own, no spread across configs'
                               ELSE 'min of their low ends to max of their high ends' END
               WHEN l.refused_bands IS NOT NULL
                   THEN 'prior [' || p.delivered_fraction_prior_low || ', ' || p.delivered_fraction_prior_high
                       || '] of the profile: no band of ours is learnt from'
               ELSE 'prior [' || p.delivered_fraction_prior_low || ', ' || p.delivered_fraction_prior_high
                   || '] of the profile: no run of ours shares an accelerator and model with an MLPerf reference'
           END || coalesce('; not learnt from: ' || l.refused_bands, '') AS delivered_fraction_basis
    FROM requirement.profiles AS p
    LEFT JOIN learnt AS l ON l.profile = p.profile
),
candidates AS (
    SELECT
        p.profile,
        ref.model_id,
        ref.accelerator_id,
        ref.accelerator_count,
        ref.precision,
        ref.runtime,
        ref.runtime_version,
        pr.reference_result_key AS mlperf_result_key,
        pr.reference_scenario,
        pr.reference_tokens_per_s_per_accel,
        ref.server_tokens_per_s_per_accel,
        p.delivered_fraction_prior_low,
        p.delivered_fraction_prior_high,
        p.fraction_low AS delivered_fraction_low,
        p.fraction_high AS delivered_fraction_high,
        p.runs AS delivered_fraction_runs,
        p.delivered_fraction_basis,
        coalesce(w.output_tokens_mean, ref.output_tokens_per_sample) AS output_tokens_per_request,
        CASE
            WHEN w.output_tokens_mean IS NOT NULL
                THEN 'the workload''s output mean (' || printf('%.1f', w.output_tokens_mean) || ' tokens; '
                    || w.lengths_basis || ')'
            WHEN ref.output_tokens_per_sample IS NOT NULL
                THEN 'MLPerf TOKENS_PER_SAMPLE of the reference result (fallback: the profile states no output lengths)'
        END AS output_tokens_basis,
        pr.reference_tokens_per_s_per_accel * ref.accelerator_count * p.fraction_low
            AS delivered_output_tokens_per_s_low,
        pr.reference_tokens_per_s_per_accel * ref.accelerator_count * p.fraction_high
            AS delivered_output_tokens_per_s_high
    FROM fractions AS p
    JOIN benchmark.mlperf_reference AS ref ON ref.model_id = p.model_id
    LEFT JOIN requirement.workload AS w ON w.profile = p.profile
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
    delivered_fraction_prior_low,
    delivered_fraction_prior_high,
    delivered_fraction_low,
    delivered_fraction_high,
    delivered_fraction_runs,
    delivered_fraction_basis,
    output_tokens_per_request,
    output_tokens_basis,
    delivered_output_tokens_per_s_low / output_tokens_per_request AS delivered_requests_per_s_low,
    delivered_output_tokens_per_s_high / output_tokens_per_request AS delivered_requests_per_s_high,
    delivered_output_tokens_per_s_low,
    delivered_output_tokens_per_s_high,
    'MLPerf ' || reference_scenario || ' tokens/s per accelerator x delivered fraction [low, high] ('
        || CASE WHEN delivered_fraction_runs > 0 THEN 'learnt from ' || delivered_fraction_runs || ' of our bands'
                ELSE 'the profile''s prior' END || '); requests/s = tokens/s / '
        || coalesce(output_tokens_basis, 'unknown output tokens per request') AS method,
    'projected' AS evidence
FROM candidates
ORDER BY profile, accelerator_id
