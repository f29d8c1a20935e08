-- analytics.shortlist: the decision table, one row per profile x config x price, cheapest first
-- within each profile. The MLPerf reference (benchmark) and what the config delivered at the
-- profile's SLO (observed or projected) sit in separate columns; caveats list every difference.
--
-- Columns described on: marts.config_shortlist
-- column rank_in_profile: Position of the row within its profile, by high cost per request (1 = cheapest; rows without a cost last; rows failing the profile's quality requirement after all others).
SELECT
    row_number() OVER (
        PARTITION BY profile
        ORDER BY quality_status = 'fails', cost_per_request_usd_high NULLS LAST, evidence, accelerator, run_label, price_class, price_provider
    ) AS rank_in_profile,
    *
FROM marts.config_shortlist
ORDER BY profile, rank_in_profile
