-- result_per_accelerator x accelerator_count equals result_value for throughput rows.
--
-- blocking: true
-- Throughput rows whose per-accelerator value does not multiply back to the published value.
SELECT result_key, result_value, result_per_accelerator, accelerator_count
FROM benchmark.mlperf_results
WHERE metric_kind = 'throughput'
  AND accelerator_count > 0
  AND abs(result_per_accelerator * accelerator_count - result_value) > 1e-6 * result_value
