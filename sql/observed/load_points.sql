-- observed.load_points: one row per run x load level, over the level's repeats. Rates and token rates are the
-- mean over repeats (with the lowest and highest achieved rate); latency percentiles and the error rate come
-- from observed.load_point_measures (recomputed from per-request records where the dump has them, else the
-- tool's aggregates where its definition is ours). Requests left out of the percentiles are counted
-- (observed.request_stats): warm-up, cool-down, and failed (error, incomplete, cancelled) measured requests.
-- A rate that cannot be computed is NULL with its reason (achieved_rate_missing_reason), never 0.
WITH levels AS (
    SELECT run_id, load_index,
           any_value(load_kind) AS load_kind,
           avg(offered_rate_per_s) AS offered_rate_per_s,
           avg(concurrency) AS concurrency,
           max(max_concurrency) AS max_concurrency,  -- one cap per level: files at one rate with different caps are different runs
           avg(sent_requests_per_s) AS sent_requests_per_s,
           avg(achieved_requests_per_s) AS achieved_requests_per_s,
           min(achieved_requests_per_s) AS achieved_requests_per_s_min,
           max(achieved_requests_per_s) AS achieved_requests_per_s_max,
           sum(requests_sent)::BIGINT AS tool_requests_sent,
           sum(requests_ok)::BIGINT AS tool_requests_ok,
           sum(requests_failed)::BIGINT AS tool_requests_failed,
           sum(duration_s) AS duration_s,
           avg(input_tokens_per_s) AS input_tokens_per_s,
           avg(output_tokens_per_s) AS output_tokens_per_s,
           avg(total_tokens_per_s) AS total_tokens_per_s,
           avg(input_tokens_mean) AS input_tokens_mean,
           avg(output_tokens_mean) AS output_tokens_mean,
           count(*) AS repeats,
           string_agg(DISTINCT tool_definitions, ' | ' ORDER BY tool_definitions) AS tool_definitions,
           string_agg(DISTINCT source, ', ' ORDER BY source) AS source,
           sha256(string_agg(source_sha256, '' ORDER BY repeat_index)) AS source_sha256
    FROM observed.measurements
    GROUP BY run_id, load_index
),
request_counts AS (
    SELECT run_id, load_index,
           sum(requests_sent)::BIGINT AS requests_sent,
           sum(requests_ok)::BIGINT AS requests_ok,
           sum(requests_failed)::BIGINT AS requests_failed,
           sum(requests_unusable)::BIGINT AS requests_unusable,
           sum(requests_warmup_excluded)::BIGINT AS requests_warmup_excluded,
           sum(requests_cooldown_excluded)::BIGINT AS requests_cooldown_excluded,
           sum(input_tokens_mean * requests_ok) / nullif(sum(requests_ok), 0) AS input_tokens_mean,
           sum(output_tokens_mean * requests_ok) / nullif(sum(requests_ok), 0) AS output_tokens_mean
    FROM observed.request_stats
    GROUP BY run_id, load_index
),
wide AS (
    PIVOT (SELECT run_id, load_index, measure, value FROM observed.load_point_measures)
    ON measure IN (
        'ttft_p50_ms', 'ttft_p90_ms', 'ttft_p95_ms', 'ttft_p99_ms',
        'tpot_p50_ms', 'tpot_p90_ms', 'tpot_p95_ms', 'tpot_p99_ms',
        'itl_p50_ms', 'itl_p90_ms', 'itl_p95_ms', 'itl_p99_ms',
        'e2e_p50_ms', 'e2e_p90_ms', 'e2e_p95_ms', 'e2e_p99_ms', 'error_rate'
    )
    USING any_value(value)
    GROUP BY run_id, load_index
),
sources AS (
    SELECT run_id, load_index,
           bool_or(source = 'per_request' AND measure <> 'error_rate') AS any_per_request,
           bool_and(source = 'per_request' OR measure = 'error_rate' OR measure LIKE 'itl%') AS all_per_request,
           max(requests_used) AS requests_used
    FROM observed.load_point_measures
    GROUP BY run_id, load_index
)
SELECT
    l.run_id,
    l.load_index,
    l.load_kind,
    l.offered_rate_per_s,
    l.concurrency,
    l.max_concurrency,
    l.sent_requests_per_s,
    l.achieved_requests_per_s,
    l.achieved_requests_per_s_min,
    l.achieved_requests_per_s_max,
    CASE WHEN l.achieved_requests_per_s IS NULL
         THEN 'no rate: the tool reports none and its per-request records give no measured window '
              || '(no send times, or none completed); the level is left out of delivered_at_slo'
    END AS achieved_rate_missing_reason,
    coalesce(c.requests_sent, l.tool_requests_sent, l.tool_requests_ok + l.tool_requests_failed, l.tool_requests_ok, 0)
        AS requests_sent,
    coalesce(c.requests_ok, l.tool_requests_ok, 0) AS requests_ok,
    coalesce(c.requests_failed, l.tool_requests_failed, 0) AS requests_failed,
    c.requests_unusable,
    c.requests_warmup_excluded,
    c.requests_cooldown_excluded,
    coalesce(w.error_rate, 0.0) AS error_rate,
    l.duration_s,
    w.ttft_p50_ms, w.ttft_p90_ms, w.ttft_p95_ms, w.ttft_p99_ms,
    w.tpot_p50_ms, w.tpot_p90_ms, w.tpot_p95_ms, w.tpot_p99_ms,
    w.itl_p50_ms, w.itl_p90_ms, w.itl_p95_ms, w.itl_p99_ms,
    w.e2e_p50_ms, w.e2e_p90_ms, w.e2e_p95_ms, w.e2e_p99_ms,
    l.input_tokens_per_s,
    l.output_tokens_per_s,
    l.total_tokens_per_s,
    coalesce(l.input_tokens_mean, c.input_tokens_mean) AS input_tokens_mean,
    coalesce(l.output_tokens_mean, c.output_tokens_mean) AS output_tokens_mean,
    CASE WHEN s.any_per_request THEN 'per_request' ELSE 'tool_aggregate' END AS percentile_source,
    CASE WHEN s.any_per_request
         THEN 'quantile_cont (linear interpolation, type 7) over ' || s.requests_used || ' measured requests'
              || CASE WHEN s.all_per_request THEN '' ELSE '; ITL from the tool' END
         ELSE 'the tool''s own (see tool_definitions)' END AS percentile_estimator,
    l.repeats,
    l.tool_definitions,
    l.source,
    l.source_sha256,
    'observed' AS evidence
FROM levels AS l
LEFT JOIN request_counts AS c USING (run_id, load_index)
LEFT JOIN wide AS w USING (run_id, load_index)
LEFT JOIN sources AS s USING (run_id, load_index)
ORDER BY l.run_id, l.load_index
