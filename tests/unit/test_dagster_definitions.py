"""The Dagster definitions load and name what the UI, the daemon and the CLI rely on."""

import importlib
import subprocess
import sys
from pathlib import Path

import dagster as dg
import yaml

import assets
import schemas
from pipelines.definitions import build_definitions, defs
from pipelines.jobs import executor_run_config, partition_executor
from pipelines.parallel import STEP_PRELOAD
from tests.support.data import REPO_ROOT

ASSETS = {
    "benchmark/mlperf_results",
    "benchmark/mlperf_run_conditions",
    "benchmark/mlperf_source_disagreements",
    "benchmark/mlperf_round_over_round",
    "benchmark/mlperf_reference",
    "benchmark/accelerator_prices",
    "benchmark/prices_in_force",
    "requirement/profiles",
    "requirement/slo_bounds",
    "requirement/traffic_shape",
    "requirement/traffic_rate",
    "requirement/workload",
    "observed/runs",
    "observed/measurements",
    "observed/tool_metrics",
    "observed/requests",
    "observed/request_texts",
    "observed/load_point_measures",
    "observed/load_points",
    "observed/delivered_at_slo",
    # the engine model of each config, fitted on its own load levels, and its held-out error
    "calibrated/engine_models",
    "calibrated/validation",
    "calibrated/plan_predictions",
    # the batching gap our runs measured, which configs we never ran learn from
    "projected/measured_fractions",
    # each profile's traffic through each config's engine model
    "calibrated/latency_curve",
    "calibrated/delivered_at_slo",
    # what the token mix and the bursts cost
    "calibrated/cost_sensitivity",
    # each measurement plan's prediction scored on the runs that came back naming it
    "calibrated/prospective_validation",
    "projected/delivered_at_slo",
    "cost/cost_per_request",
    "marts/config_shortlist",
    "marts/measurement_plan",
    "analytics/views",
    "publish/serving_duckdb",
    "publish/parquet_export",
    "publish/report_html",
    # per-request records read in one DuckDB pass (observed/requests is a view over them)
    "observed/request_sources",
    "observed/stored_requests",
    "observed/request_stats",
    "observed/request_percentiles",
    "audit/run_fingerprint",
    # quality evidence and the quality gate
    "observed/quality",
    "requirement/quality_bounds",
    "marts/quality_gate",
    "benchmark/mlperf_accuracy_targets",
    "benchmark/mlperf_accuracy",
    "marts/quality_to_measure",
    # our volume, the capacity plan, the MLPerf scenario matching a profile
    "benchmark/mlperf_profile_reference",
    "marts/capacity_plan",
    # the dump folders' run partitions (each read in its own step) and one partition's stored results
    "observed/run_partitions",
    "observed/run_partition",
}


def test_definitions_name_assets_jobs_schedule_and_sensor():
    graph = defs.resolve_asset_graph()
    assert {k.to_user_string() for k in graph.get_all_asset_keys()} == ASSETS
    assert {job.name for job in defs.jobs} == {
        "build_warehouse",
        "refresh_observed",
        "ingest_mlperf_round",
        "scan_dump_runs",
    }
    assert [s.name for s in defs.schedules] == ["nightly_refresh"]
    assert {s.name for s in defs.sensors} == {
        "dump_folder_sensor",
        "mlperf_round_sensor",
        "rebuild_after_round_ingest",
        "freshness_checks_sensor",
    }
    assert len(graph.asset_check_keys) >= 8


def test_assets_are_grouped_by_evidence_class_and_documented():
    graph = defs.resolve_asset_graph()
    for key in graph.get_all_asset_keys():
        node = graph.get(key)
        assert node.group_name == key.path[0], key
        assert node.description and len(node.description) > 30, key


def test_project_modules_come_from_this_repository():
    for module in (assets, schemas):
        assert Path(module.__file__).resolve().is_relative_to(REPO_ROOT)


