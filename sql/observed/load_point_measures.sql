-- observed.load_point_measures: per run x load level x measure (ttft/tpot/itl/e2e x p50/p90/p95/p99, and
-- error_rate), one estimate and a 95% interval, saying where both came from.
--
-- Per-request records (observed.requests, phase 'measure', status 'ok'; warm-up, cool-down and failed
-- requests are excluded here and counted in observed.load_points) give the estimate: percentiles pooled over
-- the point's repeats with quantile_cont, i.e. linear interpolation between closest ranks (Hyndman-Fan type 7,
-- numpy's default). The interval is a percentile bootstrap: 200 resamples with replacement of the point's
-- records (draws from a hash of run, point, measure, resample and draw number, so the table is reproducible),
-- the 2.5% and 97.5% quantiles of the resampled percentiles, widened to cover every repeat's own percentile.
-- Cost is 200 x records rows, all in SQL; nothing passes through Python.
-- Without per-request records the tool's aggregates are used where its definition is ours (see
-- observed.tool_metrics for the rest): the mean over repeats, the interval the range of the repeats (a single
-- repeat has a zero-width interval). ITL always comes from the tool: records carry no token gaps.
WITH measured AS (
    SELECT run_id, load_index, repeat_index, request_index, ttft_ms, tpot_ms, e2e_ms
    FROM observed.requests
    WHERE phase = 'measure' AND status = 'ok'
),
values_long AS (
    SELECT run_id, load_index, repeat_index, request_index, metric, value
    FROM measured
    UNPIVOT (value FOR metric IN (ttft_ms AS 'ttft', tpot_ms AS 'tpot', e2e_ms AS 'e2e'))
),
pooled AS (
    SELECT run_id, load_index, metric, count(*) AS n,
           quantile_cont(value, [0.5, 0.9, 0.95, 0.99]) AS q
    FROM values_long
    GROUP BY ALL
),
per_repeat AS (
    SELECT run_id, load_index, metric, repeat_index, quantile_cont(value, [0.5, 0.9, 0.95, 0.99]) AS q
    FROM values_long
    GROUP BY ALL
),
numbered AS (
    SELECT run_id, load_index, metric, value,
           row_number() OVER (PARTITION BY run_id, load_index, metric ORDER BY repeat_index, request_index) - 1 AS i
    FROM values_long
),
draws AS (
    SELECT run_id, load_index, metric, b, (hash(run_id, load_index, metric, b, d) % n)::BIGINT AS i
    FROM (SELECT run_id, load_index, metric, n, b, unnest(range(n)) AS d
          FROM pooled, range(200) AS resamples(b))
),
replicates AS (
    SELECT d.run_id, d.load_index, d.metric, d.b, quantile_cont(x.value, [0.5, 0.9, 0.95, 0.99]) AS q
    FROM draws AS d
    JOIN numbered AS x USING (run_id, load_index, metric, i)
    GROUP BY ALL
),
request_rows AS (
    SELECT run_id, load_index, metric, pct, position, value
    FROM (SELECT run_id, load_index, metric, unnest(['p50', 'p90', 'p95', 'p99']) AS pct,
                 unnest([1, 2, 3, 4]) AS position, unnest(q) AS value
          FROM pooled)
),
boot AS (
    SELECT run_id, load_index, metric, position,
           quantile_cont(q[position], 0.025) AS boot_low, quantile_cont(q[position], 0.975) AS boot_high
    FROM replicates, range(1, 5) AS positions(position)
    GROUP BY ALL
),
repeat_range AS (
    SELECT run_id, load_index, metric, position, min(q[position]) AS rep_low, max(q[position]) AS rep_high,
           count(*) AS repeats
    FROM per_repeat, range(1, 5) AS positions(position)
    GROUP BY ALL
),
from_requests AS (
    SELECT r.run_id, r.load_index, r.metric || '_' || r.pct || '_ms' AS measure, r.value,
           least(b.boot_low, rr.rep_low) AS ci_low, greatest(b.boot_high, rr.rep_high) AS ci_high,
           'per_request' AS source, p.n AS requests_used, rr.repeats,
           'bootstrap: 200 resamples of ' || p.n || ' requests'
               || CASE WHEN rr.repeats > 1 THEN ', widened to the range of ' || rr.repeats || ' repeats' ELSE '' END
               AS interval_method
    FROM request_rows AS r
    JOIN pooled AS p USING (run_id, load_index, metric)
    JOIN boot AS b USING (run_id, load_index, metric, position)
    JOIN repeat_range AS rr USING (run_id, load_index, metric, position)
),
tool_long AS (
    SELECT run_id, load_index, repeat_index, measure, value
    FROM observed.measurements
    UNPIVOT (value FOR measure IN (
        ttft_p50_ms, ttft_p90_ms, ttft_p95_ms, ttft_p99_ms,
        tpot_p50_ms, tpot_p90_ms, tpot_p95_ms, tpot_p99_ms,
        itl_p50_ms, itl_p90_ms, itl_p95_ms, itl_p99_ms,
        e2e_p50_ms, e2e_p90_ms, e2e_p95_ms, e2e_p99_ms
    ))
),
from_tool AS (
    SELECT run_id, load_index, measure, avg(value) AS value, min(value) AS ci_low, max(value) AS ci_high,
           'tool_aggregate' AS source, NULL::BIGINT AS requests_used, count(*) AS repeats,
           CASE WHEN count(*) > 1 THEN 'range of ' || count(*) || ' repeats (tool aggregates)'
                ELSE 'none: one repeat, tool aggregate' END AS interval_method
    FROM tool_long
    GROUP BY ALL
),
request_counts AS (
    SELECT run_id, load_index, repeat_index,
           count(*) FILTER (WHERE status <> 'ok')::DOUBLE / count(*) AS error_rate
    FROM observed.requests
    WHERE phase = 'measure'
    GROUP BY ALL
),
repeat_errors AS (
    SELECT m.run_id, m.load_index, m.repeat_index,
           coalesce(c.error_rate, m.requests_failed::DOUBLE / nullif(m.requests_ok + m.requests_failed, 0)) AS error_rate,
           c.error_rate IS NOT NULL AS from_requests
    FROM observed.measurements AS m
    LEFT JOIN request_counts AS c USING (run_id, load_index, repeat_index)
),
errors AS (
    SELECT run_id, load_index, 'error_rate' AS measure, avg(error_rate) AS value, min(error_rate) AS ci_low,
           max(error_rate) AS ci_high,
           CASE WHEN bool_or(from_requests) THEN 'per_request' ELSE 'tool_aggregate' END AS source,
           NULL::BIGINT AS requests_used, count(*) AS repeats,
           CASE WHEN count(*) > 1 THEN 'range of ' || count(*) || ' repeats' ELSE 'none: one repeat' END
               AS interval_method
    FROM repeat_errors
    WHERE error_rate IS NOT NULL
    GROUP BY ALL
)
SELECT * FROM from_requests
UNION ALL
SELECT t.* FROM from_tool AS t
WHERE NOT EXISTS (SELECT 1 FROM from_requests AS r
                  WHERE r.run_id = t.run_id AND r.load_index = t.load_index AND r.measure = t.measure)
UNION ALL
SELECT * FROM errors
ORDER BY run_id, load_index, measure
