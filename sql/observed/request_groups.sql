-- request_groups (a temporary table of the request pass, assets/request_stats.py): per request source x load
-- level as the file states it, from one scan of every per-request source (`request_rows`: files read in place
-- and the JSON formats' frames, TPOT by our definition, `valid` = every check of schemas.requests passes).
-- Rows failing a check are counted (rows_quarantined) and left out of everything else. Measured = phase
-- 'measure'; ok = measured and status 'ok'. The window runs from the first measured send to the last measured
-- completion. first_arrivals_s keeps the first 5,000 measured send times (for the inter-arrival CV); the
-- *_values lists hold each measure of the ok requests (for the percentiles: request_stats.sql,
-- request_pooled.sql).
SELECT source_key, run_id, file_offered_rate_per_s, file_concurrency, level_kind, level_nominal,
       count(*) FILTER (WHERE NOT valid) AS rows_quarantined,
       min(ordinal) FILTER (WHERE valid) AS first_ordinal,
       min(start_s) FILTER (WHERE valid) AS first_start_any_s,
       count(*) FILTER (WHERE valid AND phase = 'measure') AS requests_sent,
       count(*) FILTER (WHERE valid AND phase = 'measure' AND status = 'ok') AS requests_ok,
       count(*) FILTER (WHERE valid AND phase = 'measure' AND status <> 'ok') AS requests_failed,
       count(*) FILTER (WHERE valid AND phase = 'warmup') AS requests_warmup_excluded,
       count(*) FILTER (WHERE valid AND phase = 'cooldown') AS requests_cooldown_excluded,
       min(start_s) FILTER (WHERE valid AND phase = 'measure') AS first_start_s,
       max(start_s + coalesce(e2e_ms, 0) / 1000) FILTER (WHERE valid AND phase = 'measure') AS last_end_s,
       (sum(input_tokens) FILTER (WHERE valid AND phase = 'measure' AND status = 'ok'))::BIGINT AS input_tokens_sum,
       (sum(output_tokens) FILTER (WHERE valid AND phase = 'measure' AND status = 'ok'))::BIGINT AS output_tokens_sum,
       avg(input_tokens) FILTER (WHERE valid AND phase = 'measure' AND status = 'ok') AS mean_input_tokens,
       avg(output_tokens) FILTER (WHERE valid AND phase = 'measure' AND status = 'ok') AS mean_output_tokens,
       min(start_s, 5000) FILTER (WHERE valid AND phase = 'measure' AND start_s IS NOT NULL) AS first_arrivals_s,
       list(ttft_ms) FILTER (WHERE valid AND phase = 'measure' AND status = 'ok' AND ttft_ms IS NOT NULL)
           AS ttft_values,
       list(tpot_ms) FILTER (WHERE valid AND phase = 'measure' AND status = 'ok' AND tpot_ms IS NOT NULL)
           AS tpot_values,
       list(e2e_ms) FILTER (WHERE valid AND phase = 'measure' AND status = 'ok' AND e2e_ms IS NOT NULL)
           AS e2e_values
FROM request_rows
GROUP BY ALL
