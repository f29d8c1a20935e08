-- calibrated.cost_sensitivity: what the token mix and the bursts cost, priced. Run by
-- assets/calibrate/cost_sensitivity.py over `sensitivity_rates` (per profile x config x variant: the delivered band
-- the engine model re-derives for that variant of our traffic), one row per rate row x price in force
-- (benchmark.prices_in_force, as cost.cost_per_request applies it). A lower_bound rate (our mix's calibrated rate is
-- at least its low end) is priced too: its high cost and high monthly bill are bounds, its low ones NULL. The
-- arithmetic is that of sql/macros.sql:
--
--   cost_per_request_usd_low/high  = usd_per_request(usd_per_hour, delivered_high / delivered_low)
--   cost_per_million_output_tokens = usd_per_million_tokens(usd_per_hour, delivered x output_tokens_mean)
--   cost_per_request_change_low/high = the variant's cost_per_request_usd_low/high over our mix's at the model's
--                                    own rate (usd_per_request(usd_per_hour, our point)), minus 1
--   monthly_usd_low/high           = monthly_usd(replicas_for(peak, delivered_high / delivered_low), ...) at the
--                                    profile's volume (marts.capacity_plan's mean and peak)
--   bursts_monthly_usd_low/high    = (poisson_arrivals rows) the smaller / larger of our mix's monthly_usd_low -
--                                    this row's and our mix's monthly_usd_high - this row's (the same model error
--                                    moves both bills)
WITH volume AS (
    SELECT DISTINCT profile, mean_requests_per_s, peak_requests_per_s FROM marts.capacity_plan
),
priced AS (
    SELECT r.*, p.price_class, p.price_provider, p.usd_per_accelerator_hour, p.price_as_of,
           p.usd_per_accelerator_hour * r.accelerator_count AS usd_per_hour,
           v.mean_requests_per_s, v.peak_requests_per_s
    FROM sensitivity_rates AS r
    LEFT JOIN benchmark.prices_in_force AS p
        ON p.accelerator_id = r.accelerator_id AND r.status IN ('priced', 'lower_bound')
    LEFT JOIN volume AS v ON v.profile = r.profile AND r.status IN ('priced', 'lower_bound')
),
costed AS (
    SELECT *,
           usd_per_request(usd_per_hour, delivered_requests_per_s_high) AS cost_low,
           usd_per_request(usd_per_hour, delivered_requests_per_s_low) AS cost_high,
           usd_per_request(usd_per_hour, delivered_requests_per_s_model) AS cost_model,
           monthly_usd(replicas_for(peak_requests_per_s, delivered_requests_per_s_high), accelerator_count,
                       usd_per_accelerator_hour) AS monthly_low,
           monthly_usd(replicas_for(peak_requests_per_s, delivered_requests_per_s_low), accelerator_count,
                       usd_per_accelerator_hour) AS monthly_high
    FROM priced
),
ours AS (
    SELECT profile, config_key, price_class, price_provider, cost_model AS our_cost_model,
           monthly_low AS our_monthly_low, monthly_high AS our_monthly_high
    FROM costed
    WHERE variant = 'our_mix' AND price_class IS NOT NULL
)
SELECT
    c.profile, c.config_key, c.config_label, c.run_labels, c.model_id, c.model_key, c.accelerator_id,
    c.accelerator_count,
    c.variant,
    CASE WHEN c.status IN ('priced', 'lower_bound') AND c.price_class IS NULL THEN 'no_price' ELSE c.status END
        AS status,
    CASE WHEN c.status IN ('priced', 'lower_bound') AND c.price_class IS NULL
         THEN 'no price for ' || c.accelerator_id || ' in benchmark.accelerator_prices: nothing to bill'
         ELSE c.status_reason END AS status_reason,
    c.input_tokens_mean, c.output_tokens_mean, c.interarrival_cv, c.rate_ratio, c.rate_found,
    c.delivered_requests_per_s_low, c.delivered_requests_per_s_high, c.band_rel_error, c.band_basis,
    c.heldout_rel_error_median, c.heldout_rel_error_worst, c.prefill_share,
    c.price_class, c.price_provider, c.usd_per_accelerator_hour, c.price_as_of,
    c.cost_low AS cost_per_request_usd_low,
    c.cost_high AS cost_per_request_usd_high,
    usd_per_million_tokens(c.usd_per_hour, c.delivered_requests_per_s_high * c.output_tokens_mean)
        AS cost_per_million_output_tokens_usd_low,
    usd_per_million_tokens(c.usd_per_hour, c.delivered_requests_per_s_low * c.output_tokens_mean)
        AS cost_per_million_output_tokens_usd_high,
    c.cost_low / o.our_cost_model - 1 AS cost_per_request_change_low,
    c.cost_high / o.our_cost_model - 1 AS cost_per_request_change_high,
    c.mean_requests_per_s, c.peak_requests_per_s,
    c.monthly_low AS monthly_usd_low,
    c.monthly_high AS monthly_usd_high,
    CASE WHEN c.variant = 'poisson_arrivals'
         THEN least(o.our_monthly_low - c.monthly_low, o.our_monthly_high - c.monthly_high) END
        AS bursts_monthly_usd_low,
    CASE WHEN c.variant = 'poisson_arrivals'
         THEN greatest(o.our_monthly_low - c.monthly_low, o.our_monthly_high - c.monthly_high) END
        AS bursts_monthly_usd_high,
    c.traffic_basis,
    'calibrated' AS evidence
FROM costed AS c
LEFT JOIN ours AS o USING (profile, config_key, price_class, price_provider)
ORDER BY c.profile, c.config_key, c.price_class NULLS LAST, c.price_provider, c.variant
