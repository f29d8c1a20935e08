-- analytics.mlperf_round_over_round: the same accelerator, MLPerf benchmark and scenario across
-- rounds (benchmark evidence): the best result per round and the speedup against the previous and
-- the first round with a result (software gains show here).
--
-- Columns described on: benchmark.mlperf_round_over_round
SELECT *
FROM benchmark.mlperf_round_over_round
ORDER BY accelerator_id, mlperf_model, scenario, round_order
