-- analytics.capacity_plan: what each config costs a month at our volume, one row per profile x config x
-- price, in the profile's one ranking (the shortlist's: lowest monthly bill first, our runs before projections):
-- replicas for our peak, the static and autoscaled monthly bill, the utilisation sustained, and the saving
-- against what we run today.
--
-- Columns described on: marts.capacity_plan
-- column rank_in_profile: Position of the row within its profile's capacity plan, in the shortlist's ranking (marts.config_shortlist.rank_in_profile; 1 = the recommended config at its cheapest price).
SELECT
    row_number() OVER (PARTITION BY c.profile ORDER BY s.rank_in_profile) AS rank_in_profile,
    c.*
FROM marts.capacity_plan AS c
JOIN marts.config_shortlist AS s USING (profile, config_key, price_class, price_provider)
ORDER BY c.profile, rank_in_profile
