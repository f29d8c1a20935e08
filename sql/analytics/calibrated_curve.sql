-- analytics.calibrated_curve: each profile's traffic (its traffic log, else its workload means and arrival CV)
-- replayed through each config's calibrated engine model at 20+ rates from light load to past saturation: the
-- predicted latency percentiles, achieved rate and error rate; config_status marks an unreliable model (never bills).
--
-- Columns described on: calibrated.latency_curve
SELECT
    profile, config_key, config_label, model_key, run_labels, config_status, point_index, requests_per_s, sent_requests_per_s,
    achieved_requests_per_s, ttft_p50_ms, ttft_p90_ms, ttft_p95_ms, ttft_p99_ms, tpot_p50_ms, tpot_p90_ms,
    tpot_p95_ms, tpot_p99_ms, itl_p50_ms, itl_p90_ms, itl_p95_ms, itl_p99_ms, e2e_p50_ms, e2e_p90_ms, e2e_p95_ms,
    e2e_p99_ms, error_rate, prefill_share, traffic_basis, traffic_sample
FROM calibrated.latency_curve
ORDER BY profile, config_label, config_key, point_index
