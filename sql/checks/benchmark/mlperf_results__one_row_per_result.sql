-- No two rows share round, division, suite, submitter, platform, model and scenario.
--
-- blocking: true
-- Rows that share the identity of a published result (should be none: duplicates are quarantined).
SELECT round, division, suite, submitter, platform, used_model, scenario, count(*) AS copies
FROM benchmark.mlperf_results
GROUP BY ALL
HAVING count(*) > 1
