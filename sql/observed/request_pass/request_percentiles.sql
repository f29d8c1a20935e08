-- observed.request_percentiles: per run x load level x measure (ttft/tpot/e2e x p50/p90/p95/p99), the percentile
-- of the level's ok measured requests pooled over its repeats (quantile_cont: linear interpolation between
-- closest ranks, type 7, numpy's default) and a 95% interval for it, from `request_pooled` and `order_ranks`
-- (assets/request_records/request_pass.py):
--   up to 20,000 requests: the distribution-free order-statistic interval [X(l), X(u)], l and u from the exact
--     Binomial(n, p) ranks (equal tails, each at most 2.5%); where n is too small for an end at 95%, that end
--     is the smallest or largest value (said in interval_method: coverage is then below 95%);
--   more requests: the values at p -/+ h with h = 1.96 sqrt(p (1 - p) / 20000) + 4 / 20000: they lie outside the
--     exact interval of n > 20,000 requests, so the interval is conservative (as wide as at 20,000 requests).
-- No resampling: the cost is that of the percentiles themselves. Repeats widen the interval in
-- observed.load_point_measures.
WITH long AS (
    SELECT p.run_id, p.load_index, p.metric, p.repeats, p.requests_used, p.q, p.sorted_values,
           unnest([0.5, 0.9, 0.95, 0.99]) AS percentile, unnest(['p50', 'p90', 'p95', 'p99']) AS pct,
           unnest([2, 5, 8, 11]) AS at
    FROM request_pooled AS p
    WHERE p.requests_used > 0
)
SELECT l.run_id, l.load_index, l.metric || '_' || l.pct || '_ms' AS measure, l.q[l.at] AS value,
       CASE WHEN l.sorted_values IS NULL THEN l.q[l.at - 1]
            ELSE l.sorted_values[coalesce(r.lower_rank, 1)] END AS ci_low,
       CASE WHEN l.sorted_values IS NULL THEN l.q[l.at + 1]
            ELSE l.sorted_values[coalesce(r.upper_rank, l.requests_used)] END AS ci_high,
       l.requests_used, l.repeats,
       CASE WHEN l.sorted_values IS NULL
            THEN 'order-statistic interval of ' || l.requests_used || ' requests, conservative: the values at p -/+ h '
                 || '(as wide as the exact interval at 20,000 requests)'
            ELSE 'order statistics X(' || coalesce(r.lower_rank, 1) || '), X(' || coalesce(r.upper_rank, l.requests_used)
                 || ') of ' || l.requests_used || ' requests (exact binomial ranks)'
                 || CASE WHEN r.lower_rank IS NULL THEN '; too few requests for a 95% lower end: the smallest value'
                         ELSE '' END
                 || CASE WHEN r.upper_rank IS NULL THEN '; too few requests for a 95% upper end: the largest value'
                         ELSE '' END
       END AS interval_method
FROM long AS l
LEFT JOIN order_ranks AS r ON r.requests_used = l.requests_used AND r.percentile = l.percentile
ORDER BY l.run_id, l.load_index, measure
