-- projected.measured_fractions: the batching gap our own runs measured, which configs we never ran learn from.
-- One row per profile x delivered band of ours (observed.delivered_at_slo: every run of the profile's model);
-- a band measures the gap when the MLPerf reference of its own accelerator and model, in the profile's scenario
-- (benchmark.mlperf_profile_reference), exists:
--   delivered_fraction_low/high = delivered output tokens/s low/high / accelerator_count
--                                 / the reference's tokens/s per accelerator
-- (normalised per accelerator on both sides: our run's accelerators and the MLPerf system's may differ).
-- learnt_from says whether projected.delivered_at_slo learns from the row: only a feasible band whose two
-- fractions lie in (0.001, 1.5] (the range a profile's delivered_fraction_prior may take); any other row
-- says why not in not_learnt_reason, never dropped.
--
-- The bands come from one union arm per source (`delivered` below); a source with the same columns (the
-- calibrated delivered-at-SLO on our traffic) is one more arm, with its own `source` (a word of
-- schemas/vocab.py DELIVERED_SOURCES), e.g.
--     UNION ALL
--     SELECT profile, 'calibrated', config_key, run_labels, model_id, accelerator_id, accelerator_count,
--            <its band exists>, <output tokens/s low>, <output tokens/s high>
--     FROM calibrated.delivered_at_slo
WITH delivered AS (
    SELECT profile, 'observed' AS source, run_id AS config_key, run_label AS run_labels, model_id,
           accelerator_id, accelerator_count, feasible,
           delivered_output_tokens_per_s_low AS output_tokens_per_s_low,
           delivered_output_tokens_per_s_high AS output_tokens_per_s_high
    FROM observed.delivered_at_slo
),
fractions AS (
    SELECT d.*, pr.reference_result_key, pr.reference_scenario, pr.reference_tokens_per_s_per_accel,
           d.output_tokens_per_s_low / d.accelerator_count / pr.reference_tokens_per_s_per_accel
               AS fraction_low,
           d.output_tokens_per_s_high / d.accelerator_count / pr.reference_tokens_per_s_per_accel
               AS fraction_high
    FROM delivered AS d
    LEFT JOIN benchmark.mlperf_profile_reference AS pr
        ON pr.profile = d.profile AND pr.accelerator_id = d.accelerator_id AND pr.model_id = d.model_id
),
judged AS (
    SELECT *,
           CASE
               WHEN accelerator_id IS NULL
                   THEN 'accelerator unknown to the alias table: no MLPerf reference to divide by'
               WHEN reference_result_key IS NULL
                   THEN 'no MLPerf reference of ' || accelerator_id || ' and ' || model_id
                       || ': this band measures no gap'
               WHEN NOT feasible THEN 'no load point meets the SLO: nothing delivered, no fraction'
               WHEN fraction_low IS NULL OR fraction_high IS NULL
                   THEN 'no delivered output tokens/s: no fraction'
               WHEN NOT (fraction_low > 0.001 AND fraction_low <= 1.5 AND fraction_high > 0.001
                         AND fraction_high <= 1.5)
                   THEN 'fraction ' || printf('%.4g', fraction_low) || ' - ' || printf('%.4g', fraction_high)
                       || ' outside (0.001, 1.5]: not learnt from (a unit or workload mismatch, not a batching gap)'
           END AS not_learnt_reason
    FROM fractions
)
SELECT
    profile,
    source,
    config_key,
    run_labels,
    model_id,
    accelerator_id,
    accelerator_count,
    reference_result_key AS mlperf_result_key,
    reference_scenario,
    reference_tokens_per_s_per_accel,
    output_tokens_per_s_low AS delivered_output_tokens_per_s_low,
    output_tokens_per_s_high AS delivered_output_tokens_per_s_high,
    fraction_low AS delivered_fraction_low,
    fraction_high AS delivered_fraction_high,
    not_learnt_reason IS NULL AS learnt_from,
    not_learnt_reason
FROM judged
ORDER BY profile, source, accelerator_id, run_labels
