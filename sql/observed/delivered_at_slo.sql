-- observed.delivered_at_slo: per run x profile of the same model (matched on model_key: a model no alias table
-- knows by its name without organisation and quantisation words), the SLO-feasible request-rate band, honest
-- about what was measured. Only the run's own sweep counts (its load_kind: open-loop rate or closed-loop
-- concurrency, from run.yaml `arrival`); points are taken in load order; a point without a measured rate
-- (observed.load_points.achieved_rate_missing_reason) is left out.
--
-- Each bounded measure of a point has an estimate and a 95% interval [ci_low, ci_high]
-- (observed.load_point_measures: order statistics of the per-request records, widened to the range of the
-- repeats; without records the range of the repeats' tool aggregates; a single tool aggregate has
-- ci_low = ci_high = the estimate).
--   a point surely meets the profile when every ci_high <= its bound; it plausibly meets when every ci_low does;
--   low  = the lowest achieved rate among the repeats of the highest point that surely meets, among the points
--          before the first one that does not surely meet;
--   high = towards the first point that fails even optimistically (some ci_low > bound): the first bound
--          crossing, interpolated linearly between the last plausible point and it, on ci_low values and the
--          highest achieved rate of their repeats; never above the failing point, never below low. No such
--          point: high = the highest achieved rate of the last plausible point (a lower bound).
-- With one run and tool aggregates this is exactly the single-sweep rule. A measure a point lacks fails; a bounded
-- measure the run's files state at none of its points (a per-level summary without that percentile) is named in
-- unmeasured_bounds, so that a band lost to it says why; unmeasured_bounds_note adds, per such bound, the
-- percentiles of its metric the files do state and the nearest one above it (what the SLO could be set on instead).
WITH pairs AS (
    SELECT p.profile, r.*
    FROM observed.runs AS r
    JOIN requirement.profiles AS p ON p.model_key = r.model_key
),
sweep AS (
    SELECT lp.*
    FROM observed.load_points AS lp
    JOIN observed.runs AS r ON r.run_id = lp.run_id AND r.load_kind = lp.load_kind
    WHERE lp.achieved_requests_per_s IS NOT NULL
),
checks AS (
    SELECT pr.profile, pr.run_id, s.load_index, b.measure, b.bound, m.value, m.ci_low, m.ci_high,
           m.interval_method, m.source,
           coalesce(m.ci_high <= b.bound, false) AS surely,
           coalesce(m.ci_low <= b.bound, false) AS plausibly
    FROM pairs AS pr
    JOIN requirement.slo_bounds AS b ON b.profile = pr.profile
    JOIN sweep AS s ON s.run_id = pr.run_id
    LEFT JOIN observed.load_point_measures AS m
        ON m.run_id = s.run_id AND m.load_index = s.load_index AND m.measure = b.measure
),
-- the percentiles each run's files state (any load point), per metric: what an unmeasured bound could be set on
measured AS (
    SELECT DISTINCT run_id, measure, split_part(measure, '_', 1) AS metric,
           TRY_CAST(ltrim(split_part(measure, '_', 2), 'p') AS INTEGER) AS percentile
    FROM observed.load_point_measures
    WHERE value IS NOT NULL
),
unmeasured AS (
    SELECT u.profile, u.run_id, string_agg(u.measure, ', ' ORDER BY u.measure) AS unmeasured_bounds,
           string_agg(u.measure || CASE WHEN u.percentile IS NULL THEN '' ELSE
               ' (they have ' || coalesce(h.have, 'no ' || u.metric) || ': '
               || CASE WHEN h.above IS NOT NULL THEN 'set the SLO on ' || h.above || ', or ' ELSE '' END
               || 'measure ' || split_part(u.measure, '_', 2) || ')' END, ' and ' ORDER BY u.measure)
               AS unmeasured_bounds_note
    FROM (
        SELECT profile, run_id, measure, split_part(measure, '_', 1) AS metric,
               TRY_CAST(ltrim(split_part(measure, '_', 2), 'p') AS INTEGER) AS percentile
        FROM checks
        GROUP BY ALL
        HAVING bool_and(value IS NULL)
    ) AS u
    LEFT JOIN LATERAL (
        SELECT string_agg(m.measure, ', ' ORDER BY m.percentile) AS have,
               arg_min(m.measure, m.percentile) FILTER (WHERE m.percentile > u.percentile) AS above
        FROM measured AS m
        WHERE m.run_id = u.run_id AND m.metric = u.metric AND m.percentile IS NOT NULL
    ) AS h ON true
    GROUP BY u.profile, u.run_id
),
points AS (
    SELECT c.profile, c.run_id, c.load_index, bool_and(c.surely) AS surely, bool_and(c.plausibly) AS plausibly,
           any_value(s.achieved_requests_per_s) AS rps, any_value(s.achieved_requests_per_s_min) AS rps_min,
           any_value(s.achieved_requests_per_s_max) AS rps_max,
           any_value(coalesce(s.offered_rate_per_s, s.concurrency)) AS load_value,
           any_value(s.output_tokens_per_s) AS out_tps, any_value(s.input_tokens_per_s) AS in_tps,
           any_value(s.total_tokens_per_s) AS tot_tps,
           any_value(s.input_tokens_mean) AS input_tokens_mean, any_value(s.output_tokens_mean) AS output_tokens_mean,
           any_value(s.percentile_source) AS percentile_source,
           string_agg(DISTINCT c.interval_method, '; ' ORDER BY c.interval_method) AS interval_methods
    FROM checks AS c
    JOIN sweep AS s ON s.run_id = c.run_id AND s.load_index = c.load_index
    GROUP BY c.profile, c.run_id, c.load_index
),
edges AS (
    SELECT profile, run_id,
           min(load_index) FILTER (WHERE NOT surely) AS first_unsure,
           min(load_index) FILTER (WHERE NOT plausibly) AS first_fail
    FROM points
    GROUP BY profile, run_id
),
low_point AS (
    SELECT profile, run_id, load_index AS low_load_index
    FROM (
        SELECT p.profile, p.run_id, p.load_index,
               row_number() OVER (PARTITION BY p.profile, p.run_id ORDER BY p.rps DESC, p.load_index DESC) AS pick
        FROM points AS p
        JOIN edges AS e USING (profile, run_id)
        WHERE p.surely AND (e.first_unsure IS NULL OR p.load_index < e.first_unsure)
    )
    WHERE pick = 1
),
plausible_point AS (
    SELECT profile, run_id, load_index AS plausible_load_index
    FROM (
        SELECT p.profile, p.run_id, p.load_index,
               row_number() OVER (PARTITION BY p.profile, p.run_id ORDER BY p.load_index DESC) AS pick
        FROM points AS p
        JOIN edges AS e USING (profile, run_id)
        WHERE p.plausibly AND (e.first_fail IS NULL OR p.load_index < e.first_fail)
    )
    WHERE pick = 1
),
crossings AS (
    -- for each bound the failing point breaks even optimistically: how far from the last plausible point
    -- towards it the bound is still met (on the lower interval ends)
    SELECT a.profile, a.run_id, fail.measure,
           CASE WHEN fail.ci_low IS NULL OR last.ci_low IS NULL OR fail.ci_low <= last.ci_low THEN 0.0
                ELSE (fail.bound - last.ci_low) / (fail.ci_low - last.ci_low) END AS fraction
    FROM plausible_point AS a
    JOIN edges AS e USING (profile, run_id)
    JOIN checks AS fail
        ON fail.profile = a.profile AND fail.run_id = a.run_id AND fail.load_index = e.first_fail
    JOIN checks AS last
        ON last.profile = a.profile AND last.run_id = a.run_id AND last.load_index = a.plausible_load_index
       AND last.measure = fail.measure
    WHERE NOT fail.plausibly
),
binding AS (
    SELECT profile, run_id, greatest(least(min(fraction), 1.0), 0.0) AS fraction,
           arg_min(measure, fraction) AS binding_measure
    FROM crossings
    GROUP BY profile, run_id
),
bands AS (
    SELECT l.profile, l.run_id, l.low_load_index, e.first_fail AS failing_load_index, b.binding_measure,
           coalesce(b.fraction, 0.0) AS fraction,
           lo.rps_min AS rps_low, lo.load_value AS low_load_value, fl.load_value AS failing_load_value,
           pa.rps_max AS rps_a, fl.rps_max AS rps_b,
           lo.out_tps * lo.rps_min / nullif(lo.rps, 0) AS out_low,
           pa.out_tps * pa.rps_max / nullif(pa.rps, 0) AS out_a, fl.out_tps * fl.rps_max / nullif(fl.rps, 0) AS out_b,
           lo.in_tps * lo.rps_min / nullif(lo.rps, 0) AS in_low,
           pa.in_tps * pa.rps_max / nullif(pa.rps, 0) AS in_a, fl.in_tps * fl.rps_max / nullif(fl.rps, 0) AS in_b,
           lo.tot_tps * lo.rps_min / nullif(lo.rps, 0) AS tot_low,
           pa.tot_tps * pa.rps_max / nullif(pa.rps, 0) AS tot_a, fl.tot_tps * fl.rps_max / nullif(fl.rps, 0) AS tot_b,
           lo.input_tokens_mean, lo.output_tokens_mean, lo.percentile_source, lo.interval_methods
    FROM low_point AS l
    JOIN edges AS e USING (profile, run_id)
    JOIN plausible_point AS p USING (profile, run_id)
    LEFT JOIN binding AS b USING (profile, run_id)
    JOIN points AS lo ON lo.profile = l.profile AND lo.run_id = l.run_id AND lo.load_index = l.low_load_index
    JOIN points AS pa ON pa.profile = p.profile AND pa.run_id = p.run_id AND pa.load_index = p.plausible_load_index
    LEFT JOIN points AS fl ON fl.profile = l.profile AND fl.run_id = l.run_id AND fl.load_index = e.first_fail
),
interpolated AS (
    SELECT *,
           greatest(rps_low, CASE WHEN rps_b > rps_a THEN rps_a + fraction * (rps_b - rps_a) ELSE rps_a END) AS rps_high,
           greatest(out_low, CASE WHEN out_b > out_a THEN out_a + fraction * (out_b - out_a) ELSE out_a END) AS out_high,
           greatest(in_low, CASE WHEN in_b > in_a THEN in_a + fraction * (in_b - in_a) ELSE in_a END) AS in_high,
           greatest(tot_low, CASE WHEN tot_b > tot_a THEN tot_a + fraction * (tot_b - tot_a) ELSE tot_a END) AS tot_high
    FROM bands
)
SELECT
    pr.profile,
    pr.run_id,
    pr.run_label,
    pr.model_key AS model_id,
    pr.accelerator_id,
    pr.accelerator_count,
    pr.precision,
    pr.precision_scheme,
    pr.runtime,
    pr.runtime_version,
    pr.arrival,
    pr.load_kind,
    pr.load_points,
    i.run_id IS NOT NULL AS feasible,
    i.failing_load_index IS NOT NULL AS slo_crossed,
    i.low_load_index,
    i.failing_load_index,
    i.low_load_value,
    i.failing_load_value,
    i.binding_measure,
    i.rps_low AS delivered_requests_per_s_low,
    i.rps_high AS delivered_requests_per_s_high,
    i.out_low AS delivered_output_tokens_per_s_low,
    i.out_high AS delivered_output_tokens_per_s_high,
    i.in_low AS delivered_input_tokens_per_s_low,
    i.in_high AS delivered_input_tokens_per_s_high,
    i.tot_low AS delivered_total_tokens_per_s_low,
    i.tot_high AS delivered_total_tokens_per_s_high,
    i.input_tokens_mean,
    i.output_tokens_mean,
    pr.repeats_max,
    i.percentile_source,
    u.unmeasured_bounds,
    u.unmeasured_bounds_note,
    'low: highest load point whose interval upper ends meet every bound (' || pr.load_kind
        || CASE pr.load_kind WHEN 'rate' THEN ' sweep, open loop' ELSE ' sweep, closed loop' END
        || ', percentiles: ' || coalesce(i.percentile_source, 'none') || '); '
        || 'high: bound crossing interpolated on interval lower ends towards the first point failing even '
        || 'optimistically; intervals: ' || coalesce(i.interval_methods, 'none')
        || coalesce('; not in the run''s files, so failing at every point: ' || u.unmeasured_bounds, '') AS method,
    'observed' AS evidence
FROM pairs AS pr
LEFT JOIN interpolated AS i ON i.profile = pr.profile AND i.run_id = pr.run_id
LEFT JOIN unmeasured AS u ON u.profile = pr.profile AND u.run_id = pr.run_id
ORDER BY pr.profile, pr.run_label
