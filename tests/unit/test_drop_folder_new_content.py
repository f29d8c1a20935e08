"""The drop folder picks up new dump content once (a Dagster sensor and job over the repository's fixtures), and
every change: which run.yaml governs which file, and a revert to earlier content."""

import shutil
import subprocess
import sys

import dagster as dg
import pytest

from assets.resources import Inputs, Warehouse
from assets.runs.drop_folder import dumps_fingerprint
from pipelines.definitions import build_definitions
from pipelines.sensors import drop_run_key
from tests.support.data import FIXTURES, REPO_ROOT, WORKED_RUN_YAML, built_warehouse


def h100_drop(tmp_path):
    """A drop folder with one run.yaml (the worked case's), its Inputs and the sensor over them."""
    root = tmp_path / "drop"
    (root / "h100").mkdir(parents=True)
    (root / "h100" / "run.yaml").write_text(WORKED_RUN_YAML)
    inputs = Inputs(dumps=[str(root)])
    return root, inputs, build_definitions(inputs=inputs).resolve_sensor_def("dump_folder_sensor")


def test_the_drop_folder_waits_for_the_warehouses_first_build(tmp_path):
    """A fresh instance: the first build reads the dump folders itself; a refresh before it would find no profiles."""
    _root, inputs, sensor = h100_drop(tmp_path)
    fresh = Warehouse(dir=str(tmp_path / "fresh"))
    with dg.build_sensor_context(resources={"inputs": inputs, "warehouse": fresh}) as context:
        waiting = sensor(context)
        assert isinstance(waiting, dg.SkipReason) and "waiting for the warehouse's first build" in waiting.skip_message
        assert context.cursor is None  # the content is requested once the build has published
    with dg.build_sensor_context(resources={"inputs": inputs, "warehouse": built_warehouse(tmp_path)}) as context:
        assert isinstance(sensor(context), dg.RunRequest)


def test_drop_folder_ingests_new_content_once(tmp_path):
    root, inputs, sensor = h100_drop(tmp_path)

    def tick(cursor):
        with dg.build_sensor_context(
            cursor=cursor, resources={"inputs": inputs, "warehouse": built_warehouse(tmp_path)}
        ) as context:
            return sensor(context), context.cursor

    first, cursor = tick(None)
    assert isinstance(first, dg.RunRequest)
    shutil.copy(FIXTURES / "vllm/openai-4.0qps-Llama-3.1-8B-Instruct-20260901-120000.json", root / "h100" / "a.json")
    new, cursor = tick(cursor)
    assert isinstance(new, dg.RunRequest) and new.run_key == drop_run_key(dumps_fingerprint([str(root)]), 2)
    assert new.job_name is None and sensor.job_name == "refresh_observed"  # the request runs the sensor's job
    shutil.copy(root / "h100" / "a.json", root / "h100" / "a (copy).json")
    (root / "h100" / "later").mkdir()  # another folder the same run.yaml governs
    shutil.copy(root / "h100" / "a.json", root / "h100" / "later" / "a.json")
    again, _ = tick(cursor)
    assert isinstance(again, dg.SkipReason)


RESULTS = FIXTURES / "vllm/openai-4.0qps-Llama-3.1-8B-Instruct-20260901-120000.json"


def two_runs(root):
    """Two runs, each a run.yaml (their labels differ) and a results file."""
    for name in ("a", "b"):
        (root / name).mkdir(parents=True)
        (root / name / "run.yaml").write_text(WORKED_RUN_YAML + f"label: {name}-run\n")
    shutil.copy(RESULTS, root / "a" / "results.json")
    return root


@pytest.fixture
def instance():
    with dg.instance_for_test() as instance:
        yield instance


def ticker(root, instance):
    """A tick of the sensor on a Dagster instance, from the cursor the last tick left."""
    inputs = Inputs(dumps=[str(root)])
    sensor = build_definitions(inputs=inputs).resolve_sensor_def("dump_folder_sensor")
    cursor = [None]

    def tick():
        with dg.build_sensor_context(
            cursor=cursor[0], instance=instance, resources={"inputs": inputs, "warehouse": built_warehouse(root.parent)}
        ) as context:
            result = sensor(context)
            cursor[0] = context.cursor
        return result

    return tick


def test_swapping_two_run_yaml_files_is_new_content(tmp_path, instance):
    root = two_runs(tmp_path / "drop")
    tick = ticker(root, instance)
    assert isinstance(tick(), dg.RunRequest)
    assert isinstance(tick(), dg.SkipReason)
    a, b = (root / "a" / "run.yaml").read_text(), (root / "b" / "run.yaml").read_text()
    (root / "a" / "run.yaml").write_text(b)
    (root / "b" / "run.yaml").write_text(a)
    assert isinstance(tick(), dg.RunRequest)  # the results file is now governed by the other run.yaml


def test_moving_a_results_file_into_another_runs_folder_is_new_content(tmp_path, instance):
    root = two_runs(tmp_path / "drop")
    tick = ticker(root, instance)
    assert isinstance(tick(), dg.RunRequest)
    (root / "a" / "results.json").rename(root / "b" / "results.json")
    assert isinstance(tick(), dg.RunRequest)
    assert isinstance(tick(), dg.SkipReason)


def test_a_revert_to_earlier_content_is_requested_with_a_run_key_of_its_own(tmp_path, instance):
    root = two_runs(tmp_path / "drop")
    tick = ticker(root, instance)
    original = (root / "a" / "run.yaml").read_text()
    first = tick()
    (root / "a" / "run.yaml").write_text(original.replace("label: a-run", "label: edited", 1))
    edited = tick()
    (root / "a" / "run.yaml").write_text(original)
    reverted = tick()
    assert all(isinstance(r, dg.RunRequest) for r in (first, edited, reverted))
    assert len({first.run_key, edited.run_key, reverted.run_key}) == 3  # Dagster skips a run key it has seen
    assert isinstance(tick(), dg.SkipReason)


def test_the_drop_folder_skips_with_a_reason_while_a_run_holds_the_warehouse(tmp_path):
    """A run holding the warehouse's lock (another process, as in `make dev`) makes the tick a skip naming it, the
    cursor kept; once the run is done, the change is requested."""
    _root, inputs, sensor = h100_drop(tmp_path)
    warehouse = built_warehouse(tmp_path).model_copy(update={"lock_timeout_s": 0.5})
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_THE_LOCK, str(warehouse.layout.lock_path)],
        cwd=REPO_ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with dg.build_sensor_context(resources={"inputs": inputs, "warehouse": warehouse}) as context:
            busy = sensor(context)
            assert isinstance(busy, dg.SkipReason), busy
            assert f"the warehouse is busy: a run is writing it (pid {holder.pid} since" in (busy.skip_message or "")
            assert context.cursor is None
    finally:
        holder.communicate("")  # the run ends, and gives the lock back
    with dg.build_sensor_context(resources={"inputs": inputs, "warehouse": warehouse}) as context:
        assert isinstance(sensor(context), dg.RunRequest)


# A run holding the warehouse's lock: takes it as a run does (assets/warehouse/lock.py), says so, holds it until
# its stdin closes.
HOLD_THE_LOCK = """
import sys
from pathlib import Path
from assets.warehouse import lock
lock.acquire(Path(sys.argv[1]), 5)
print("held", flush=True)
sys.stdin.read()
"""
