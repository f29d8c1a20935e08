-- projected.measured_fractions: the batching gap our own runs measured, which configs we never ran learn from.
-- One row per profile x delivered band of ours, from two sources:
--   observed    each run of the profile's model (observed.delivered_at_slo): the band it sustained as measured,
--               under the load tool's workload;
--   calibrated  each config of the profile's model (calibrated.delivered_at_slo): the band our traffic is
--               delivered at through the config's engine model (token rates = the band x our output tokens per
--               request: the mean of the profile's resolved workload, requirement.workload).
-- A band measures the gap when the MLPerf reference of its own accelerator and model, in the profile's scenario
-- (benchmark.mlperf_profile_reference), exists:
--   delivered_fraction_low/high = delivered output tokens/s low/high / accelerator_count
--                                 / the reference's tokens/s per accelerator
-- (normalised per accelerator on both sides: our run's accelerators and the MLPerf system's may differ).
-- learnt_from says whether projected.delivered_at_slo learns from the row: only a band that delivers (observed:
-- feasible; calibrated: status delivered from an engine model that bills) whose two fractions lie in (0.001, 1.5]
-- (the range a profile's delivered_fraction_prior may take). A config's calibrated band, where learnt from, stands
-- for its runs: the gap is applied to our traffic, and the band on our traffic is that gap, so the runs' observed
-- bands are then not learnt from (one config, one band). Any other row says why not in not_learnt_reason, never
-- dropped.
WITH calibrated_bands AS (
    SELECT c.profile, c.config_key, c.model_key AS model_id, c.accelerator_id, c.accelerator_count, c.status, c.bills,
           c.config_status, c.status_reason, c.delivered_requests_per_s_low, c.delivered_requests_per_s_high,
           w.output_tokens_mean,
           c.run_labels AS run_labels_json,
           (SELECT string_agg(label, ' + ' ORDER BY label)
            FROM unnest(from_json(c.run_labels, '["VARCHAR"]')) AS t(label)) AS run_labels
    FROM calibrated.delivered_at_slo AS c
    LEFT JOIN requirement.workload AS w ON w.profile = c.profile
),
delivered AS (
    SELECT profile, 'observed' AS source, run_id AS config_key, run_label AS run_labels, model_id,
           accelerator_id, accelerator_count, feasible,
           -- a bound the run's files never state is not measured, not missed: said apart from a miss
           CASE WHEN NOT feasible AND unmeasured_bounds IS NOT NULL
                    THEN 'the SLO bounds ' || unmeasured_bounds || ', which the run''s files do not measure: no band '
                        || 'measured, no fraction'
                WHEN NOT feasible THEN 'no load point meets the SLO: nothing delivered, no fraction' END
               AS not_delivered_reason,
           delivered_output_tokens_per_s_low AS output_tokens_per_s_low,
           delivered_output_tokens_per_s_high AS output_tokens_per_s_high
    FROM observed.delivered_at_slo
    UNION ALL
    SELECT profile, 'calibrated', config_key, run_labels, model_id, accelerator_id, accelerator_count,
           bills AND status = 'delivered',
           CASE WHEN status <> 'delivered'
                    THEN 'calibrated ' || status || coalesce(' (' || status_reason || ')', '')
                        || ': no band to learn from'
                WHEN NOT bills
                    THEN 'the engine model is ' || config_status || ': a band that may not bill is not learnt from' END,
           delivered_requests_per_s_low * output_tokens_mean,
           delivered_requests_per_s_high * output_tokens_mean
    FROM calibrated_bands
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
               WHEN NOT feasible THEN not_delivered_reason
               WHEN fraction_low IS NULL OR fraction_high IS NULL
                   THEN 'no delivered output tokens/s: no fraction'
               WHEN NOT (fraction_low > 0.001 AND fraction_low <= 1.5 AND fraction_high > 0.001
                         AND fraction_high <= 1.5)
                   THEN 'fraction ' || printf('%.4g', fraction_low) || ' - ' || printf('%.4g', fraction_high)
                       || ' outside (0.001, 1.5]: not learnt from (a unit or workload mismatch, not a batching gap)'
           END AS not_learnt_reason
    FROM fractions
),
-- a run whose config's calibrated band is learnt from
superseded AS (
    SELECT j.profile, unnest(from_json(c.run_labels_json, '["VARCHAR"]')) AS run_label, j.config_key
    FROM judged AS j
    JOIN calibrated_bands AS c ON c.profile = j.profile AND c.config_key = j.config_key
    WHERE j.source = 'calibrated' AND j.not_learnt_reason IS NULL
),
decided AS (
    SELECT j.* REPLACE (
               coalesce(j.not_learnt_reason,
                        CASE WHEN s.config_key IS NOT NULL
                             THEN 'its config''s band calibrated on our traffic (' || s.config_key
                                 || ') is learnt from instead: one config, one band' END) AS not_learnt_reason)
    FROM judged AS j
    LEFT JOIN superseded AS s ON j.source = 'observed' AND s.profile = j.profile AND s.run_label = j.run_labels
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
FROM decided
ORDER BY profile, source, accelerator_id, run_labels
