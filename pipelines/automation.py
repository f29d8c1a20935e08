"""Jobs, the nightly schedule, the drop-folder sensor, and freshness checks with their sensor.

Schedules and sensors start RUNNING when the daemon loads the definitions (`dagster dev` or
dagster-daemon): a deployment refreshes by itself; stop one in the UI to pause it.
"""


import datetime
import hashlib
import warnings
from pathlib import Path

import dagster as dg

from assets.fetch import walk_files
from pipelines.resources import Inputs
from pipelines.settings import warehouse_from_env

build_warehouse = dg.define_asset_job(
    "build_warehouse",
    selection=dg.AssetSelection.all(),
    description="Ingest MLPerf round tables, prices, profiles and dumps; rebuild every table; publish.",
    tags={"warehouse": "build"},
)

refresh_observed = dg.define_asset_job(
    "refresh_observed",
    selection=dg.AssetSelection.keys(["observed", "runs"], ["observed", "load_points"]).downstream(),
    description="Re-read the dump folders and rebuild what depends on them; publish.",
    tags={"warehouse": "build"},
)

nightly_refresh = dg.ScheduleDefinition(
    name="nightly_refresh",
    job=build_warehouse,
    cron_schedule="17 3 * * *",
    execution_timezone="UTC",
    default_status=dg.DefaultScheduleStatus.RUNNING,
    description="Re-fetch the published round tables (they do get corrected) and rebuild everything.",
)


def dumps_fingerprint(folders: list[str]) -> str:
    """A digest of every file's relative path and content below the dump folders."""
    digest = hashlib.sha256()
    for folder in sorted(folders):
        root = Path(folder)
        if not root.is_dir():
            digest.update(f"missing {folder}\n".encode())
            continue
        for path in walk_files(root):
            if not path.exists():
                continue
            digest.update(f"{folder}\n{path.relative_to(root).as_posix()}\n".encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


@dg.sensor(
    name="dump_folder_sensor",
    jobs=[refresh_observed, build_warehouse],
    minimum_interval_seconds=60,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Requests a refresh of the observed tables when the files in the dump folders change "
                "(a full build when the warehouse has never been built).",
)
def dump_folder_sensor(context: dg.SensorEvaluationContext, inputs: Inputs):
    if not inputs.dumps:
        return dg.SkipReason("no dump folders configured (set BENCHBILL_DUMPS)")
    fingerprint = dumps_fingerprint(list(inputs.dumps))
    if fingerprint == context.cursor:
        return dg.SkipReason("dump folders unchanged")
    context.update_cursor(fingerprint)
    # refresh_observed rebuilds only what depends on the dumps; it needs the other tables built once.
    # (The Warehouse resource is not requested here: initialising it takes the writer lock.)
    job = refresh_observed if warehouse_from_env().build_path.exists() else build_warehouse
    return dg.RunRequest(run_key=fingerprint, job_name=job.name)


# The nightly schedule rebuilds everything: older than a day and two hours means it did not run.
# Dagster 1.13 prefers FreshnessPolicy (shown in the UI, not an asset check); these checks are
# asset checks, so they also run in every build and show in the CLI and in each run's log.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", dg.SupersessionWarning)
    freshness_checks = dg.build_last_update_freshness_checks(
        assets=[["publish", "serving_duckdb"], ["benchmark", "mlperf_results"]],
        lower_bound_delta=datetime.timedelta(hours=26),
    )
    freshness_sensor = dg.build_sensor_for_freshness_checks(
        freshness_checks=freshness_checks,
        name="freshness_checks_sensor",
        minimum_interval_seconds=600,
        default_status=dg.DefaultSensorStatus.RUNNING,
    )
