-- The cost arithmetic every cost table applies, defined once as DuckDB macros (run_sql_file creates them on the
-- connection before a table's SELECT): cost.cost_per_request, marts.capacity_plan and
-- calibrated.cost_sensitivity read a rate and an hourly price through these, never restate them.
--
--   usd_per_request(usd_per_hour, requests_per_s)       = usd_per_hour / (requests_per_s x 3600)
--   usd_per_million_tokens(usd_per_hour, tokens_per_s)  = usd_per_hour / (tokens_per_s x 3600) x 1e6
--   replicas_for(peak_requests_per_s, delivered_requests_per_s) = ceil(peak / delivered), as a whole number
--   monthly_usd(replicas, accelerators, usd_per_accelerator_hour) = replicas x accelerators x price x 730
--   (a rate of 0 or NULL gives NULL: no cost without a rate; a month is 730 hours)
CREATE OR REPLACE TEMP MACRO usd_per_request(usd_per_hour, requests_per_s) AS
    usd_per_hour / (nullif(requests_per_s, 0) * 3600);
CREATE OR REPLACE TEMP MACRO usd_per_million_tokens(usd_per_hour, tokens_per_s) AS
    usd_per_hour / (nullif(tokens_per_s, 0) * 3600) * 1e6;
CREATE OR REPLACE TEMP MACRO monthly_usd(replicas, accelerators, usd_per_accelerator_hour) AS
    replicas * accelerators * usd_per_accelerator_hour * 730;
CREATE OR REPLACE TEMP MACRO replicas_for(peak_requests_per_s, delivered_requests_per_s) AS
    CAST(ceil(peak_requests_per_s / nullif(delivered_requests_per_s, 0)) AS BIGINT);
