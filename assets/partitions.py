"""Partitions: MLPerf Inference rounds, registered as they are found (by `benchbill run`, the
round sensor, or `dagster` itself), so re-ingesting a round replaces only its rows; and the dump folders' run
partitions (a run.yaml folder each, `assets.runs.partition`), registered as they are planned."""

import dagster as dg

MLPERF_ROUND_PARTITIONS = "mlperf_round"

mlperf_rounds = dg.DynamicPartitionsDefinition(name=MLPERF_ROUND_PARTITIONS)

DUMP_RUN_PARTITIONS = "dump_run"

dump_runs = dg.DynamicPartitionsDefinition(name=DUMP_RUN_PARTITIONS)
