-- analytics.mlperf_reference: per accelerator and model, the MLPerf result a config is compared
-- with (benchmark evidence): the best closed-division Server number per accelerator in the newest
-- round that has one, with the same system's Offline (an upper bound) and Interactive numbers.
--
-- Columns described on: benchmark.mlperf_reference
-- column offline_over_server: Offline / Server tokens/s per accelerator: how far the batch upper bound sits above the serving reference.
SELECT
    *,
    offline_tokens_per_s_per_accel / server_tokens_per_s_per_accel AS offline_over_server
FROM benchmark.mlperf_reference
ORDER BY model_id, server_tokens_per_s_per_accel DESC
