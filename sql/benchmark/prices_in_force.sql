-- benchmark.prices_in_force: the price each cost applies, one row per accelerator x price class x provider: the
-- newest (price_as_of), the lowest on a tie, then the first in its file (benchmark.accelerator_prices; a price whose
-- accelerator the alias table does not know never joins a config, so it is left out here).
SELECT * EXCLUDE (newest)
FROM (
    SELECT *,
           row_number() OVER (PARTITION BY accelerator_id, price_class, price_provider
                              ORDER BY price_as_of DESC, usd_per_accelerator_hour, source_row) AS newest
    FROM benchmark.accelerator_prices
    WHERE accelerator_id IS NOT NULL
)
WHERE newest = 1
ORDER BY accelerator_id, price_class, price_provider
