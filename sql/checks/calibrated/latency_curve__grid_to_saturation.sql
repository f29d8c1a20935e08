-- Every curve has at least 20 points, in increasing rate, and its heaviest point is past saturation (the model
-- completes under 90% of the rate offered there).
--
-- Profile x config curves with under 20 points, rates not increasing with the point, or a heaviest point the
-- model still keeps up with.
WITH curves AS (
    SELECT profile, config_key, count(*) AS points,
           bool_and(requests_per_s > coalesce(previous, 0)) AS increasing,
           arg_max(achieved_requests_per_s / requests_per_s, point_index) AS heaviest_share
    FROM (
        SELECT *, lag(requests_per_s) OVER (PARTITION BY profile, config_key ORDER BY point_index) AS previous
        FROM calibrated.latency_curve
    )
    GROUP BY profile, config_key
)
SELECT profile, config_key, points, increasing, heaviest_share
FROM curves
WHERE points < 20 OR NOT increasing OR coalesce(heaviest_share, 0) >= 0.9
