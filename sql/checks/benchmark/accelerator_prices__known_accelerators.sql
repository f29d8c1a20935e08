-- Every price names an accelerator the alias table knows (unknown ones cannot join to a config).
--
-- severity: warn
-- Prices whose accelerator name has no canonical id: they are kept but cannot join to any config.
SELECT accelerator_raw, price_class, price_provider, source
FROM benchmark.accelerator_prices
WHERE NOT accelerator_known
