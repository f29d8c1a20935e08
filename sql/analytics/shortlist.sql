-- analytics.shortlist: the decision table, one row per profile x config x price, in the profile's one ranking
-- (rank_in_profile: by the monthly bill at our volume where the profile states one, else by cost per request).
-- The MLPerf reference (benchmark) and what the config delivered at the
-- profile's SLO (observed or projected) sit in separate columns; caveats list every difference.
--
-- Columns described on: marts.config_shortlist
SELECT *
FROM marts.config_shortlist
ORDER BY profile, rank_in_profile
