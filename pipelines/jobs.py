"""Jobs: ingest one MLPerf round (a partition), build everything else and publish, refresh what the dump
folders feed. Every job runs in-process and holds the warehouse's writer lock."""

from typing import Any

import dagster as dg

from assets.benchmark import mlperf_round
from assets.observed import observed_runs
from assets.partitions import mlperf_rounds

_ROUND_SELECTION = dg.AssetSelection.assets(mlperf_round)

ingest_mlperf_round = dg.define_asset_job(
    "ingest_mlperf_round",
    selection=_ROUND_SELECTION,
    partitions_def=mlperf_rounds,
    description="Ingest one MLPerf round (a partition) from every source that holds it; replaces its rows.",
    tags={"warehouse": "build"},
)

build_warehouse = dg.define_asset_job(
    "build_warehouse",
    selection=dg.AssetSelection.all() - _ROUND_SELECTION,
    description="Read prices, profiles and dumps; rebuild every table from them and the ingested MLPerf "
    "rounds (job ingest_mlperf_round); publish.",
    tags={"warehouse": "build"},
)

refresh_observed = dg.define_asset_job(
    "refresh_observed",
    # the run fingerprint too: a publish by this job records an empty one, so `benchbill run` rebuilds after it
    selection=(
        dg.AssetSelection.assets(observed_runs).downstream() | dg.AssetSelection.keys(["audit", "run_fingerprint"])
    ),
    description="Re-read the dump folders and rebuild what depends on them; publish.",
    tags={"warehouse": "build"},
)


def round_run_config(locations: list[str]) -> dict[str, Any]:
    """Run config telling a round's partition run where its results are."""
    return {"ops": {mlperf_round.node_def.name: {"config": {"locations": list(locations)}}}}