def test_loading_the_definitions_uses_no_deprecated_dagster_api():
    """Dagster attributes its deprecation warnings to the caller: any in our modules fails the load (a process of its
    own, so that every module is imported afresh)."""
    script = (
        "import warnings\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    import pipelines.definitions\n"
        "ours = [f'{w.filename}:{w.lineno}: {w.message}' for w in caught\n"
        "        if issubclass(w.category, DeprecationWarning)\n"
        "        and ('/pipelines/' in w.filename or '/assets/' in w.filename)]\n"
        "print('\\n'.join(ours))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO_ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == ""


def test_workspace_file_points_at_the_definitions():
    workspace = yaml.safe_load((REPO_ROOT / "workspace.yaml").read_text())
    location = workspace["load_from"][0]["python_module"]
    assert (location["module_name"], location["attribute"]) == ("pipelines.definitions", "defs")


def test_jobs_run_in_process():
    job = build_definitions().resolve_job_def("build_warehouse")
    assert job.executor_def.name == "in_process"


def test_the_run_partitions_job_lets_each_run_choose_one_process_or_a_process_per_partition():
    job = build_definitions().resolve_job_def("scan_dump_runs")
    assert job.executor_def.name == "multi_or_in_process_executor"
    steps = {node.name for node in job.graph.nodes} | {
        inner.name
        for node in job.graph.nodes
        if isinstance(node.definition, dg.GraphDefinition)
        for inner in node.definition.nodes
    }
    assert {"plan_run_partitions", "scan_run_partition", "index_run_partitions"} <= steps
    for mode in ("in_process", "multiprocess"):
        assert dg.validate_run_config(job, executor_run_config(mode)).get("execution")
    assert partition_executor("multiprocess") is dg.multiprocess_executor


def test_step_processes_fork_from_a_server_that_imported_what_they_need(tmp_path):
    job = build_definitions().resolve_job_def("scan_dump_runs")
    config = executor_run_config("multiprocess", 2, STEP_PRELOAD)
    assert dg.validate_run_config(job, config)
    start = config["execution"]["config"]["multiprocess"]["start_method"]
    assert start == {"forkserver": {"preload_modules": STEP_PRELOAD}}
    # the definitions the steps load, and the modules of what a step opens the instance with
    with dg.DagsterInstance.local_temp(str(tmp_path)) as instance:
        named = [getattr(data, "module_name", None) for data in instance.get_ref()._asdict().values()]
    assert {"pipelines.definitions", "duckdb", "polars"} | {n for n in named if n} <= set(STEP_PRELOAD)
    for module in STEP_PRELOAD:
        importlib.import_module(module)  # the server skips a name it cannot import without a word
    assert executor_run_config("multiprocess")["execution"]["config"]["multiprocess"]["start_method"] == {"spawn": {}}


def test_nightly_schedule_refreshes_rounds_and_the_rebuild_follows():
    schedule = defs.resolve_schedule_def("nightly_refresh")
    assert schedule.job_name == "ingest_mlperf_round" and schedule.cron_schedule == "17 3 * * *"
    assert defs.resolve_sensor_def("rebuild_after_round_ingest").job_name == "build_warehouse"


def test_rounds_are_partitions_of_the_ingestion_job_only():
    ingest = defs.resolve_job_def("ingest_mlperf_round")
    build = defs.resolve_job_def("build_warehouse")
    assert ingest.partitions_def.name == "mlperf_round"
    keys = {k.to_user_string() for k in ingest.asset_layer.executable_asset_keys}
    assert keys == {
        "benchmark/mlperf_results",
        "benchmark/mlperf_run_conditions",
        "benchmark/mlperf_source_disagreements",
    }
    assert build.partitions_def is None
    assert not keys & {k.to_user_string() for k in build.asset_layer.executable_asset_keys}


def test_schedule_and_sensors_run_by_default_once_the_daemon_loads_them():
    assert defs.resolve_schedule_def("nightly_refresh").default_status == dg.DefaultScheduleStatus.RUNNING
    for sensor in defs.sensors:
        assert sensor.default_status == dg.DefaultSensorStatus.RUNNING, sensor.name


def test_freshness_and_row_count_checks_watch_the_published_rounds():
    checks = {key.to_user_string() for key in defs.resolve_asset_graph().asset_check_keys}
    assert {"benchmark/mlperf_results:row_count_per_round", "publish/serving_duckdb:freshness_check"} <= checks
