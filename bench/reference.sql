-- The reference contender: one hand-written DuckDB query over the generated files (bench/generate.py), computing
-- what our observed layer computes at its core: per config x load level, the p50/p90/p95/p99 of TTFT, TPOT and
-- E2E over the successful measured requests pooled over repeats (quantile_cont, type 7), the achieved request
-- rate (mean over repeats of successful requests over the measured window), and the delivered rate at the
-- profile's SLO (the highest achieved rate whose p95 TTFT and TPOT meet the bounds). No validation, no
-- intervals, no provenance: the engine's own speed, our practical limit. {data} is the data set folder.
WITH requests AS (
    SELECT 'h100-vllm' AS config, filename AS repeat, offered_rate_per_s AS level, phase, status, start_time_unix_s,
           ttft_ms, e2e_ms, output_tokens
    FROM read_parquet('{data}/h100-vllm/*.parquet', filename = true)
    UNION ALL
    SELECT 'l40s-vllm', filename, concurrency, phase, status, start_time_unix_s, ttft_ms, e2e_ms, output_tokens
    FROM read_parquet('{data}/l40s-vllm/*.parquet', filename = true)
    UNION ALL
    SELECT 'h200-sglang', filename, offered_rate_per_s, phase, status, start_time_unix_s, ttft_ms, e2e_ms, output_tokens
    FROM read_csv('{data}/h200-sglang/*.csv', filename = true)
    UNION ALL
    SELECT 'mi300x-vllm', r.filename, a.rate,
           CASE WHEN r.metadata.benchmark_phase = 'warmup' THEN 'warmup' ELSE 'measure' END,
           CASE WHEN r.error IS NULL THEN 'ok' ELSE 'error' END,
           r.metadata.request_start_ns / 1e9, r.metrics.time_to_first_token.value, r.metrics.request_latency.value,
           r.metrics.output_sequence_length.value
    FROM read_ndjson('{data}/mi300x-vllm/*/profile_export.jsonl', filename = true, columns = {
        metadata: 'STRUCT(request_start_ns BIGINT, benchmark_phase VARCHAR)',
        metrics: 'STRUCT(time_to_first_token STRUCT(value DOUBLE), request_latency STRUCT(value DOUBLE), '
                 || 'output_sequence_length STRUCT(value BIGINT))',
        error: 'JSON'}) AS r
    JOIN (SELECT parse_dirpath(filename) AS folder, input_config.phases[1].rate AS rate
          FROM read_json('{data}/mi300x-vllm/*/profile_export_aiperf.json', filename = true)) AS a
        ON a.folder = parse_dirpath(r.filename)
),
measured AS (
    SELECT *, CASE WHEN output_tokens >= 2 THEN (e2e_ms - ttft_ms) / (output_tokens - 1) END AS tpot_ms
    FROM requests
    WHERE phase = 'measure'
),
windows AS (
    SELECT config, level, repeat,
           count(*) FILTER (WHERE status = 'ok') / (max(start_time_unix_s + coalesce(e2e_ms, 0) / 1000)
                                                   - min(start_time_unix_s)) AS achieved
    FROM measured
    GROUP BY ALL
),
points AS (
    SELECT config, level, count(*) AS requests_ok,
           quantile_cont(ttft_ms, [0.5, 0.9, 0.95, 0.99]) AS ttft,
           quantile_cont(tpot_ms, [0.5, 0.9, 0.95, 0.99]) AS tpot,
           quantile_cont(e2e_ms, [0.5, 0.9, 0.95, 0.99]) AS e2e
    FROM measured
    WHERE status = 'ok'
    GROUP BY ALL
),
rated AS (
    SELECT p.*, avg(w.achieved) AS achieved_requests_per_s
    FROM points AS p
    JOIN windows AS w USING (config, level)
    GROUP BY ALL
)
SELECT config, level, requests_ok, achieved_requests_per_s,
       ttft[1] AS ttft_p50_ms, ttft[2] AS ttft_p90_ms, ttft[3] AS ttft_p95_ms, ttft[4] AS ttft_p99_ms,
       tpot[1] AS tpot_p50_ms, tpot[2] AS tpot_p90_ms, tpot[3] AS tpot_p95_ms, tpot[4] AS tpot_p99_ms,
       e2e[1] AS e2e_p50_ms, e2e[2] AS e2e_p90_ms, e2e[3] AS e2e_p95_ms, e2e[4] AS e2e_p99_ms,
       max(achieved_requests_per_s) FILTER (WHERE ttft[3] <= 1000 AND tpot[3] <= 50) OVER (PARTITION BY config)
           AS delivered_requests_per_s
FROM rated
ORDER BY config, level
