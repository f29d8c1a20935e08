-- benchmark.mlperf_reference: per accelerator and model, the MLPerf result a config is compared with.
-- The highest per-accelerator Server result (closed division, tokens/s, not inferred, plausible and
-- official) in the newest round that has one; Offline (an upper bound only) and Interactive of the same
-- system beside it. Implausible and unofficial results (benchmark.mlperf_results.plausible / official)
-- are never a reference, nor the Offline or Interactive beside one. Interactive is the scenario from v5.1
-- and, in v5.0, the separate `<model>-interactive` benchmarks published under Server (never a Server result
-- here); it is matched to the Server result by round, division, suite, submitter, system, model and accuracy
-- target. Which of Server and Interactive a profile is compared with: benchmark.mlperf_profile_reference.
WITH server AS (
    SELECT *
    FROM benchmark.mlperf_results
    WHERE scenario = 'Server'
      AND mlperf_model NOT LIKE '%-interactive%'
      AND division = 'closed'
      AND NOT inferred
      AND plausible
      AND official
      AND result_unit = 'tokens/s'
      AND accelerator_id IS NOT NULL
      AND model_id IS NOT NULL
      AND tokens_per_s_per_accel IS NOT NULL
),
newest AS (
    SELECT accelerator_id, model_id, max(round_order) AS round_order
    FROM server
    GROUP BY accelerator_id, model_id
),
ranked AS (
    SELECT s.*,
           row_number() OVER (
               PARTITION BY s.accelerator_id, s.model_id
               ORDER BY s.tokens_per_s_per_accel DESC, s.submitter, s.platform, s.used_model
           ) AS rank_in_round
    FROM server AS s
    JOIN newest AS n USING (accelerator_id, model_id, round_order)
),
same_system AS (
    SELECT round, division, suite, submitter, platform, used_model, model_id, accuracy_target,
           CASE WHEN scenario = 'Server' THEN 'Interactive' ELSE scenario END AS scenario, result_key,
           tokens_per_s_per_accel
    FROM benchmark.mlperf_results
    WHERE (scenario IN ('Offline', 'Interactive') OR (scenario = 'Server' AND mlperf_model LIKE '%-interactive%'))
      AND result_unit = 'tokens/s' AND plausible AND official
)
SELECT
    r.accelerator_id,
    r.model_id,
    r.round,
    r.division,
    r.submitter,
    r.platform,
    r.system_name,
    r.mlperf_model,
    r.accuracy_target,
    r.availability,
    r.precision,
    r.software,
    r.runtime,
    r.runtime_version,
    r.accelerator_count,
    r.result_key AS server_result_key,
    r.tokens_per_s_per_accel AS server_tokens_per_s_per_accel,
    o.result_key AS offline_result_key,
    o.tokens_per_s_per_accel AS offline_tokens_per_s_per_accel,
    i.result_key AS interactive_result_key,
    i.tokens_per_s_per_accel AS interactive_tokens_per_s_per_accel,
    TRY_CAST(json_extract_string(r.accuracy_json, '$.TOKENS_PER_SAMPLE') AS DOUBLE) AS output_tokens_per_sample,
    r.dataset,
    r.source,
    r.details_url,
    'benchmark' AS evidence
FROM ranked AS r
LEFT JOIN same_system AS o
    ON o.scenario = 'Offline' AND (o.round, o.division, o.suite, o.submitter, o.platform, o.used_model)
        = (r.round, r.division, r.suite, r.submitter, r.platform, r.used_model)
LEFT JOIN same_system AS i
    ON i.scenario = 'Interactive' AND (i.round, i.division, i.suite, i.submitter, i.platform, i.model_id)
        = (r.round, r.division, r.suite, r.submitter, r.platform, r.model_id)
       AND i.accuracy_target IS NOT DISTINCT FROM r.accuracy_target
WHERE r.rank_in_round = 1
ORDER BY r.model_id, r.accelerator_id
