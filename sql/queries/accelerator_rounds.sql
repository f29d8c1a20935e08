-- One accelerator across MLPerf rounds: per round, model and scenario, how many results were
-- published and the best and median throughput per accelerator (software gains show here).
--
-- param accelerator: part of the accelerator's canonical id or published name, e.g. h100 or MI300X
-- param model (optional): part of the MLPerf model name, e.g. llama2-70b (default: every model)
-- values accelerator: part of benchmark.mlperf_results.accelerator_id, benchmark.mlperf_results.accelerator_raw
-- values model: part of benchmark.mlperf_results.mlperf_model
SELECT
    round,
    accelerator_id,
    mlperf_model,
    scenario,
    division,
    result_unit || ' per accelerator' AS unit,
    count(*) AS results,
    count(DISTINCT submitter) AS submitters,
    max(result_per_accelerator) AS best_per_accelerator,
    median(result_per_accelerator) AS median_per_accelerator,
    arg_max(submitter, result_per_accelerator) AS best_submitter,
    arg_max(system_name, result_per_accelerator) AS best_system,
    arg_max(precision, result_per_accelerator) AS best_precision
FROM benchmark.mlperf_results
WHERE metric_kind = 'throughput'
  AND result_per_accelerator IS NOT NULL
  AND (accelerator_id ILIKE '%' || $accelerator || '%' OR accelerator_raw ILIKE '%' || $accelerator || '%')
  AND ($model IS NULL OR mlperf_model ILIKE '%' || $model || '%')
GROUP BY round, round_order, accelerator_id, mlperf_model, scenario, division, result_unit
ORDER BY accelerator_id, mlperf_model, scenario, division, round_order
