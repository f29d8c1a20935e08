-- analytics.load_points: one row per run x load level (observed evidence), with the run's config
-- beside the measurements: rates, latency percentiles in ms, tokens/s and errors.
--
-- Columns described on: observed.load_points, observed.runs
-- column output_tokens_per_s_per_accel: Output tokens/s per accelerator (output_tokens_per_s / accelerator_count), comparable with MLPerf's per-accelerator numbers.
SELECT
    r.run_label,
    r.accelerator_id,
    r.accelerator_count,
    r.model_id,
    r.precision,
    r.runtime,
    r.runtime_version,
    r.arrival,
    lp.run_id,
    lp.load_index,
    lp.load_kind,
    lp.offered_rate_per_s,
    lp.concurrency,
    lp.max_concurrency,
    lp.achieved_requests_per_s,
    lp.achieved_rate_missing_reason,
    lp.requests_sent,
    lp.requests_failed,
    lp.error_rate,
    lp.ttft_p50_ms, lp.ttft_p90_ms, lp.ttft_p95_ms, lp.ttft_p99_ms,
    lp.tpot_p50_ms, lp.tpot_p90_ms, lp.tpot_p95_ms, lp.tpot_p99_ms,
    lp.itl_p50_ms, lp.itl_p90_ms, lp.itl_p95_ms, lp.itl_p99_ms,
    lp.e2e_p50_ms, lp.e2e_p90_ms, lp.e2e_p95_ms, lp.e2e_p99_ms,
    lp.input_tokens_per_s,
    lp.output_tokens_per_s,
    lp.output_tokens_per_s / r.accelerator_count AS output_tokens_per_s_per_accel,
    lp.input_tokens_mean,
    lp.output_tokens_mean,
    lp.percentile_source,
    lp.source,
    lp.source_sha256,
    lp.evidence
FROM observed.load_points AS lp
JOIN observed.runs AS r USING (run_id)
ORDER BY r.run_label, lp.load_index
