-- cost.cost_per_request: per config x profile x price (the newest per accelerator, class and provider).
--
--   cost per request   = usd_per_accelerator_hour x accelerators / (requests_per_s x 3600)
--   cost per 1M tokens = usd_per_accelerator_hour x accelerators / (tokens_per_s x 3600) x 1e6, for
--                        output, input and total tokens; each basis carries the whole accelerator-hour,
--                        so the three are alternatives, not parts of one bill.
--   low cost uses the high throughput, high cost the low throughput (the macros of sql/macros.sql).
WITH prices AS (
    SELECT *
    FROM (
        SELECT *,
               row_number() OVER (PARTITION BY accelerator_id, price_class, provider
                                  ORDER BY as_of DESC, usd_per_accelerator_hour, source_row) AS newest
        FROM benchmark.accelerator_prices
        WHERE accelerator_id IS NOT NULL
    )
    WHERE newest = 1
),
configs AS (
    SELECT profile, 'observed' AS evidence, run_id AS config_key, run_label, model_id, accelerator_id,
           accelerator_count, precision, runtime, runtime_version,
           delivered_requests_per_s_low AS rps_lo, delivered_requests_per_s_high AS rps_hi,
           delivered_output_tokens_per_s_low AS out_lo, delivered_output_tokens_per_s_high AS out_hi,
           delivered_input_tokens_per_s_low AS in_lo, delivered_input_tokens_per_s_high AS in_hi,
           delivered_total_tokens_per_s_low AS tot_lo, delivered_total_tokens_per_s_high AS tot_hi
    FROM observed.delivered_at_slo
    WHERE feasible AND accelerator_id IS NOT NULL
    UNION ALL
    SELECT profile, 'projected', 'mlperf:' || mlperf_result_key, NULL, model_id, accelerator_id,
           accelerator_count, precision, runtime, runtime_version,
           delivered_requests_per_s_low, delivered_requests_per_s_high,
           delivered_output_tokens_per_s_low, delivered_output_tokens_per_s_high,
           NULL, NULL, NULL, NULL
    FROM projected.delivered_at_slo
),
hourly AS (
    SELECT c.*, p.price_class, p.provider AS price_provider, p.usd_per_accelerator_hour,
           p.as_of AS price_as_of, p.price_source,
           p.usd_per_accelerator_hour * c.accelerator_count AS usd_per_hour
    FROM configs AS c
    JOIN prices AS p ON p.accelerator_id = c.accelerator_id
)
SELECT
    profile,
    evidence,
    config_key,
    run_label,
    model_id,
    accelerator_id,
    accelerator_count,
    precision,
    runtime,
    runtime_version,
    price_class,
    price_provider,
    usd_per_accelerator_hour,
    price_as_of,
    price_source,
    rps_lo AS delivered_requests_per_s_low,
    rps_hi AS delivered_requests_per_s_high,
    out_lo AS delivered_output_tokens_per_s_low,
    out_hi AS delivered_output_tokens_per_s_high,
    usd_per_request(usd_per_hour, rps_hi) AS cost_per_request_usd_low,
    usd_per_request(usd_per_hour, rps_lo) AS cost_per_request_usd_high,
    usd_per_million_tokens(usd_per_hour, out_hi) AS cost_per_million_output_tokens_usd_low,
    usd_per_million_tokens(usd_per_hour, out_lo) AS cost_per_million_output_tokens_usd_high,
    usd_per_million_tokens(usd_per_hour, in_hi) AS cost_per_million_input_tokens_usd_low,
    usd_per_million_tokens(usd_per_hour, in_lo) AS cost_per_million_input_tokens_usd_high,
    usd_per_million_tokens(usd_per_hour, tot_hi) AS cost_per_million_total_tokens_usd_low,
    usd_per_million_tokens(usd_per_hour, tot_lo) AS cost_per_million_total_tokens_usd_high,
    'each token basis carries the whole accelerator-hour (output, input and total costs are alternatives, not additive)'
        AS token_cost_basis
FROM hourly
ORDER BY profile, evidence, config_key, price_class, price_provider
