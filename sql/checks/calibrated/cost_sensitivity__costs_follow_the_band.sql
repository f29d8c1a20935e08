-- A priced variant has a cost band that is not upside down, carries the band's held-out error and our mix's rate
-- ratio of 1; a lower bound has its high cost; only poisson_arrivals rows carry a bursts cost; what is not priced
-- says why.
--
-- blocking: true
-- Rows whose cost band is missing or upside down, without a held-out error, our mix at a ratio other than 1, a
-- bursts cost on another variant, or an unpriced row without its reason.
SELECT profile, config_key, variant, status, price_class, price_provider, cost_per_request_usd_low,
       cost_per_request_usd_high, band_rel_error, rate_ratio, status_reason
FROM calibrated.cost_sensitivity
WHERE (status = 'priced' AND (cost_per_request_usd_low IS NULL OR cost_per_request_usd_high IS NULL
                              OR cost_per_request_usd_low > cost_per_request_usd_high
                              OR cost_per_million_output_tokens_usd_low > cost_per_million_output_tokens_usd_high))
   OR (status = 'lower_bound' AND cost_per_request_usd_high IS NULL)
   OR (status IN ('priced', 'lower_bound') AND band_rel_error IS NULL)
   OR (variant = 'our_mix' AND status IN ('priced', 'lower_bound') AND abs(rate_ratio - 1) > 1e-9)
   OR (variant <> 'poisson_arrivals' AND (bursts_monthly_usd_low IS NOT NULL OR bursts_monthly_usd_high IS NOT NULL))
   OR (status NOT IN ('priced', 'lower_bound') AND status_reason IS NULL)
