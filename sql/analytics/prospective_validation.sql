-- analytics.prospective_validation: each measurement plan's prediction, made before measuring, against the runs whose
-- run.yaml named the plan: per measured level and metric, and per run the delivered rate at the profile's SLO, with
-- the relative error and whether the measurement fell within the plan's band; what is not counted says why.
--
-- Columns described on: calibrated.prospective_validation
SELECT *
FROM calibrated.prospective_validation
ORDER BY plan_created_at, plan_id, run_label, load_index NULLS LAST, metric
