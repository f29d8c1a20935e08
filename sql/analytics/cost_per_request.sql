-- analytics.cost_per_request: per profile x config x price (cost evidence), the cost per request
-- and per million output, input and total tokens, each as a low-high band.
--
-- Columns described on: cost.cost_per_request
SELECT *
FROM cost.cost_per_request
ORDER BY profile, cost_per_request_usd_high NULLS LAST
