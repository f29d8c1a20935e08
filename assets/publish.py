"""Publishing: the build file becomes the serving file readers open (with its Parquet export), atomically,
and the report is written from it; a freshness check says when a day passed without a publish."""

import datetime
import json
import warnings

import dagster as dg

from assets.report.report import write_report
from assets.resources import Warehouse
from assets.specs import OWNERS, PYTHON_CODE_VERSION
from assets.warehouse.parquet import export_parquet
from assets.warehouse.publish import PUBLISH_RECORD, export_matches, publish_serving, stale_members


@dg.asset(
    key=["publish", "serving_duckdb"],
    deps=[["analytics", "views"], ["audit", "run_fingerprint"]],
    group_name="publish",
    kinds={"duckdb"},
    owners=OWNERS,
    code_version=PYTHON_CODE_VERSION,
)
def serving_duckdb(context: dg.AssetExecutionContext, warehouse: Warehouse) -> dg.MaterializeResult:
    """The published `serving.duckdb` analysts and BI tools open read-only: a copy of the build file, exported
    to Parquet and rendered as the report, then the three swapped in one right after the other and recorded
    as one publish, so readers never see a half-written state and the export and report belong to the file."""
    tables, manifest, _record = publish_serving(warehouse.build_path, warehouse.layout, write_report)
    context.log.info(
        f"published {warehouse.serving_path} ({tables} tables), its Parquet export {manifest['export_id']} and "
        f"{warehouse.report_path}, recorded in {warehouse.path / PUBLISH_RECORD}"
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


# Everything is rebuilt at least nightly: older than a day and two hours means a refresh did not run.
# Dagster 1.13 prefers FreshnessPolicy (shown in the UI, not an asset check); these are asset checks,
# so they also run in every build and show in the CLI and in each run's log.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", dg.SupersessionWarning)
    freshness_checks = dg.build_last_update_freshness_checks(
        assets=[serving_duckdb],
        lower_bound_delta=datetime.timedelta(hours=26),
    )
