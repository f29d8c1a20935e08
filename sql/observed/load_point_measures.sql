-- observed.load_point_measures: per run x load level x measure (ttft/tpot/itl/e2e x p50/p90/p95/p99, and
-- error_rate), one estimate and a 95% interval, saying where both came from.
--
-- Per-request records (phase 'measure', status 'ok'; warm-up, cool-down and failed requests are excluded
-- and counted in observed.load_points) give the estimate: the percentile pooled over the point's repeats with
-- quantile_cont, i.e. linear interpolation between closest ranks (Hyndman-Fan type 7, numpy's default), and a
-- 95% interval from order statistics, without resampling (observed.request_percentiles: exact binomial ranks
-- up to 20,000 requests, conservative beyond), widened to cover every repeat's own percentile
-- (observed.request_stats). All of it comes from one DuckDB pass over the dump files (assets/request_records/request_pass.py).
-- Without per-request records the tool's aggregates are used where its definition is ours (see
-- observed.tool_metrics for the rest): the mean over repeats, the interval the range of the repeats (a single
-- repeat has a zero-width interval). ITL always comes from the tool: records carry no token gaps.
WITH repeat_long AS (
    SELECT run_id, load_index, repeat_index, measure, value
    FROM observed.request_stats
    UNPIVOT (value FOR measure IN (
        ttft_p50_ms, ttft_p90_ms, ttft_p95_ms, ttft_p99_ms,
        tpot_p50_ms, tpot_p90_ms, tpot_p95_ms, tpot_p99_ms,
        e2e_p50_ms, e2e_p90_ms, e2e_p95_ms, e2e_p99_ms
    ))
),
repeat_range AS (
    SELECT run_id, load_index, measure, min(value) AS rep_low, max(value) AS rep_high
    FROM repeat_long
    GROUP BY ALL
),
from_requests AS (
    SELECT p.run_id, p.load_index, p.measure, p.value,
           least(p.ci_low, coalesce(rr.rep_low, p.ci_low)) AS ci_low,
           greatest(p.ci_high, coalesce(rr.rep_high, p.ci_high)) AS ci_high,
           'per_request' AS source, p.requests_used, p.repeats,
           p.interval_method
               || CASE WHEN p.repeats > 1 THEN ', widened to the range of ' || p.repeats || ' repeats' ELSE '' END
               AS interval_method
    FROM observed.request_percentiles AS p
    LEFT JOIN repeat_range AS rr USING (run_id, load_index, measure)
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
           (requests_sent - requests_ok)::DOUBLE / nullif(requests_sent, 0) AS error_rate
    FROM observed.request_stats
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
