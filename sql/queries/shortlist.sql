-- The shortlist for one profile, in its ranking (rank_in_profile: the recommended config first): the MLPerf
-- reference (benchmark), the band the bill rests on (billed_requests_per_s_*, billed_basis: measured, calibrated or
-- projected) and the band the run sustained as measured (measured_requests_per_s_*; empty for a projection) in
-- separate columns, the price, the cost range, caveats. Costs in the units the terminal and the report show, named in the column: USD per 1,000 requests
-- (analytics.shortlist.cost_per_request_usd_* x 1,000) and USD per 1M output tokens.
--
-- param profile: the profile's name (`benchbill sql "SELECT profile, slo_text FROM analytics.profiles"` lists them)
-- values profile: one of analytics.profiles.profile
SELECT
    rank_in_profile,
    accelerator_id,
    accelerator_count,
    evidence,
    run_label,
    precision,
    mlperf_round,
    mlperf_submitter,
    mlperf_server_tokens_per_s_per_accel,
    billed_requests_per_s_low,
    billed_requests_per_s_high,
    billed_basis,
    measured_requests_per_s_low,
    measured_requests_per_s_high,
    delivered_fraction_low,
    delivered_fraction_high,
    price_class,
    price_provider,
    usd_per_accelerator_hour,
    cost_per_request_usd_low * 1000 AS cost_per_thousand_requests_usd_low,
    cost_per_request_usd_high * 1000 AS cost_per_thousand_requests_usd_high,
    cost_per_million_output_tokens_usd_low,
    cost_per_million_output_tokens_usd_high,
    caveats
FROM analytics.shortlist
WHERE profile = $profile
ORDER BY rank_in_profile
