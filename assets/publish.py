"""Publishing: the build file becomes the serving file readers open (with its Parquet export), atomically,
and the report is written from it; a freshness check says when a day passed without a publish."""

import datetime
import json
import time

import dagster as dg

from assets.report.report import write_report
from assets.resources import Warehouse
from assets.specs import OWNERS, PYTHON_CODE_VERSION
from assets.warehouse.parquet import export_parquet
from assets.warehouse.published_set import PUBLISH_RECORD, export_matches, publish_serving, stale_members

# Everything is rebuilt at least nightly: older than a day and two hours means a refresh did not run. Two views of
# it: the asset's FreshnessPolicy (the daemon evaluates it; the UI shows the asset fresh or stale; it runs nothing)
# and the asset check below, which also runs in every build, so the CLI and each run's log say it.
PUBLISHED_WITHIN = datetime.timedelta(hours=26)


@dg.asset(
    key=["publish", "serving_duckdb"],
    deps=[["analytics", "views"], ["audit", "run_fingerprint"]],
    group_name="publish",
    kinds={"duckdb"},
    owners=OWNERS,
    code_version=PYTHON_CODE_VERSION,
    freshness_policy=dg.FreshnessPolicy.time_window(fail_window=PUBLISHED_WITHIN),
)
def serving_duckdb(context: dg.AssetExecutionContext, warehouse: Warehouse) -> dg.MaterializeResult:
    """The published `serving.duckdb` analysts and BI tools open read-only: a copy of the build file, exported
    to Parquet and rendered as the report, then the three swapped in one right after the other and recorded
    as one publish, so readers never see a half-written state and the export and report belong to the file."""
    tables, manifest, _record = publish_serving(warehouse.build_path, warehouse.layout, write_report)
    context.log.info(  # the folder named once: the line fits a terminal
        f"published {warehouse.path}: {warehouse.serving_path.name} ({tables} tables), Parquet export "
        f"{manifest['export_id']}, {warehouse.report_path.name}; recorded in {PUBLISH_RECORD}"
    )
    return dg.MaterializeResult(
        metadata={"path": str(warehouse.serving_path.resolve()), "tables": tables, "export_id": manifest["export_id"]}
    )


@dg.asset(
    key=["publish", "parquet_export"],
    deps=[serving_duckdb],
    group_name="publish",
    kinds={"parquet"},
    owners=OWNERS,
    code_version=PYTHON_CODE_VERSION,
)
def parquet_export(context: dg.AssetExecutionContext, warehouse: Warehouse) -> dg.MaterializeResult:
    """A Parquet copy of every published table and analyst view (MLPerf results partitioned by round),
    under warehouse/parquet/current: written by the publish step before the serving file is swapped
    and switched right after it; this step checks that `current` holds the published build's tables and
    row counts, and exports again when it does not."""
    current = warehouse.parquet_current / "manifest.json"
    manifest = json.loads(current.read_text(encoding="utf-8")) if current.exists() else None
    # checked against the build the serving file was copied from: the serving file is never opened here
    if manifest is None or not export_matches(warehouse.build_path, manifest):
        context.log.warning("the Parquet export does not match the serving file; exporting again")
        manifest = export_parquet(warehouse.serving_path, warehouse.parquet_dir)
    context.log.info(f"{len(manifest['tables'])} tables and views in {warehouse.parquet_current}")
    return dg.MaterializeResult(
        metadata={
            "path": str(warehouse.parquet_current.absolute()),
            "export_id": manifest["export_id"],
            "tables": len(manifest["tables"]),
        }
    )


@dg.asset(
    key=["publish", "report_html"],
    deps=[serving_duckdb],
    group_name="publish",
    kinds={"html"},
    owners=OWNERS,
    code_version=PYTHON_CODE_VERSION,
)
def report_html(context: dg.AssetExecutionContext, warehouse: Warehouse) -> dg.MaterializeResult:
    """The static HTML report for decision makers (shortlist, latency-throughput charts with the SLO and
    the MLPerf reference, cost bands, sources), warehouse/report.html: written by the publish step from the
    file it publishes; this step checks it is that publish's report."""
    if "report" in stale_members(warehouse.layout):
        raise dg.Failure(f"{warehouse.report_path} is not the report of the publish recorded in {PUBLISH_RECORD}")
    size = warehouse.report_path.stat().st_size
    context.log.info(f"{warehouse.report_path} ({size:,} bytes) is the published report")
    return dg.MaterializeResult(metadata={"path": str(warehouse.report_path.absolute()), "bytes": size})


# Read by Dagster's freshness-check sensor (pipelines/sensors.py): when the check could next turn stale.
FRESH_UNTIL = "dagster/fresh_until_timestamp"


def duration_words(seconds: float) -> str:
    """A duration as a person says it: `less than a second`, `42 seconds`, `3 hours 5 minutes`, `2 days 1 hour`."""
    if seconds < 1:
        return "less than a second"
    parts, left = [], int(seconds)
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1)):
        count, left = divmod(left, size)
        if count:
            parts.append(f"{count} {unit}{'' if count == 1 else 's'}")
    return " ".join(parts[:2])


@dg.asset_check(
    asset=serving_duckdb,
    name="freshness_check",
    description=f"The serving file was published within the last {duration_words(PUBLISHED_WITHIN.total_seconds())}"
    " (everything is rebuilt at least nightly: older means a refresh did not run).",
)
def serving_freshness(context: dg.AssetCheckExecutionContext) -> dg.AssetCheckResult:
    """Warns when the last publish is older than PUBLISHED_WITHIN, saying how old it is."""
    allowed = PUBLISHED_WITHIN.total_seconds()
    event = context.instance.get_latest_materialization_event(serving_duckdb.key)
    if event is None:
        return dg.AssetCheckResult(
            passed=False,
            severity=dg.AssetCheckSeverity.WARN,
            description="warned: never published in this Dagster instance (run build_warehouse, or wait for the "
            "round sensor's first ingestion and the rebuild that follows it)",
        )
    age = max(0.0, time.time() - event.timestamp)
    metadata: dict[str, dg.MetadataValue] = {
        "dagster/last_updated_timestamp": dg.MetadataValue.timestamp(event.timestamp),
        "allowed_age_s": dg.MetadataValue.int(int(allowed)),
    }
    if age <= allowed:
        metadata[FRESH_UNTIL] = dg.MetadataValue.timestamp(event.timestamp + allowed)
        description = f"passed: published {duration_words(age)} ago (allowed: {duration_words(allowed)})"
    else:
        description = (
            f"warned: last published {duration_words(age)} ago, more than the {duration_words(allowed)} allowed: "
            "a nightly refresh did not run or failed (see the runs of build_warehouse in the UI)"
        )
    return dg.AssetCheckResult(
        passed=age <= allowed, severity=dg.AssetCheckSeverity.WARN, description=description, metadata=metadata
    )


freshness_checks = [serving_freshness]
