-- marts.quality_to_measure: the quality evaluations to run before deciding, one row per profile x model x
-- precision the shortlist offers whose quality status is untested (no evaluation at this precision) or
-- inconclusive (the 95% interval straddles a bound, or the figure has no stderr): "evaluate quality at fp8
-- before deciding". Meant to be unioned into the capacity plan's "what to measure next" (analytics.measure_next).
SELECT DISTINCT
    s.profile,
    s.model_id,
    s.precision,
    s.quality_status,
    'evaluate quality at ' || coalesce(s.precision, 'the served precision') || ' before deciding' AS action,
    CASE s.quality_status
        WHEN 'untested' THEN 'no task-quality evaluation of ' || s.model_id || ' at ' || coalesce(s.precision, 'its precision')
            || ' for the profile''s requirement: ' || s.quality_evidence
        ELSE 'the evaluation does not settle the requirement (more documents narrow the interval): ' || s.quality_evidence
    END AS reason
FROM marts.config_shortlist AS s
WHERE s.quality_status IN ('untested', 'inconclusive')
  AND s.profile IN (SELECT profile FROM requirement.quality_bounds)
ORDER BY s.profile, s.model_id, s.precision
