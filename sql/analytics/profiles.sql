-- analytics.profiles: workload profiles (requirement evidence): the model served, the SLO, the
-- delivered-fraction prior for projections and our traffic's token mix.
--
-- Columns described on: requirement.profiles
SELECT *
FROM requirement.profiles
ORDER BY profile
