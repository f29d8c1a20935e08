-- A projected band applies the fraction its profile's runs measured (the least low and greatest high fraction of
-- the bands learnt from, as many as delivered_fraction_runs), else the profile's prior; and the band is the MLPerf
-- reference x its accelerators x that fraction.
--
-- blocking: true
-- Projected rows whose fraction or run count differs from the bands learnt from (or the prior), or whose band is
-- not reference x accelerators x fraction.
WITH learnt AS (
    SELECT profile, min(delivered_fraction_low) AS low, max(delivered_fraction_high) AS high, count(*) AS runs
    FROM projected.measured_fractions
    WHERE learnt_from
    GROUP BY profile
)
SELECT p.profile, p.accelerator_id, p.delivered_fraction_low, p.delivered_fraction_high, p.delivered_fraction_runs,
       l.low AS learnt_low, l.high AS learnt_high, l.runs AS learnt_runs
FROM projected.delivered_at_slo AS p
LEFT JOIN learnt AS l ON l.profile = p.profile
WHERE p.delivered_fraction_runs IS DISTINCT FROM coalesce(l.runs, 0)
   OR abs(p.delivered_fraction_low - coalesce(l.low, p.delivered_fraction_prior_low)) > 1e-12
   OR abs(p.delivered_fraction_high - coalesce(l.high, p.delivered_fraction_prior_high)) > 1e-12
   OR abs(p.delivered_output_tokens_per_s_low
          - p.reference_tokens_per_s_per_accel * p.accelerator_count * p.delivered_fraction_low)
      > 1e-9 * p.delivered_output_tokens_per_s_low
   OR abs(p.delivered_output_tokens_per_s_high
          - p.reference_tokens_per_s_per_accel * p.accelerator_count * p.delivered_fraction_high)
      > 1e-9 * p.delivered_output_tokens_per_s_high
