"""The drop folder picks up new dump content once (a Dagster sensor and job over the repository's fixtures)."""

import shutil

import dagster as dg

from assets.resources import Inputs
from assets.runs.collect import dumps_fingerprint
from pipelines.definitions import build_definitions
from tests.support.data import FIXTURES, WORKED_RUN_YAML


def test_drop_folder_ingests_new_content_once(tmp_path):
    root = tmp_path / "drop"
    (root / "h100").mkdir(parents=True)
    (root / "h100" / "run.yaml").write_text(WORKED_RUN_YAML)
    inputs = Inputs(dumps=[str(root)])
    sensor = build_definitions(inputs=inputs).resolve_sensor_def("dump_folder_sensor")

    def tick(cursor):
        with dg.build_sensor_context(cursor=cursor, resources={"inputs": inputs}) as context:
            return sensor(context), context.cursor

    first, cursor = tick(None)
    assert isinstance(first, dg.RunRequest)
    shutil.copy(FIXTURES / "vllm/openai-4.0qps-Llama-3.1-8B-Instruct-20260901-120000.json", root / "h100" / "a.json")
    new, cursor = tick(cursor)
    assert isinstance(new, dg.RunRequest) and new.run_key == dumps_fingerprint([str(root)])
    assert new.job_name is None and sensor.job_name == "refresh_observed"  # the request runs the sensor's job
    shutil.copy(root / "h100" / "a.json", root / "h100" / "a (copy).json")
    (root / "later").mkdir()
    shutil.copy(root / "h100" / "a.json", root / "later" / "a.json")
    again, _ = tick(cursor)
    assert isinstance(again, dg.SkipReason)
