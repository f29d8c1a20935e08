-- Low cost never exceeds high cost.
--
-- blocking: true
-- Cost bands that are upside down.
SELECT profile, config_key, price_class, price_provider, cost_per_request_usd_low, cost_per_request_usd_high
FROM cost.cost_per_request
WHERE cost_per_request_usd_low > cost_per_request_usd_high
   OR cost_per_million_output_tokens_usd_low > cost_per_million_output_tokens_usd_high
