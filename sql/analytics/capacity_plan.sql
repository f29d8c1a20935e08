-- analytics.capacity_plan: what each config costs a month at our volume, one row per profile x config x
-- price, cheapest effective cost per request first within each profile: replicas for our peak, the static
-- and autoscaled monthly bill, the utilisation sustained, and the saving against what we run today.
--
-- Columns described on: marts.capacity_plan
-- column rank_in_profile: Position of the row within its profile, by high effective cost per request (1 = cheapest).
SELECT
    row_number() OVER (
        PARTITION BY profile
        ORDER BY effective_cost_per_request_usd_high NULLS LAST, evidence, accelerator, run_label, price_class,
                 price_provider
    ) AS rank_in_profile,
    *
FROM marts.capacity_plan
ORDER BY profile, rank_in_profile
