-- Every relative error of a plan's score is |predicted / measured - 1| (signed: predicted / measured - 1), and
-- within_band says whether the measurement lies in the plan's band around the prediction.
--
-- Rows whose errors or within_band disagree with their predicted and measured values and band.
SELECT plan_id, run_label, load, metric, predicted, measured, relative_error, signed_relative_error, within_band
FROM calibrated.prospective_validation
WHERE abs(relative_error - abs(predicted / measured - 1)) > 1e-9
   OR abs(signed_relative_error - (predicted / measured - 1)) > 1e-9
   OR (predicted IS NOT NULL AND measured IS NOT NULL AND relative_error IS NULL)
   OR within_band IS DISTINCT FROM (
       CASE WHEN predicted IS NOT NULL AND measured IS NOT NULL AND band_rel_error IS NOT NULL
            THEN measured BETWEEN predicted / (1 + band_rel_error) AND predicted * (1 + band_rel_error) END)
