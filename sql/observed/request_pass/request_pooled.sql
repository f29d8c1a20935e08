-- request_pooled (a temporary table of the request pass, assets/request_records/request_pass.py): per run x load level x
-- measure (ttft, tpot, e2e), the pooled 'level' groups of `request_groups` placed in the sweep (a level's kind
-- and nominal value, as `request_keys` carries them, give its load_index): how many ok requests, the quantile_cont
-- values at the percentiles and their brackets, and, for levels of at most 20,000 requests, all values sorted
-- (`request_small`: those levels' rows read a second time, for the exact order-statistic interval,
-- request_percentiles.sql).
WITH levels AS (
    SELECT DISTINCT run_id, level_kind, level_nominal, CASE WHEN level_nominal IS NULL THEN source_id END AS point_id,
           load_index, count(*) OVER (PARTITION BY run_id, load_index) AS repeats
    FROM request_keys
),
pooled AS (
    SELECT l.run_id, l.load_index, l.repeats, g.ttft_n, g.tpot_n, g.e2e_n, g.ttft_q, g.tpot_q, g.e2e_q
    FROM request_groups AS g
    JOIN levels AS l
        ON l.run_id = g.run_id AND l.level_kind = g.level_kind
       AND l.level_nominal IS NOT DISTINCT FROM g.level_nominal AND l.point_id IS NOT DISTINCT FROM g.source_id
    WHERE g.grouping_set = 'level'
),
long AS (
    SELECT p.run_id, p.load_index, p.repeats,
           unnest(['ttft', 'tpot', 'e2e']) AS metric,
           unnest([p.ttft_n, p.tpot_n, p.e2e_n]) AS requests_used,
           unnest([p.ttft_q, p.tpot_q, p.e2e_q]) AS q,
           unnest([s.ttft_sorted, s.tpot_sorted, s.e2e_sorted]) AS sorted_values
    FROM pooled AS p
    LEFT JOIN request_small AS s USING (run_id, load_index)
)
SELECT run_id, load_index, metric, repeats, requests_used, q,
       CASE WHEN requests_used <= 20000 THEN sorted_values END AS sorted_values
FROM long
