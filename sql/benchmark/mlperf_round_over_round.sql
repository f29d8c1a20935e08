-- benchmark.mlperf_round_over_round: the same accelerator, benchmark and scenario across rounds.
--
-- Closed division, known accelerators, results not inferred, plausible and official (an implausible
-- per-accelerator value or an automation-test round would show a false gain or regression). Per round
-- the best result (highest per-accelerator throughput, or lowest latency) with the software and
-- precision that gave it, and the change against the previous round that has one and against the
-- first: software gains are part of what a number means. Rows of different units never compare
-- (v4.0 llama2 Server).
WITH candidates AS (
    SELECT *,
           CASE WHEN metric_kind = 'throughput' THEN result_per_accelerator ELSE result_value END AS comparable_value
    FROM benchmark.mlperf_results
    WHERE division = 'closed'
      AND NOT inferred
      AND plausible
      AND official
      AND accelerator_id IS NOT NULL
      AND (metric_kind = 'latency' OR result_per_accelerator IS NOT NULL)
),
ranked AS (
    SELECT *,
           count(*) OVER (PARTITION BY accelerator_id, mlperf_model, scenario, result_unit, round) AS results_in_round,
           row_number() OVER (
               PARTITION BY accelerator_id, mlperf_model, scenario, result_unit, round
               ORDER BY CASE WHEN metric_kind = 'throughput' THEN -comparable_value ELSE comparable_value END,
                        submitter, platform
           ) AS rank_in_round
    FROM candidates
),
best AS (
    SELECT * FROM ranked WHERE rank_in_round = 1
),
series AS (
    SELECT *,
           lag(round) OVER w AS previous_round,
           lag(comparable_value) OVER w AS previous_value,
           first_value(round) OVER w AS first_round,
           first_value(comparable_value) OVER w AS first_round_value,
           count(*) OVER (PARTITION BY accelerator_id, mlperf_model, scenario, result_unit) AS rounds_with_results
    FROM best
    WINDOW w AS (PARTITION BY accelerator_id, mlperf_model, scenario, result_unit ORDER BY round_order)
)
SELECT
    accelerator_id,
    model_id,
    mlperf_model,
    scenario,
    result_unit,
    metric_kind,
    round,
    round_order,
    comparable_value AS best_value,
    CASE WHEN metric_kind = 'throughput' THEN 'per accelerator' ELSE 'system latency' END AS value_basis,
    results_in_round,
    submitter,
    platform,
    system_name,
    accelerator_count,
    software,
    runtime,
    runtime_version,
    precision,
    result_key,
    previous_round,
    previous_value,
    CASE WHEN previous_value IS NULL THEN NULL
         WHEN metric_kind = 'throughput' THEN comparable_value / previous_value
         ELSE previous_value / comparable_value END AS speedup_vs_previous,
    first_round,
    CASE WHEN metric_kind = 'throughput' THEN comparable_value / first_round_value
         ELSE first_round_value / comparable_value END AS speedup_vs_first,
    rounds_with_results,
    'benchmark' AS evidence
FROM series
ORDER BY accelerator_id, mlperf_model, scenario, result_unit, round_order
