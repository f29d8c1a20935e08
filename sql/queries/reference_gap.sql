-- The reference-vs-delivered gap per config: the MLPerf Server number per accelerator beside
-- what the config delivered per accelerator within the profile's SLO, and their ratio.
--
-- param profile (optional): only this profile (default: every profile)
-- values profile: one of analytics.profiles.profile
SELECT
    d.profile,
    d.evidence,
    d.accelerator_id,
    d.accelerator_count,
    d.run_label,
    d.precision,
    r.precision AS mlperf_precision,
    r.round AS mlperf_round,
    r.submitter AS mlperf_submitter,
    r.server_tokens_per_s_per_accel AS mlperf_server_tokens_per_s_per_accel,
    r.offline_tokens_per_s_per_accel AS mlperf_offline_tokens_per_s_per_accel,
    d.delivered_output_tokens_per_s_per_accel_low,
    d.delivered_output_tokens_per_s_per_accel_high,
    d.delivered_output_tokens_per_s_per_accel_low / r.server_tokens_per_s_per_accel AS delivered_fraction_low,
    d.delivered_output_tokens_per_s_per_accel_high / r.server_tokens_per_s_per_accel AS delivered_fraction_high
FROM analytics.delivered_at_slo AS d
LEFT JOIN analytics.mlperf_reference AS r ON r.accelerator_id = d.accelerator_id AND r.model_id = d.model_id
WHERE $profile IS NULL OR d.profile = $profile
ORDER BY d.profile, d.evidence, delivered_fraction_low DESC NULLS LAST
