-- request_groups (a temporary table of the request pass, assets/request_records/request_pass.py): one scan of every per-request
-- source (`request_rows`: the files read in place and the JSON formats' frames, TPOT by our definition, `valid` =
-- every value check of assets.formats.dumps.scan_sql.checked_scan_sql and every check of schemas.observed.requests
-- passes, `copied` = a copy of an earlier row where the pass looks for them, `row_hash` = a hash of every column where
-- the pass counts distinct rows to know where to look, each row's load level: run, kind and nominal value),
-- aggregated on two grouping sets at once (nothing is materialised):
--   grouping_set 'repeat', per source x the file's own level values (one repeat of one load level): rows that
--     failed a check (counted in rows_quarantined, copies also in rows_copied; left out of the rest; the first
--     send, from which start offsets count, is that of the rows kept); measured (phase measure), ok, failed,
--     warm-up and cool-down counts; the measured window (first measured send -> last measured completion); token
--     sums and means of the ok requests; the first 5,000 measured send times (inter-arrival CV,
--     request_stats.sql); the repeat's own percentiles;
--   grouping_set 'level', per run x load level (kind and nominal value; a level without a nominal value is its
--     source's own): the ok requests pooled over the level's repeats.
-- Percentiles: quantile_cont (type 7) of the ok requests at each percentile and at the bracket probabilities
-- p -/+ h (assets.request_records.order_stats.bracket: 0.4928705 ... 0.991579 below), for the interval
-- (request_percentiles.sql); each measure's count of values. Each row is classified once (`code`: 0 failed a
-- check, 5 a copy of an earlier row, 1 measured and ok, 2 measured and failed, 6 measured and ok by the tool but
-- not a latency sample (`unusable_reason`: no output token, E2E <= 0, TTFT > E2E; counted as failed and in
-- requests_unusable), 3 warm-up, 4 cool-down) and the
-- values an aggregate must skip are NULL, so the aggregates need no FILTER: the scan's cost stays near that of
-- the percentiles alone. The rows that may be copies (fewer distinct row hashes than hashed rows, per repeat) are
-- counted by a scan of their own: a DISTINCT inside the grouping sets costs about twice as much.
WITH coded AS (
    SELECT source_id, offered_rate_per_s AS file_offered_rate_per_s, concurrency AS file_concurrency,
           run_id, level_kind, level_nominal, CASE WHEN level_nominal IS NULL THEN source_id END AS point_id,
           ordinal, code, row_hash, CASE WHEN code IN (1, 2, 3, 4, 6) THEN start_s END AS kept_start_s,
           CASE WHEN code IN (1, 2, 6) THEN start_s END AS measured_start_s,
           CASE WHEN code IN (1, 2, 6) THEN start_s + coalesce(e2e_ms, 0) / 1000 END AS measured_end_s,
           CASE WHEN code = 1 THEN input_tokens END AS ok_input_tokens,
           CASE WHEN code = 1 THEN output_tokens END AS ok_output_tokens,
           CASE WHEN code = 1 THEN ttft_ms END AS ok_ttft_ms,
           CASE WHEN code = 1 THEN tpot_ms END AS ok_tpot_ms,
           CASE WHEN code = 1 THEN e2e_ms END AS ok_e2e_ms
    FROM (SELECT *, CASE WHEN copied THEN 5
                         WHEN NOT valid THEN 0
                         WHEN phase = 'measure' AND status = 'ok' AND unusable_reason IS NOT NULL THEN 6
                         WHEN phase = 'measure' AND status = 'ok' THEN 1
                         WHEN phase = 'measure' THEN 2
                         WHEN phase = 'warmup' THEN 3
                         ELSE 4 END AS code
          FROM request_rows)
),
copies AS (
    SELECT source_id, offered_rate_per_s AS file_offered_rate_per_s, concurrency AS file_concurrency,
           count(row_hash) - count(DISTINCT row_hash) AS rows_maybe_copied
    FROM request_rows
    WHERE row_hash IS NOT NULL
    GROUP BY ALL
),
grouped AS (
SELECT CASE WHEN GROUPING(source_id) = 0 THEN 'repeat' ELSE 'level' END AS grouping_set,
       CASE WHEN GROUPING(source_id) = 0 THEN source_id ELSE point_id END AS source_id,
       file_offered_rate_per_s, file_concurrency, run_id, level_kind, level_nominal,
       histogram(code) AS codes,
       min(ordinal) AS first_ordinal,
       min(kept_start_s) AS first_start_any_s,
       min(measured_start_s) AS first_start_s,
       max(measured_end_s) AS last_end_s,
       sum(ok_input_tokens)::BIGINT AS input_tokens_sum,
       sum(ok_output_tokens)::BIGINT AS output_tokens_sum,
       count(ok_input_tokens) AS input_tokens_counted,
       count(ok_output_tokens) AS output_tokens_counted,
       min(measured_start_s, 5000) AS first_arrivals_s,
       count(ok_ttft_ms) AS ttft_n,
       count(ok_tpot_ms) AS tpot_n,
       count(ok_e2e_ms) AS e2e_n,
       quantile_cont(ok_ttft_ms, [0.4928705, 0.5, 0.5071295, 0.8956423, 0.9, 0.9043577, 0.9467795, 0.95, 0.9532205,
                                  0.988421, 0.99, 0.991579]) AS ttft_q,
       quantile_cont(ok_tpot_ms, [0.4928705, 0.5, 0.5071295, 0.8956423, 0.9, 0.9043577, 0.9467795, 0.95, 0.9532205,
                                  0.988421, 0.99, 0.991579]) AS tpot_q,
       quantile_cont(ok_e2e_ms, [0.4928705, 0.5, 0.5071295, 0.8956423, 0.9, 0.9043577, 0.9467795, 0.95, 0.9532205,
                                 0.988421, 0.99, 0.991579]) AS e2e_q
FROM coded
GROUP BY GROUPING SETS ((run_id, level_kind, level_nominal, point_id),
                        (source_id, file_offered_rate_per_s, file_concurrency, run_id, level_kind, level_nominal))
)
SELECT g.* EXCLUDE (codes), coalesce(c.rows_maybe_copied, 0) AS rows_maybe_copied,
       coalesce(map_extract_value(g.codes, 0), 0) + coalesce(map_extract_value(g.codes, 5), 0) AS rows_quarantined,
       coalesce(map_extract_value(g.codes, 5), 0) AS rows_copied,
       coalesce(map_extract_value(g.codes, 1), 0) + coalesce(map_extract_value(g.codes, 2), 0)
           + coalesce(map_extract_value(g.codes, 6), 0) AS requests_sent,
       coalesce(map_extract_value(g.codes, 1), 0) AS requests_ok,
       coalesce(map_extract_value(g.codes, 2), 0) + coalesce(map_extract_value(g.codes, 6), 0) AS requests_failed,
       coalesce(map_extract_value(g.codes, 6), 0) AS requests_unusable,
       coalesce(map_extract_value(g.codes, 3), 0) AS requests_warmup_excluded,
       coalesce(map_extract_value(g.codes, 4), 0) AS requests_cooldown_excluded,
       g.input_tokens_sum / nullif(g.input_tokens_counted, 0) AS input_tokens_mean,
       g.output_tokens_sum / nullif(g.output_tokens_counted, 0) AS output_tokens_mean
FROM grouped AS g
LEFT JOIN copies AS c
    ON g.grouping_set = 'repeat' AND c.source_id = g.source_id
   AND c.file_offered_rate_per_s IS NOT DISTINCT FROM g.file_offered_rate_per_s
   AND c.file_concurrency IS NOT DISTINCT FROM g.file_concurrency
