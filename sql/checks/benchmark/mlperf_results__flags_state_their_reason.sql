-- Every implausible or unofficial result says why, and no plausible or official one carries a reason.
--
-- Rows whose plausible/official flag and its reason disagree (a flag without a reason cannot be reviewed).
SELECT result_key, plausible, implausible_reason, official, unofficial_reason
FROM benchmark.mlperf_results
WHERE plausible = (implausible_reason IS NOT NULL)
   OR official = (unofficial_reason IS NOT NULL)
