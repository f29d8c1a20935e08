-- Every config with 4 or more load levels was validated (it has held-out rows) unless the model could not be
-- fitted on them; a config with fewer is too_few_levels or not_calibrated (no level served anything); every status
-- but fitted says why.
--
-- Configs with 4+ levels and no held-out row (unless not_calibrated), under 4 levels with a status that claims a
-- measured error, or a status other than fitted without its reason.
SELECT m.config_key, m.config_label, m.load_levels, m.status, m.status_reason
FROM calibrated.engine_models AS m
WHERE (m.load_levels >= 4 AND m.status <> 'not_calibrated'
       AND NOT EXISTS (SELECT 1 FROM calibrated.validation AS v WHERE v.config_key = m.config_key))
   OR (m.load_levels < 4 AND m.status NOT IN ('too_few_levels', 'not_calibrated'))
   OR (m.status <> 'fitted' AND m.status_reason IS NULL)
