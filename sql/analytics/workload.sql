-- analytics.workload: each profile's workload resolved once: where it comes from, its prompt and answer length
-- distributions, its arrival process and volume, and its basis in words.
--
-- Columns described on: requirement.workload
SELECT *
FROM requirement.workload
ORDER BY profile
