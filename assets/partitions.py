"""Partitions: MLPerf Inference rounds, registered as they are found (by `benchbill run`, the
round sensor, or `dagster` itself), so re-ingesting a round replaces only its rows."""

import dagster as dg

MLPERF_ROUND_PARTITIONS = "mlperf_round"

mlperf_rounds = dg.DynamicPartitionsDefinition(name=MLPERF_ROUND_PARTITIONS)
