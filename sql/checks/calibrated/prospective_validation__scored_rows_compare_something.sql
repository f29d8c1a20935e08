-- A row counted in a plan's score has a prediction and a measurement to compare; one not counted says why.
--
-- Scored rows without a relative error, and unscored rows without a note.
SELECT plan_id, run_label, load, metric, predicted, measured, scored, note
FROM calibrated.prospective_validation
WHERE (scored AND relative_error IS NULL) OR (NOT scored AND note IS NULL)
