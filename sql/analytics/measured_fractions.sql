-- analytics.measured_fractions: the batching gap our own runs measured, per profile x delivered band of ours:
-- the fraction of the MLPerf reference of the same accelerator and model it delivered, and whether configs we
-- never ran learn from it (and why not).
--
-- Columns described on: projected.measured_fractions
SELECT *
FROM projected.measured_fractions
ORDER BY profile, learnt_from DESC, accelerator_id, run_labels
