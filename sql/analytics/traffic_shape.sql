-- analytics.traffic_shape: our traffic per profile that names a production request log
-- (requirement evidence): rate, peaks, burstiness and token mix.
--
-- Columns described on: requirement.traffic_shape
SELECT *
FROM requirement.traffic_shape
ORDER BY profile
