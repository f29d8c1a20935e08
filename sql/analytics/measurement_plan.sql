-- analytics.measurement_plan: each profile's measurement plan, one row per plan row x load level, ranked: what to
-- measure (marts.measurement_plan: the config, why, what it could move a month) and, per level, the rate, the
-- requests and the prediction made before measuring (calibrated.plan_predictions; empty for a config without an
-- engine model). The plan's files are in the warehouse folder under plan_folder.
--
-- Columns described on: marts.measurement_plan, calibrated.plan_predictions
SELECT p.*, l.level, l.rate_multiple, l.requests_per_s, l.requests, l.duration_s,
       l.ttft_p50_ms, l.ttft_p95_ms, l.ttft_p99_ms, l.tpot_p50_ms, l.tpot_p95_ms, l.tpot_p99_ms,
       l.e2e_p50_ms, l.e2e_p95_ms, l.e2e_p99_ms, l.achieved_requests_per_s
FROM marts.measurement_plan AS p
JOIN calibrated.plan_predictions AS l USING (plan_id)
ORDER BY p.profile, p.plan_rank, l.level
