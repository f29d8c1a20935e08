-- observed.request_stats: per run x load level x repeat, what its per-request records say (inside the request
-- pass, assets/request_stats.py: `request_groups` placed in the sweep by `request_keys`). Counts exclude rows
-- that failed a check (rows_quarantined). The inter-arrival CV is that of the gaps between the first 5,000
-- measured sends (sorted), NULL below three. A repeat's own percentiles (quantile_cont, type 7, over its ok
-- requests) are computed where its load level has more than one repeat: they widen the level's interval
-- (observed.load_point_measures); with one repeat they equal the level's estimate and are left NULL.
WITH counted AS (
    SELECT *, count(*) OVER (PARTITION BY run_id, load_index) AS repeats,
           list_transform(range(1, len(first_arrivals_s)), i -> first_arrivals_s[i + 1] - first_arrivals_s[i])
               AS gaps
    FROM request_groups_keyed
),
percentiles AS (
    SELECT *,
           CASE WHEN repeats > 1 THEN list_aggregate(ttft_values, 'quantile_cont', [0.5, 0.9, 0.95, 0.99]) END AS ttft_q,
           CASE WHEN repeats > 1 THEN list_aggregate(tpot_values, 'quantile_cont', [0.5, 0.9, 0.95, 0.99]) END AS tpot_q,
           CASE WHEN repeats > 1 THEN list_aggregate(e2e_values, 'quantile_cont', [0.5, 0.9, 0.95, 0.99]) END AS e2e_q
    FROM counted
)
SELECT run_id, load_index, repeat_index, source,
       requests_sent, requests_ok, requests_failed, requests_warmup_excluded, requests_cooldown_excluded,
       rows_quarantined,
       last_end_s - first_start_s AS duration_s,
       input_tokens_sum, output_tokens_sum, mean_input_tokens, mean_output_tokens,
       CASE WHEN len(gaps) >= 2 THEN list_stddev_samp(gaps) / nullif(list_avg(gaps), 0) END AS interarrival_cv,
       ttft_q[1] AS ttft_p50_ms, ttft_q[2] AS ttft_p90_ms, ttft_q[3] AS ttft_p95_ms, ttft_q[4] AS ttft_p99_ms,
       tpot_q[1] AS tpot_p50_ms, tpot_q[2] AS tpot_p90_ms, tpot_q[3] AS tpot_p95_ms, tpot_q[4] AS tpot_p99_ms,
       e2e_q[1] AS e2e_p50_ms, e2e_q[2] AS e2e_p90_ms, e2e_q[3] AS e2e_p95_ms, e2e_q[4] AS e2e_p99_ms,
       'observed' AS evidence
FROM percentiles
ORDER BY run_id, load_index, repeat_index
