-- Every profile whose model is known has at least one config in the shortlist.
--
-- severity: warn
-- Profiles with a known model and no config in the shortlist (no run of ours and no priced MLPerf reference).
SELECT p.profile, p.model_id
FROM requirement.profiles AS p
WHERE p.model_known
  AND NOT EXISTS (SELECT 1 FROM marts.config_shortlist AS s WHERE s.profile = p.profile)
