-- analytics.quality: our task-quality evaluations (observed evidence), one row per base model x precision x
-- task x metric x source, with the 95% interval the quality gate uses (value +/- 1.96 stderr).
--
-- Columns described on: observed.quality
-- column interval_low: value - 1.96 stderr (empty without a stderr).
-- column interval_high: value + 1.96 stderr (empty without a stderr).
SELECT
    *,
    value - 1.96 * stderr AS interval_low,
    value + 1.96 * stderr AS interval_high
FROM observed.quality
ORDER BY model, task, metric, precision, source
