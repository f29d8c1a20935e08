-- The reference-vs-delivered gap per config: the MLPerf number per accelerator that the profile is compared with
-- (benchmark.mlperf_profile_reference: Interactive where the profile's SLO is at least as strict as Interactive's
-- bounds and the system published an Interactive result, else Server) beside what the config delivered per
-- accelerator within the profile's SLO, and their ratio; the Server and Offline numbers stay beside it.
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
    coalesce(p.reference_scenario, 'Server') AS mlperf_reference_scenario,
    coalesce(p.reference_tokens_per_s_per_accel, r.server_tokens_per_s_per_accel)
        AS mlperf_reference_tokens_per_s_per_accel,
    r.server_tokens_per_s_per_accel AS mlperf_server_tokens_per_s_per_accel,
    r.interactive_tokens_per_s_per_accel AS mlperf_interactive_tokens_per_s_per_accel,
    r.offline_tokens_per_s_per_accel AS mlperf_offline_tokens_per_s_per_accel,
    d.delivered_output_tokens_per_s_per_accel_low,
    d.delivered_output_tokens_per_s_per_accel_high,
    d.delivered_output_tokens_per_s_per_accel_low
        / coalesce(p.reference_tokens_per_s_per_accel, r.server_tokens_per_s_per_accel) AS delivered_fraction_low,
    d.delivered_output_tokens_per_s_per_accel_high
        / coalesce(p.reference_tokens_per_s_per_accel, r.server_tokens_per_s_per_accel) AS delivered_fraction_high,
    p.reference_reason AS mlperf_reference_reason
FROM analytics.delivered_at_slo AS d
LEFT JOIN analytics.mlperf_reference AS r ON r.accelerator_id = d.accelerator_id AND r.model_id = d.model_id
LEFT JOIN benchmark.mlperf_profile_reference AS p
    ON p.profile = d.profile AND p.accelerator_id = d.accelerator_id AND p.model_id = d.model_id
WHERE $profile IS NULL OR d.profile = $profile
ORDER BY d.profile, d.evidence, delivered_fraction_low DESC NULLS LAST
