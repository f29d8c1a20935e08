-- benchmark.mlperf_accuracy: per MLPerf result, each accuracy metric it published (benchmark.mlperf_results
-- accuracy_json), its value and the bound MLPerf's own checker set on it (benchmark.mlperf_accuracy_targets:
-- 99% or 99.9% of the reference model's figure, output length within 90-110%). This is MLPerf's accuracy on
-- MLPerf's task at MLPerf's target: different evidence from our own task-quality evaluations (observed.quality).
--
-- One row per result x metric x bound; a metric with no known bound for its benchmark and round (rounds
-- before v5.0, a bare `value`, rgat and pointpainting) has empty target columns, never a guessed one.
WITH metrics AS (
    SELECT r.result_key, r.round, r.round_order, r.division, r.submitter, r.platform, r.mlperf_model,
           r.model_id, r.accuracy_target, r.scenario, r.precision,
           unnest(json_keys(r.accuracy_json)) AS metric, r.accuracy_json
    FROM benchmark.mlperf_results AS r
    WHERE r.accuracy_json IS NOT NULL
)
SELECT m.result_key, m.round, m.division, m.submitter, m.platform, m.mlperf_model, m.model_id,
       m.accuracy_target, m.scenario, m.precision, m.metric,
       TRY_CAST(m.accuracy_json::JSON ->> m.metric AS DOUBLE) AS value,
       t.bound, t.reference_value, t.target_fraction, t.target_value,
       CASE
           WHEN t.bound IS NULL OR TRY_CAST(m.accuracy_json::JSON ->> m.metric AS DOUBLE) IS NULL THEN NULL
           WHEN t.bound = 'min' THEN TRY_CAST(m.accuracy_json::JSON ->> m.metric AS DOUBLE) >= t.target_value
           ELSE TRY_CAST(m.accuracy_json::JSON ->> m.metric AS DOUBLE) <= t.target_value
       END AS within_target,
       'benchmark' AS evidence
FROM metrics AS m
LEFT JOIN benchmark.mlperf_accuracy_targets AS t
    ON t.benchmark = m.mlperf_model AND upper(t.metric) = upper(m.metric)
   AND m.round_order BETWEEN t.first_round_order AND t.last_round_order
ORDER BY m.result_key, m.metric, t.bound
