-- observed.request_stats: per run x load level x repeat, what its per-request records say (inside the request
-- pass, assets/request_records/request_pass.py: `request_groups` placed in the sweep by `request_keys`). Counts exclude rows
-- that failed a check (rows_quarantined). The inter-arrival CV is that of the gaps between the first 5,000
-- measured sends (sorted), NULL below three. A repeat's own percentiles (quantile_cont, type 7, over its ok
-- requests) are kept where its load level has more than one repeat: they widen the level's interval
-- (observed.load_point_measures); with one repeat they equal the level's estimate and are left NULL.
WITH counted AS (
    SELECT *, count(*) OVER (PARTITION BY keyed_run_id, load_index) AS repeats,
           list_transform(range(1, len(first_arrivals_s)), i -> first_arrivals_s[i + 1] - first_arrivals_s[i])
               AS gaps
    FROM request_groups_keyed
),
own AS (
    SELECT *, CASE WHEN repeats > 1 THEN ttft_q END AS t, CASE WHEN repeats > 1 THEN tpot_q END AS p,
           CASE WHEN repeats > 1 THEN e2e_q END AS e
    FROM counted
)
SELECT keyed_run_id AS run_id, load_index, repeat_index, source,
       requests_sent, requests_ok, requests_failed, requests_unusable, requests_warmup_excluded, requests_cooldown_excluded,
       rows_quarantined,
       last_end_s - first_start_s AS duration_s,
       input_tokens_sum, output_tokens_sum, input_tokens_mean, output_tokens_mean,
       CASE WHEN len(gaps) >= 2 THEN list_stddev_samp(gaps) / nullif(list_avg(gaps), 0) END AS interarrival_cv,
       t[2] AS ttft_p50_ms, t[5] AS ttft_p90_ms, t[8] AS ttft_p95_ms, t[11] AS ttft_p99_ms,
       p[2] AS tpot_p50_ms, p[5] AS tpot_p90_ms, p[8] AS tpot_p95_ms, p[11] AS tpot_p99_ms,
       e[2] AS e2e_p50_ms, e[5] AS e2e_p90_ms, e[8] AS e2e_p95_ms, e[11] AS e2e_p99_ms,
       'observed' AS evidence
FROM own
ORDER BY run_id, load_index, repeat_index
