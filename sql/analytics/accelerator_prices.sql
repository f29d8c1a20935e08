-- analytics.accelerator_prices: dated accelerator-hour prices with their sources (benchmark
-- evidence); costs use the newest price per accelerator, price class and provider.
--
-- Columns described on: benchmark.accelerator_prices
-- column used_for_costs: True when this is the newest price of its accelerator, class and provider (the one cost.cost_per_request applies); unknown accelerators are never used.
SELECT
    *,
    accelerator_id IS NOT NULL AND row_number() OVER (
        PARTITION BY accelerator_id, price_class, provider
        ORDER BY as_of DESC, usd_per_accelerator_hour, source_row
    ) = 1 AS used_for_costs
FROM benchmark.accelerator_prices
ORDER BY accelerator_raw, price_class, usd_per_accelerator_hour
