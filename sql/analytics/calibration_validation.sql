-- analytics.calibration_validation: every held-out prediction of a calibrated engine model (one load level
-- or one workload left out of the fit) against what the config's run measured, with the config in words.
--
-- Columns described on: calibrated.validation, calibrated.engine_models
SELECT
    v.config_key, m.config_label, v.model_key, m.status, v.heldout_kind, v.heldout, v.workload, v.load, v.metric,
    v.measured, v.predicted, v.relative_error, v.signed_relative_error, v.below_knee, v.scored, v.note
FROM calibrated.validation AS v
JOIN calibrated.engine_models AS m USING (config_key)
ORDER BY m.config_label, v.heldout_kind, v.heldout, v.load, v.metric
