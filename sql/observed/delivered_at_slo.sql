-- observed.delivered_at_slo: per run x profile of the same model, the SLO-feasible request-rate band.
--   low  = the highest achieved request rate among the load points before the first failing one
--          (in load order) whose measures all meet the profile's bounds;
--   high = the first bound crossing, interpolated linearly in achieved rate between the low point and
--          the first failing point (never above that point). No failing point: high = low.
-- A measure a point lacks (NULL) fails its bound: a number we cannot see is not a met SLO.
WITH pairs AS (
    SELECT p.profile, r.*
    FROM observed.runs AS r
    JOIN requirement.profiles AS p ON p.model_id = r.model_id
),
measures AS (
    SELECT run_id, load_index, measure, value
    FROM observed.load_points
    UNPIVOT INCLUDE NULLS (value FOR measure IN (
        ttft_p50_ms, ttft_p90_ms, ttft_p95_ms, ttft_p99_ms,
        tpot_p50_ms, tpot_p90_ms, tpot_p95_ms, tpot_p99_ms,
        itl_p50_ms, itl_p90_ms, itl_p95_ms, itl_p99_ms,
        e2e_p50_ms, e2e_p90_ms, e2e_p95_ms, e2e_p99_ms,
        error_rate
    ))
),
checks AS (
    SELECT pr.profile, pr.run_id, m.load_index, b.measure, b.bound, m.value,
           coalesce(m.value <= b.bound, false) AS meets
    FROM pairs AS pr
    JOIN requirement.slo_bounds AS b ON b.profile = pr.profile
    JOIN measures AS m ON m.run_id = pr.run_id AND m.measure = b.measure
),
points AS (
    SELECT c.profile, c.run_id, c.load_index, bool_and(c.meets) AS meets_all,
           any_value(lp.achieved_requests_per_s) AS requests_per_s,
           any_value(lp.output_tokens_per_s) AS output_tokens_per_s,
           any_value(lp.input_tokens_per_s) AS input_tokens_per_s,
           any_value(lp.total_tokens_per_s) AS total_tokens_per_s,
           any_value(lp.mean_input_tokens) AS mean_input_tokens,
           any_value(lp.mean_output_tokens) AS mean_output_tokens
    FROM checks AS c
    JOIN observed.load_points AS lp ON lp.run_id = c.run_id AND lp.load_index = c.load_index
    GROUP BY c.profile, c.run_id, c.load_index
),
first_failure AS (
    SELECT profile, run_id, min(load_index) FILTER (WHERE NOT meets_all) AS failing_load_index
    FROM points
    GROUP BY profile, run_id
),
low_point AS (
    SELECT profile, run_id, load_index AS low_load_index
    FROM (
        SELECT p.profile, p.run_id, p.load_index,
               row_number() OVER (PARTITION BY p.profile, p.run_id
                                  ORDER BY p.requests_per_s DESC, p.load_index DESC) AS pick
        FROM points AS p
        JOIN first_failure AS f USING (profile, run_id)
        WHERE p.meets_all AND (f.failing_load_index IS NULL OR p.load_index < f.failing_load_index)
    )
    WHERE pick = 1
),
crossings AS (
    -- for each bound the failing point breaks: how far from the low point towards it the bound is met
    SELECT l.profile, l.run_id, fail.measure,
           CASE WHEN fail.value IS NULL OR low.value IS NULL OR fail.value <= low.value THEN 0.0
                ELSE (fail.bound - low.value) / (fail.value - low.value) END AS fraction
    FROM low_point AS l
    JOIN first_failure AS f USING (profile, run_id)
    JOIN checks AS fail
        ON fail.profile = l.profile AND fail.run_id = l.run_id AND fail.load_index = f.failing_load_index
    JOIN checks AS low
        ON low.profile = l.profile AND low.run_id = l.run_id AND low.load_index = l.low_load_index
       AND low.measure = fail.measure
    WHERE NOT fail.meets
),
binding AS (
    SELECT profile, run_id,
           greatest(least(min(fraction), 1.0), 0.0) AS fraction,
           arg_min(measure, fraction) AS binding_measure
    FROM crossings
    GROUP BY profile, run_id
),
bands AS (
    SELECT l.profile, l.run_id, l.low_load_index, f.failing_load_index, b.binding_measure,
           coalesce(b.fraction, 0.0) AS fraction,
           lo.requests_per_s AS rps_lo, hi.requests_per_s AS rps_fail,
           lo.output_tokens_per_s AS out_lo, hi.output_tokens_per_s AS out_fail,
           lo.input_tokens_per_s AS in_lo, hi.input_tokens_per_s AS in_fail,
           lo.total_tokens_per_s AS tot_lo, hi.total_tokens_per_s AS tot_fail,
           lo.mean_input_tokens, lo.mean_output_tokens
    FROM low_point AS l
    JOIN first_failure AS f USING (profile, run_id)
    LEFT JOIN binding AS b USING (profile, run_id)
    JOIN points AS lo ON lo.profile = l.profile AND lo.run_id = l.run_id AND lo.load_index = l.low_load_index
    LEFT JOIN points AS hi ON hi.profile = l.profile AND hi.run_id = l.run_id AND hi.load_index = f.failing_load_index
)
SELECT
    pr.profile,
    pr.run_id,
    pr.run_label,
    pr.model_id,
    pr.accelerator_id,
    pr.accelerator_count,
    pr.precision,
    pr.runtime,
    pr.runtime_version,
    pr.arrival,
    pr.load_kind,
    pr.load_points,
    b.run_id IS NOT NULL AS feasible,
    b.failing_load_index IS NOT NULL AS slo_crossed,
    b.low_load_index,
    b.failing_load_index,
    b.binding_measure,
    b.rps_lo AS delivered_requests_per_s_low,
    CASE WHEN b.rps_fail > b.rps_lo THEN b.rps_lo + b.fraction * (b.rps_fail - b.rps_lo) ELSE b.rps_lo END
        AS delivered_requests_per_s_high,
    b.out_lo AS delivered_output_tokens_per_s_low,
    CASE WHEN b.out_fail > b.out_lo THEN b.out_lo + b.fraction * (b.out_fail - b.out_lo) ELSE b.out_lo END
        AS delivered_output_tokens_per_s_high,
    b.in_lo AS delivered_input_tokens_per_s_low,
    CASE WHEN b.in_fail > b.in_lo THEN b.in_lo + b.fraction * (b.in_fail - b.in_lo) ELSE b.in_lo END
        AS delivered_input_tokens_per_s_high,
    b.tot_lo AS delivered_total_tokens_per_s_low,
    CASE WHEN b.tot_fail > b.tot_lo THEN b.tot_lo + b.fraction * (b.tot_fail - b.tot_lo) ELSE b.tot_lo END
        AS delivered_total_tokens_per_s_high,
    b.mean_input_tokens,
    b.mean_output_tokens,
    'low: highest load point meeting every bound (' || pr.load_kind || ' sweep, tool-aggregate percentiles); '
        || 'high: bound crossing interpolated linearly in achieved rate towards the first failing point; '
        || 'one run, no repeats or bootstrap' AS method,
    'observed' AS evidence
FROM pairs AS pr
LEFT JOIN bands AS b ON b.profile = pr.profile AND b.run_id = pr.run_id
ORDER BY pr.profile, pr.run_label
