"""Jobs, the nightly schedule and the drop-folder sensor."""


import hashlib
from pathlib import Path

import dagster as dg

from assets.fetch import walk_files
from assets.observed import DUMP_TABLES
from pipelines.resources import Inputs

build_warehouse = dg.define_asset_job(
    "build_warehouse",
    selection=dg.AssetSelection.all(),
    description="Ingest MLPerf round tables, prices, profiles and dumps; rebuild every table; publish.",
    tags={"warehouse": "build"},
)

refresh_observed = dg.define_asset_job(
    "refresh_observed",
    selection=dg.AssetSelection.keys(*DUMP_TABLES).downstream(),
    description="Re-read the dump folders and rebuild what depends on them; publish.",
    tags={"warehouse": "build"},
)

nightly_refresh = dg.ScheduleDefinition(
    name="nightly_refresh",
    job=build_warehouse,
    cron_schedule="17 3 * * *",
    execution_timezone="UTC",
    default_status=dg.DefaultScheduleStatus.STOPPED,
    description="Re-fetch the published round tables (they do get corrected) and rebuild everything.",
)


def dump_checksums(folders: list[str]) -> set[str]:
    """The sha256 of every file's content below the dump folders (names and places do not matter)."""
    checksums = set()
    for folder in sorted(folders):
        root = Path(folder)
        if not root.is_dir():
            checksums.add(f"missing folder {folder}")
            continue
        for path in walk_files(root):
            if path.exists():
                checksums.add(hashlib.sha256(path.read_bytes()).hexdigest())
    return checksums


def dumps_fingerprint(folders: list[str]) -> str:
    """A digest of the set of file contents below the dump folders: a new file (or a changed or removed
    one) changes it; the same file copied again under another name or folder does not."""
    return hashlib.sha256("\n".join(sorted(dump_checksums(folders))).encode()).hexdigest()


@dg.sensor(
    name="dump_folder_sensor",
    job=refresh_observed,
    minimum_interval_seconds=60,
    default_status=dg.DefaultSensorStatus.STOPPED,
    description="Requests a refresh of the observed tables when new content appears in the dump folders "
                "(by content checksum: a re-copied file is not ingested twice).",
)
def dump_folder_sensor(context: dg.SensorEvaluationContext, inputs: Inputs):
    if not inputs.dumps:
        return dg.SkipReason("no dump folders configured (set BENCHBILL_DUMPS)")
    fingerprint = dumps_fingerprint(list(inputs.dumps))
    if fingerprint == context.cursor:
        return dg.SkipReason("no new content in the dump folders (a copy of a file already read changes nothing)")
    context.update_cursor(fingerprint)
    return dg.RunRequest(run_key=fingerprint)
