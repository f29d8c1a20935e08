"""Every asset can be materialised on its own (from the UI's selection or `dagster asset materialize --select`):
each key of the definitions is a valid selection alone; each table of a multi-asset, materialised alone over a
published warehouse, is the only one written (the observed pass records the tables it rewrote with it)."""

import os
import subprocess
import sys

import dagster as dg
import duckdb
import pytest

from assets.partitions import MLPERF_ROUND_PARTITIONS
from assets.resources import Inputs, Warehouse
from pipelines.definitions import build_definitions, defs
from tests.support.data import FIXTURES, REPO_ROOT, SHARED

MULTI_ASSET_TABLES = [
    "benchmark/mlperf_results",
    "benchmark/mlperf_run_conditions",
    "benchmark/mlperf_source_disagreements",
    "requirement/profiles",
    "requirement/slo_bounds",
    "requirement/traffic_shape",
    "requirement/traffic_rate",
]


def test_every_asset_key_is_a_selection_of_its_own():
    job = defs.resolve_implicit_global_asset_job_def()
    graph = defs.resolve_asset_graph()
    # observed/run_partition is reported by the steps that read each partition (an external, partitioned spec)
    keys = {key for key in graph.get_all_asset_keys() if graph.get(key).is_executable}
    assert len(keys) >= 30
    for key in keys:
        subset = job.get_subset(asset_selection={key})  # DagsterInvalidSubsetError for a non-subsettable multi-asset
        assert subset.asset_layer.executable_asset_keys == {key}, key


@pytest.fixture
def warehouse_copy(small_case, tmp_path):
    """A copy of the small case's published warehouse (from table A), the definitions over table B (one result
    corrected) and the small case's dumps, an instance knowing the round, and a profiles file with one profile
    more than the published warehouse holds."""
    warehouse = Warehouse(dir=str(small_case.copy_of(small_case.published, tmp_path / "warehouse")))
    profiles = tmp_path / "profiles.yaml"
    profiles.write_text((small_case.root / "profiles-extra.yaml").read_text())
    inputs = Inputs(
        mlperf=[str(small_case.root / "b" / "summary_results.json")],  # the worked result corrected
        dumps=[str(small_case.root / "dumps1")],
        profiles=str(profiles),
        allow_links_into=[str(SHARED), str(FIXTURES)],
    )
    definitions = build_definitions(inputs, warehouse)
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions(MLPERF_ROUND_PARTITIONS, ["v5.1"])
        yield definitions, instance, warehouse, profiles


def materialise_alone(definitions, instance, key: str) -> dg.ExecuteInProcessResult:
    asset_key = dg.AssetKey.from_user_string(key)
    job = definitions.resolve_implicit_global_asset_job_def().get_subset(asset_selection={asset_key})
    partition = "v5.1" if key.startswith("benchmark/mlperf_") else None
    result = job.execute_in_process(instance=instance, partition_key=partition)
    assert result.success, key
    return result


def counts(warehouse: Warehouse) -> dict[str, tuple]:
    """Per table a multi-asset writes: its row count, and for the results the round versions recorded."""
    with duckdb.connect(str(warehouse.build_path), read_only=True) as conn:
        found = {
            key: conn.execute(f"SELECT count(*) FROM {key.replace('/', '.')}").fetchone() for key in MULTI_ASSET_TABLES
        }
        found["versions"] = conn.execute("SELECT count(*) FROM audit.mlperf_round_versions").fetchone()
    return found


@pytest.mark.parametrize("key", MULTI_ASSET_TABLES)
def test_each_table_of_a_multi_asset_materialised_alone_is_the_only_one_written(warehouse_copy, key):
    definitions, instance, warehouse, _profiles = warehouse_copy
    before = counts(warehouse)
    result = materialise_alone(definitions, instance, key)
    materialised = {m.asset_key.to_user_string() for m in result.get_asset_materialization_events()}
    assert materialised == {key}
    after = counts(warehouse)
    changed = {name for name in before if before[name] != after[name]}
    # the profiles file has one profile more than the published one: profiles and slo_bounds grow when written
    expected = {
        "requirement/profiles": {"requirement/profiles"},
        "requirement/slo_bounds": {"requirement/slo_bounds"},
        "benchmark/mlperf_results": {"versions"},  # the corrected table: a new version of the round, same rows
    }.get(key, set())
    assert changed == expected, (key, before, after)


def test_an_observed_table_materialised_alone_records_the_tables_its_pass_rewrote(warehouse_copy):
    definitions, instance, _warehouse, _profiles = warehouse_copy
    result = materialise_alone(definitions, instance, "observed/request_texts")
    events = [e.event_specific_data.materialization for e in result.get_asset_materialization_events()]
    rewritten = {m.asset_key.to_user_string() for m in events if "rewritten with" in (m.description or "")}
    selected = {m.asset_key.to_user_string() for m in events} - rewritten
    assert selected == {"observed/request_texts"}
    assert rewritten == {
        "observed/runs",
        "observed/measurements",
        "observed/tool_metrics",
        "observed/request_sources",
        "observed/stored_requests",
        "observed/request_stats",
        "observed/request_percentiles",
        "observed/requests",
        "observed/quality",
    }


def test_dagster_asset_materialize_selects_one_table_of_a_multi_asset(warehouse_copy, tmp_path):
    _definitions, _instance, warehouse, profiles = warehouse_copy
    home = tmp_path / "dagster_home"
    home.mkdir()
    (home / "dagster.yaml").write_text((REPO_ROOT / "pipelines" / "dagster.yaml").read_text())
    env = os.environ | {
        "DAGSTER_HOME": str(home),
        "BENCHBILL_WAREHOUSE": warehouse.dir,
        "BENCHBILL_PROFILES": str(profiles),
    }
    before = counts(warehouse)
    command = [sys.executable, "-m", "dagster", "asset", "materialize", "-m", "pipelines.definitions"]
    done = subprocess.run(
        [*command, "--select", "requirement/profiles"], env=env, cwd=REPO_ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "DagsterInvalidSubsetError" not in done.stderr
    after = counts(warehouse)
    assert {name for name in before if before[name] != after[name]} == {"requirement/profiles"}
