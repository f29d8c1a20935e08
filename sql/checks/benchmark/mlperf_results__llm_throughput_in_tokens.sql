-- LLM Offline/Server/Interactive results are tokens/s after unit correction (v4.0 llama2 Server excepted).
--
-- LLM throughput results whose corrected unit is not tokens/s (v4.0 llama2-70b Server is genuinely queries/s).
SELECT result_key, result_unit, result_unit_raw
FROM benchmark.mlperf_results
WHERE regexp_matches(mlperf_model, '^(llama|mixtral|deepseek|gpt-oss)')
  AND scenario IN ('Offline', 'Server', 'Interactive')
  AND result_unit <> 'tokens/s'
  AND NOT (round = 'v4.0' AND mlperf_model LIKE 'llama2-70b%' AND scenario = 'Server')
