-- No published round lost its rows or changed its row count by more than 10% against the serving file (a new round is fine).
--
-- severity: warn
-- attach: published
-- Rounds whose row count moved by more than 10%, or that vanished, against what is published now
-- (`published` is the serving file, attached read-only). New rounds are not offending.
WITH building AS (
    SELECT round, count(*) AS rows FROM benchmark.mlperf_results GROUP BY round
),
published AS (
    SELECT round, count(*) AS rows FROM published.benchmark.mlperf_results GROUP BY round
)
SELECT p.round, p.rows AS published_rows, coalesce(b.rows, 0) AS new_rows,
       coalesce(b.rows, 0) - p.rows AS change
FROM published AS p
LEFT JOIN building AS b USING (round)
WHERE b.rows IS NULL OR abs(b.rows - p.rows) > 0.1 * p.rows
ORDER BY p.round
