-- The shortlist for one profile, cheapest first: the MLPerf reference (benchmark) and the
-- delivered band (observed or projected) in separate columns, the price, the cost range, caveats.
--
-- param profile: the profile's name (`benchbill sql "SELECT profile, slo_text FROM analytics.profiles"` lists them)
-- values profile: one of analytics.profiles.profile
SELECT
    rank_in_profile AS rank,
    accelerator,
    accelerator_count,
    evidence,
    run_label,
    precision,
    mlperf_round,
    mlperf_submitter,
    mlperf_server_tokens_per_s_per_accel,
    delivered_requests_per_s_low,
    delivered_requests_per_s_high,
    delivered_fraction_low,
    delivered_fraction_high,
    price_class,
    price_provider,
    usd_per_accelerator_hour,
    cost_per_request_usd_low,
    cost_per_request_usd_high,
    cost_per_million_output_tokens_usd_low,
    cost_per_million_output_tokens_usd_high,
    caveats
FROM analytics.shortlist
WHERE profile = $profile
ORDER BY rank_in_profile
