-- What was rejected, per table and reason: counts, and one example source and location for each.
SELECT
    table_name,
    regexp_replace(reason, ' \(.*$', '') AS reason,
    count(*) AS rows,
    min(source) AS example_source,
    min(location) AS example_location
FROM analytics.quarantine
GROUP BY ALL
ORDER BY rows DESC, table_name
