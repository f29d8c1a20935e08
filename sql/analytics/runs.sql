-- analytics.runs: our measured runs (observed evidence), one row per run, with its config.
--
-- Columns described on: observed.runs
SELECT *
FROM observed.runs
ORDER BY run_label
