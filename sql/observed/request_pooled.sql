-- request_pooled (a temporary table of the request pass, assets/request_stats.py): per run x load level x
-- measure (ttft, tpot, e2e), the ok measured requests pooled over the level's repeats: how many, the
-- quantile_cont (type 7) values at each percentile and at the bracket probabilities p -/+ h (h from
-- assets.request_stats.bracket: 0.4928705 ... 0.991579 below), and, for levels of at most 20,000 requests, all
-- values sorted (for the exact order-statistic interval, request_percentiles.sql).
WITH keyed AS (
    SELECT run_id, load_index, ttft_values, tpot_values, e2e_values FROM request_groups_keyed
),
long AS (
    UNPIVOT keyed ON ttft_values AS 'ttft', tpot_values AS 'tpot', e2e_values AS 'e2e' INTO NAME metric VALUE vals
),
pooled AS (
    SELECT run_id, load_index, metric, flatten(list(vals)) AS vals, count(*) AS repeats
    FROM long
    GROUP BY ALL
)
SELECT run_id, load_index, metric, repeats, len(vals) AS requests_used,
       CASE WHEN len(vals) > 0 THEN list_aggregate(vals, 'quantile_cont',
           [0.4928705, 0.5, 0.5071295, 0.8956423, 0.9, 0.9043577, 0.9467795, 0.95, 0.9532205, 0.988421, 0.99, 0.991579])
       END AS q,
       CASE WHEN len(vals) BETWEEN 1 AND 20000 THEN list_sort(vals) END AS sorted_values
FROM pooled
