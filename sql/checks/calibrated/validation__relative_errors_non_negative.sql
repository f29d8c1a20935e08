-- Every relative error is |predicted / measured - 1|, never negative, and every measured value is positive.
--
-- Validation rows with a negative relative error or a measured value that is not positive.
SELECT config_key, heldout_kind, heldout, load, metric, measured, predicted, relative_error
FROM calibrated.validation
WHERE relative_error < 0 OR measured <= 0
