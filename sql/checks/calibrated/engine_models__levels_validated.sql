-- Every config with 4 or more load levels was validated (it has held-out rows), and every config with fewer
-- says so in its status with a reason.
--
-- Configs with 4+ levels and no held-out row (unless the model could not be fitted on them, said), or under 4 levels without the status too_few_levels and a reason.
SELECT m.config_key, m.config_label, m.load_levels, m.status, m.status_reason
FROM calibrated.engine_models AS m
WHERE (m.load_levels >= 4 AND m.status <> 'not_calibrated' AND NOT EXISTS (SELECT 1 FROM calibrated.validation AS v WHERE v.config_key = m.config_key))
   OR (m.load_levels < 4 AND (m.status <> 'too_few_levels' OR m.status_reason IS NULL))
