"""The drop-folder sensor on the real dumps: a run is requested when their content changes, not otherwise."""

import dagster as dg

from assets.resources import Inputs
from assets.runs.drop_folder import dumps_fingerprint
from pipelines.definitions import build_definitions
from pipelines.sensors import drop_run_key
from tests.support.data import built_warehouse


def test_sensor_requests_a_run_when_dumps_change_and_not_otherwise(dumps_tree, tmp_path):
    inputs = Inputs(dumps=[str(dumps_tree)])
    sensor = build_definitions(inputs=inputs).resolve_sensor_def("dump_folder_sensor")
    with dg.build_sensor_context(resources={"inputs": inputs, "warehouse": built_warehouse(tmp_path)}) as context:
        first = sensor(context)
        cursor = context.cursor
    assert isinstance(first, dg.RunRequest) and first.run_key == drop_run_key(dumps_fingerprint([str(dumps_tree)]), 1)
    with dg.build_sensor_context(
        cursor=cursor, resources={"inputs": inputs, "warehouse": built_warehouse(tmp_path)}
    ) as context:
        assert isinstance(sensor(context), dg.SkipReason)
    (dumps_tree / "vllm" / "notes.txt").write_text("new file")
    with dg.build_sensor_context(
        cursor=cursor, resources={"inputs": inputs, "warehouse": built_warehouse(tmp_path)}
    ) as context:
        assert isinstance(sensor(context), dg.RunRequest)
