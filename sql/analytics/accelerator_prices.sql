-- analytics.accelerator_prices: dated accelerator-hour prices with their sources (benchmark
-- evidence); costs use the newest price per accelerator, price class and provider.
--
-- Columns described on: benchmark.accelerator_prices
-- column used_for_costs: True when this is the price in force of its accelerator, class and provider (benchmark.prices_in_force: the one costs apply); unknown accelerators are never used.
SELECT
    p.*,
    EXISTS (
        SELECT 1 FROM benchmark.prices_in_force AS f WHERE f.source = p.source AND f.source_row = p.source_row
    ) AS used_for_costs
FROM benchmark.accelerator_prices AS p
ORDER BY accelerator_raw, price_class, usd_per_accelerator_hour
