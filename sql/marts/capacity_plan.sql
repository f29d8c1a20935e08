-- marts.capacity_plan: what a config costs a month at our volume. One row per profile x config x price (as
-- cost.cost_per_request), for each profile with a volume (requirement.workload): a traffic log (its
-- windows, requirement.traffic_rate, scaled to workload.requests_per_day) or a stated mean rate and
-- peak-to-mean ratio (requirement.profiles). A replica is one config (accelerator_count accelerators);
-- delivered_low/high are the config's requests/s the bill rests on (billed_requests_per_s_low/high), as
-- cost.cost_per_request decides (billed_basis: measured as run, calibrated on our traffic where the run's workload
-- differs from ours or its files do not measure what the SLO bounds, or projected; for projected ones,
-- delivered_fraction_basis says which fraction of the MLPerf reference: projected.delivered_at_slo), beside them the
-- band the run sustained as measured (measured_requests_per_s_low/high) and its config's calibrated band on our
-- traffic (calibrated.delivered_at_slo, where it may bill, with its own error band_rel_error); mean and peak the
-- (scaled) window rates; a month is 730 hours.
--
--   replicas_low/high          = ceil(peak / delivered_high) / ceil(peak / delivered_low)
--   monthly_usd_low/high       = replicas_low/high x accelerator_count x usd_per_accelerator_hour x 730
--   utilisation_low/high       = the smaller / larger of mean / (replicas_high x delivered_low) and
--                                mean / (replicas_low x delivered_high)
--   effective_cost_per_request_usd_low/high = monthly_usd_low/high / (mean x 730 x 3600)
--   autoscaled_monthly_usd_low/high = the mean over the windows of max(min_replicas, ceil(rate_w / delivered_high))
--                                (low) or max(min_replicas, ceil(rate_w / delivered_low)) (high) replicas,
--                                x accelerator_count x usd_per_accelerator_hour x 730 (a traffic log only)
--   baseline (the profile's `baseline:`): the observed rows whose run label it is, or whose run.yaml stated it
--   before the run was split into parts (`label [key=value]`: every part), or whose config_key it is
--   (is_baseline); a name matching none of them says so in baseline_note, with the closest run labels.
--   Its observed rows at the same price class and provider, or
--   where it has no price from that provider, its rows at the same price class (every provider):
--     baseline_monthly_usd_low/high = the lowest monthly_usd_low / highest monthly_usd_high of those rows
--     monthly_saving_usd_low     = baseline_monthly_usd_low - monthly_usd_high
--     monthly_saving_usd_high    = baseline_monthly_usd_high - monthly_usd_low (negative: costs more)
--     (the baseline's own rows: 0, the same bill)
--     autoscaled_monthly_saving_usd_low/high: the same on the autoscaled bills (a traffic log only)
-- (the arithmetic: the macros of sql/macros.sql)
-- quality_status and quality_evidence: as on marts.config_shortlist (marts.quality_gate); rows that fail rank last.
WITH volume AS (
    SELECT p.profile, w.peak_window_s, p.min_replicas, p.baseline_run_label,
           w.mean_requests_per_s AS mean_rps,
           w.peak_requests_per_s AS peak_rps,
           CASE
               WHEN w.rate_windows IS NOT NULL AND w.requests_per_day IS NOT NULL
                   THEN 'traffic log ' || w.traffic_log || ' scaled to ' || w.requests_per_day::BIGINT
                       || ' requests a day (' || w.rate_windows || ' windows of ' || w.peak_window_s || ' s)'
               WHEN w.rate_windows IS NOT NULL
                   THEN 'traffic log ' || w.traffic_log || ' at its own volume (' || w.rate_windows || ' windows of '
                       || w.peak_window_s || ' s)'
               ELSE 'stated mean ' || w.mean_requests_per_s
                   || ' requests/s x peak_to_mean ' || w.peak_to_mean || ' (no traffic log: no autoscaled cost)'
           END AS traffic_basis,
           w.rate_windows IS NOT NULL AS has_windows
    FROM requirement.profiles AS p
    JOIN requirement.workload AS w ON w.profile = p.profile
    WHERE w.peak_requests_per_s IS NOT NULL
),
-- each run's config's calibrated band on our traffic, where it may bill (a run label is in one config)
calibrated AS (
    SELECT profile, unnest(from_json(run_labels, '["VARCHAR"]')) AS run_label,
           delivered_requests_per_s_low, delivered_requests_per_s_high, band_rel_error, heldout_rel_error_median,
           heldout_rel_error_worst
    FROM calibrated.delivered_at_slo
    WHERE bills
),
configs AS (
    SELECT k.profile, k.evidence, k.config_key, k.run_label, k.model_id, k.accelerator_id, k.accelerator_count,
           k.precision, k.runtime, k.runtime_version, k.price_class, k.price_provider, k.usd_per_accelerator_hour,
           k.price_as_of, k.billed_requests_per_s_low AS delivered_low,
           k.billed_requests_per_s_high AS delivered_high, k.billed_basis, k.billed_basis_reason,
           k.measured_requests_per_s_low AS measured_low, k.measured_requests_per_s_high AS measured_high,
           c.delivered_requests_per_s_low AS calibrated_low, c.delivered_requests_per_s_high AS calibrated_high,
           c.band_rel_error AS calibrated_band_error,
           c.heldout_rel_error_median AS calibrated_error_median, c.heldout_rel_error_worst AS calibrated_error_worst,
           v.mean_rps, v.peak_rps, v.peak_window_s, v.min_replicas, v.baseline_run_label, v.traffic_basis,
           v.has_windows, pj.delivered_fraction_basis
    FROM cost.cost_per_request AS k
    JOIN volume AS v ON v.profile = k.profile
    LEFT JOIN projected.delivered_at_slo AS pj
        ON k.evidence = 'projected' AND pj.profile = k.profile AND k.config_key = 'mlperf:' || pj.mlperf_result_key
    LEFT JOIN calibrated AS c ON c.profile = k.profile AND c.run_label = k.run_label AND k.evidence = 'observed'
),
static AS (
    SELECT *,
           replicas_for(peak_rps, delivered_high) AS replicas_low,
           replicas_for(peak_rps, delivered_low) AS replicas_high
    FROM configs
),
autoscaled AS (
    SELECT s.profile, s.config_key, s.price_class, s.price_provider,
           -- greatest() skips NULLs: without a delivered rate there is no replica count, not min_replicas
           avg(CASE WHEN s.delivered_high > 0 THEN greatest(s.min_replicas, ceil(w.scaled_rate_per_s / s.delivered_high))
               END) AS replicas_mean_low,
           avg(CASE WHEN s.delivered_low > 0 THEN greatest(s.min_replicas, ceil(w.scaled_rate_per_s / s.delivered_low))
               END) AS replicas_mean_high
    FROM static AS s
    JOIN requirement.traffic_rate AS w ON w.profile = s.profile
    WHERE s.has_windows
    GROUP BY s.profile, s.config_key, s.price_class, s.price_provider
),
planned AS (
    SELECT s.*, a.replicas_mean_low, a.replicas_mean_high,
           monthly_usd(s.replicas_low, s.accelerator_count, s.usd_per_accelerator_hour) AS monthly_low,
           monthly_usd(s.replicas_high, s.accelerator_count, s.usd_per_accelerator_hour) AS monthly_high,
           monthly_usd(a.replicas_mean_low, s.accelerator_count, s.usd_per_accelerator_hour) AS autoscaled_low,
           monthly_usd(a.replicas_mean_high, s.accelerator_count, s.usd_per_accelerator_hour) AS autoscaled_high,
           s.mean_rps / (s.replicas_high * s.delivered_low) AS utilisation_a,
           s.mean_rps / (s.replicas_low * s.delivered_high) AS utilisation_b
    FROM static AS s
    LEFT JOIN autoscaled AS a USING (profile, config_key, price_class, price_provider)
),
matched AS (
    SELECT *,
           evidence = 'observed' AND (run_label = baseline_run_label OR config_key = baseline_run_label
                                     OR starts_with(run_label, baseline_run_label || ' [') AND run_label LIKE '%]')
               AS is_baseline
    FROM planned
),
baseline_rows AS (
    SELECT * FROM matched WHERE is_baseline
),
-- a baseline that matches nothing: the run labels closest to it (the runs of the profile's model first)
unmatched AS (
    SELECT p.profile, string_agg(r.run_label, ', ' ORDER BY r.score DESC, r.run_label) AS closest
    FROM (SELECT DISTINCT profile, baseline_run_label FROM planned WHERE baseline_run_label IS NOT NULL) AS p
    CROSS JOIN LATERAL (
        SELECT run_label, jaro_winkler_similarity(lower(run_label), lower(p.baseline_run_label)) AS score
        FROM observed.runs
        ORDER BY score DESC, run_label
        LIMIT 3
    ) AS r
    WHERE NOT EXISTS (SELECT 1 FROM baseline_rows AS b WHERE b.profile = p.profile)
      AND NOT EXISTS (
          SELECT 1 FROM observed.runs AS o
          WHERE o.run_label = p.baseline_run_label OR o.run_id = p.baseline_run_label
             OR starts_with(o.run_label, p.baseline_run_label || ' [')
      )
    GROUP BY p.profile
),
-- the runs a baseline names (every part of a split run.yaml label), priced or not
parts AS (
    SELECT p.profile, string_agg(DISTINCT o.run_label, ', ' ORDER BY o.run_label) AS labels,
           count(DISTINCT o.run_label) AS n
    FROM (SELECT DISTINCT profile, baseline_run_label FROM planned WHERE baseline_run_label IS NOT NULL) AS p
    JOIN observed.runs AS o
        ON o.run_label = p.baseline_run_label OR o.run_id = p.baseline_run_label
        OR starts_with(o.run_label, p.baseline_run_label || ' [') AND o.run_label LIKE '%]'
    GROUP BY p.profile
),
baseline_provider AS (
    SELECT profile, price_class, price_provider, min(monthly_low) AS baseline_low, max(monthly_high) AS baseline_high,
           min(autoscaled_low) AS baseline_autoscaled_low, max(autoscaled_high) AS baseline_autoscaled_high
    FROM baseline_rows
    GROUP BY profile, price_class, price_provider
),
baseline_class AS (
    SELECT profile, price_class, min(monthly_low) AS baseline_low, max(monthly_high) AS baseline_high,
           min(autoscaled_low) AS baseline_autoscaled_low, max(autoscaled_high) AS baseline_autoscaled_high,
           count(DISTINCT price_provider) AS providers
    FROM baseline_rows
    GROUP BY profile, price_class
),
baseline AS (
    SELECT p.profile, p.config_key, p.price_class, p.price_provider,
           coalesce(bp.baseline_low, bc.baseline_low) AS baseline_low,
           coalesce(bp.baseline_high, bc.baseline_high) AS baseline_high,
           CASE WHEN bp.profile IS NOT NULL THEN bp.baseline_autoscaled_low ELSE bc.baseline_autoscaled_low END
               AS baseline_autoscaled_low,
           CASE WHEN bp.profile IS NOT NULL THEN bp.baseline_autoscaled_high ELSE bc.baseline_autoscaled_high END
               AS baseline_autoscaled_high,
           bp.profile IS NOT NULL AND p.is_baseline AS is_baseline,
           CASE WHEN bp.profile IS NOT NULL THEN 'at the same price (' || p.price_class || ', ' || p.price_provider || ')'
                WHEN bc.profile IS NOT NULL THEN 'at price class ' || p.price_class || ' (no ' || p.price_provider
                    || ' price for it: its lowest and highest monthly bill across ' || bc.providers || ' providers)'
           END AS basis
    FROM matched AS p
    LEFT JOIN baseline_provider AS bp
        ON bp.profile = p.profile AND bp.price_class = p.price_class AND bp.price_provider = p.price_provider
    LEFT JOIN baseline_class AS bc ON bc.profile = p.profile AND bc.price_class = p.price_class
)
SELECT
    p.profile,
    p.model_id,
    p.accelerator_id,
    p.accelerator_count,
    p.precision,
    p.runtime,
    p.runtime_version,
    p.run_label,
    p.evidence,
    p.config_key,
    p.price_class,
    p.price_provider,
    p.usd_per_accelerator_hour,
    p.price_as_of,
    p.measured_low AS measured_requests_per_s_low,
    p.measured_high AS measured_requests_per_s_high,
    p.delivered_low AS billed_requests_per_s_low,
    p.delivered_high AS billed_requests_per_s_high,
    p.billed_basis,
    p.billed_basis_reason,
    p.delivered_fraction_basis,
    p.calibrated_low AS calibrated_requests_per_s_low,
    p.calibrated_high AS calibrated_requests_per_s_high,
    p.calibrated_band_error AS calibrated_band_rel_error,
    p.calibrated_error_median AS calibrated_heldout_rel_error_median,
    p.calibrated_error_worst AS calibrated_heldout_rel_error_worst,
    p.traffic_basis,
    p.mean_rps AS mean_requests_per_s,
    p.peak_rps AS peak_requests_per_s,
    p.peak_window_s,
    p.min_replicas,
    p.replicas_low,
    p.replicas_high,
    p.monthly_low AS monthly_usd_low,
    p.monthly_high AS monthly_usd_high,
    CASE WHEN p.utilisation_a IS NOT NULL AND p.utilisation_b IS NOT NULL
         THEN least(p.utilisation_a, p.utilisation_b) END AS utilisation_low,
    CASE WHEN p.utilisation_a IS NOT NULL AND p.utilisation_b IS NOT NULL
         THEN greatest(p.utilisation_a, p.utilisation_b) END AS utilisation_high,
    p.monthly_low / (p.mean_rps * 730 * 3600) AS effective_cost_per_request_usd_low,
    p.monthly_high / (p.mean_rps * 730 * 3600) AS effective_cost_per_request_usd_high,
    p.replicas_mean_low AS autoscaled_replicas_mean_low,
    p.replicas_mean_high AS autoscaled_replicas_mean_high,
    p.autoscaled_low AS autoscaled_monthly_usd_low,
    p.autoscaled_high AS autoscaled_monthly_usd_high,
    p.baseline_run_label,
    b.baseline_low AS baseline_monthly_usd_low,
    b.baseline_high AS baseline_monthly_usd_high,
    CASE WHEN b.is_baseline THEN 0.0 ELSE b.baseline_low - p.monthly_high END AS monthly_saving_usd_low,
    CASE WHEN b.is_baseline THEN 0.0 ELSE b.baseline_high - p.monthly_low END AS monthly_saving_usd_high,
    CASE WHEN b.is_baseline AND p.autoscaled_low IS NOT NULL THEN 0.0
         ELSE b.baseline_autoscaled_low - p.autoscaled_high END AS autoscaled_monthly_saving_usd_low,
    CASE WHEN b.is_baseline AND p.autoscaled_low IS NOT NULL THEN 0.0
         ELSE b.baseline_autoscaled_high - p.autoscaled_low END AS autoscaled_monthly_saving_usd_high,
    CASE
        WHEN p.baseline_run_label IS NULL THEN NULL
        WHEN u.profile IS NOT NULL
            THEN 'baseline ' || p.baseline_run_label || ' matches no run label, run.yaml label or config_key: did you '
                || 'mean ' || u.closest || '? no saving'
        WHEN b.basis IS NULL
            THEN 'baseline ' || p.baseline_run_label || coalesce(pt.said, '')
                || ' has no priced, SLO-feasible run of this profile at price class ' || p.price_class || ': no saving'
        ELSE 'against ' || p.baseline_run_label || coalesce(pt.said, '') || ' ' || b.basis
    END AS baseline_note,
    coalesce(m.is_baseline, false) AS is_baseline,
    coalesce(q.quality_status, 'untested') AS quality_status,
    coalesce(q.quality_evidence, 'no quality evaluation at this model and precision') AS quality_evidence
FROM planned AS p
LEFT JOIN baseline AS b USING (profile, config_key, price_class, price_provider)
LEFT JOIN matched AS m USING (profile, config_key, price_class, price_provider)
LEFT JOIN unmatched AS u ON u.profile = p.profile
LEFT JOIN (
    SELECT profile, ' (' || CASE WHEN n > 1 THEN 'its ' || n || ' parts ' ELSE '' END || labels || ')' AS said
    FROM parts
) AS pt ON pt.profile = p.profile AND pt.said <> ' (' || p.baseline_run_label || ')'
LEFT JOIN observed.runs AS rs ON p.evidence = 'observed' AND rs.run_id = p.config_key
LEFT JOIN marts.quality_gate AS q
    ON q.profile = p.profile AND q.model = p.model_id
    AND q.scheme IS NOT DISTINCT FROM coalesce(rs.precision_scheme, p.precision)
ORDER BY p.profile, quality_status = 'fails', effective_cost_per_request_usd_high NULLS LAST, p.evidence, p.accelerator_id, p.run_label,
         p.price_class, p.price_provider
