-- Every band learnt from has both fractions in (0.001, 1.5], low <= high; every band not learnt from says why.
--
-- Learnt bands outside (0.001, 1.5] or upside down, and bands not learnt from without a reason.
SELECT run_labels, profile, delivered_fraction_low, delivered_fraction_high, learnt_from, not_learnt_reason
FROM projected.measured_fractions
WHERE (learnt_from AND NOT coalesce(delivered_fraction_low > 0.001 AND delivered_fraction_high <= 1.5
                                    AND delivered_fraction_low <= delivered_fraction_high, false))
   OR (NOT learnt_from AND not_learnt_reason IS NULL)
