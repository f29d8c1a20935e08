-- analytics.slo_bounds: one row per profile and bounded measure (requirement evidence), e.g.
-- ttft_p95_ms <= 1000.
--
-- Columns described on: requirement.slo_bounds, requirement.profiles
SELECT b.profile, p.model_id, b.measure, b.bound
FROM requirement.slo_bounds AS b
JOIN requirement.profiles AS p USING (profile)
ORDER BY b.profile, b.measure
