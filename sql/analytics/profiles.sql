-- analytics.profiles: workload profiles (requirement evidence): the model served, the SLO, the
-- delivered-fraction prior for projections and our resolved workload (requirement.workload: the one token mix and
-- arrival process every evidence class reads).
--
-- Columns described on: requirement.profiles, requirement.workload
-- column workload_source: Where the workload comes from (requirement.workload's source).
-- column workload_basis: The workload in words (requirement.workload's basis).
SELECT p.*, w.source AS workload_source, w.input_tokens_kind, w.input_tokens_mean, w.output_tokens_kind,
       w.output_tokens_mean, w.lengths_basis, w.arrivals_basis, w.basis AS workload_basis
FROM requirement.profiles AS p
LEFT JOIN requirement.workload AS w USING (profile)
ORDER BY profile
