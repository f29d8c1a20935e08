-- Every curve has at least 20 points, in increasing rate, and its heaviest rate reaches the model's saturation
-- probe (calibrated.delivered_at_slo's saturation_requests_per_s). Whether the model keeps up there is what it
-- predicts, not a fault: a curve it never falls behind on (a light or zero-token mix, a sweep whose latencies fall
-- as the load rises) makes the profile x config row lower_bound, one that misses a bound at every point misses_slo,
-- each said on that row.
--
-- Profile x config curves with under 20 points, rates not increasing with the point, or a heaviest rate short of
-- the saturation probe.
WITH curves AS (
    SELECT profile, config_key, count(*) AS points,
           bool_and(requests_per_s > coalesce(previous, 0)) AS increasing,
           max(requests_per_s) AS heaviest_requests_per_s
    FROM (
        SELECT *, lag(requests_per_s) OVER (PARTITION BY profile, config_key ORDER BY point_index) AS previous
        FROM calibrated.latency_curve
    )
    GROUP BY profile, config_key
)
SELECT c.profile, c.config_key, c.points, c.increasing, c.heaviest_requests_per_s, d.saturation_requests_per_s
FROM curves AS c
LEFT JOIN calibrated.delivered_at_slo AS d USING (profile, config_key)
WHERE c.points < 20 OR NOT c.increasing OR c.heaviest_requests_per_s < coalesce(d.saturation_requests_per_s, 0)
