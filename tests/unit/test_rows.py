"""Rows built against their table's pandera model where they are built (assets.warehouse.rows): a missing or
misspelt column fails there, naming the table and the column; the hidden columns that name a quarantined row;
the frame schema of observed.request_sources is its model's; run.yaml keys merged, the deeper file winning."""

import re
import shutil

import polars as pl
import pytest

from assets.core.errors import SchemaMismatch
from assets.core.records import LOCATION_COLUMN, SOURCE_COLUMN
from assets.runs import levels
from assets.runs.batch import REQUEST_SOURCE_SCHEMA
from assets.runs.collect import collect
from assets.runs.sidecar import merge_sidecars
from assets.warehouse.rows import frame_schema, row_for
from assets.warehouse.validate import split_valid
from schemas.observed.measurements import Measurements
from schemas.observed.request_sources import RequestSources
from schemas.observed.tool_metrics import ToolMetrics
from tests.support.data import REPO_ROOT, WORKED_RUN_YAML


def metric(**changes):
    values = {
        "run_id": "run-1",
        "load_index": 0,
        "repeat_index": 0,
        "tool": "vllm",
        "metric": "ttft",
        "statistic": "p99",
        "value": 12.5,
        "unit": "ms",
        "tool_definitions": "ours",
    }
    values.update(changes)
    return {k: v for k, v in values.items() if v is not ...}


def test_a_misspelt_column_fails_where_the_row_is_built():
    values = metric(statistic=...)
    values["statistc"] = "p99"
    with pytest.raises(SchemaMismatch) as raised:
        row_for(ToolMetrics, values)
    message = str(raised.value)
    assert message.startswith("observed.tool_metrics: row built at tests/unit/test_rows.py:")
    assert "(test_a_misspelt_column_fails_where_the_row_is_built)" in message
    assert "missing column 'statistic'" in message
    assert "unknown column 'statistc' (did you mean 'statistic'?)" in message


def test_a_missing_column_fails_where_the_row_is_built():
    with pytest.raises(SchemaMismatch, match=r"observed\.tool_metrics: .* model ToolMetrics: missing column 'unit'$"):
        row_for(ToolMetrics, metric(unit=...))


def test_a_hidden_column_is_only_given_as_the_origin():
    with pytest.raises(SchemaMismatch, match="unknown column '_source'"):
        row_for(ToolMetrics, {**metric(), SOURCE_COLUMN: "a.json"})


def test_a_row_keeps_its_order_and_carries_its_origin_to_quarantine():
    bad = row_for(ToolMetrics, metric(load_index=-1), origin=("a.json", "level 3"))
    assert list(bad) == [*metric(), SOURCE_COLUMN, LOCATION_COLUMN]
    assert (bad[SOURCE_COLUMN], bad[LOCATION_COLUMN]) == ("a.json", "level 3")
    good = row_for(ToolMetrics, metric(), origin=("b.json", "level 0"))
    valid, rejects = split_valid(pl.DataFrame([bad, good]), ToolMetrics, "observed.tool_metrics")
    assert valid.height == 1 and SOURCE_COLUMN not in valid.columns
    assert [(r.source, r.location) for r in rejects] == [("a.json", "level 3")]
    assert rejects[0].reason == "schema ToolMetrics: load_index failed greater_than_or_equal_to(0) (value -1)"


def test_the_request_sources_frame_schema_is_the_model_s():
    assert REQUEST_SOURCE_SCHEMA == frame_schema(RequestSources)
    assert list(REQUEST_SOURCE_SCHEMA) == list(RequestSources.to_schema().columns)
    # What was written out by hand before it was derived (batch.py), equal in names, order and types.
    assert list(REQUEST_SOURCE_SCHEMA.items()) == [
        ("run_id", pl.String),
        ("load_index", pl.Int64),
        ("repeat_index", pl.Int64),
        ("source", pl.String),
        ("source_sha256", pl.String),
        ("reader", pl.String),
        ("location", pl.String),
        ("source_key", pl.String),
        ("file_offered_rate_per_s", pl.Float64),
        ("file_concurrency", pl.Float64),
        ("level_kind", pl.String),
        ("level_nominal", pl.Float64),
        ("first_ordinal", pl.Int64),
        ("first_start_s", pl.Float64),
        ("requests", pl.Int64),
        ("rows_quarantined", pl.Int64),
        ("evidence", pl.String),
    ]


def test_a_column_added_to_a_model_fails_in_the_assembler_not_at_the_write(tmp_path, monkeypatch):
    class MeasurementsWithMore(Measurements):
        __module__ = Measurements.__module__
        added: str

    (tmp_path / "run.yaml").write_text(WORKED_RUN_YAML)
    shutil.copy(next((REPO_ROOT / "tests/fixtures/vllm").glob("openai-*.json")), tmp_path)
    assert len(collect(tmp_path).measurements) == 1
    monkeypatch.setattr(levels, "Measurements", MeasurementsWithMore)
    with pytest.raises(SchemaMismatch) as raised:
        collect(tmp_path)
    assert re.fullmatch(
        r"observed\.measurements: row built at assets/runs/levels\.py:\d+ \(_measurement_row\) does not fit the model "
        r"MeasurementsWithMore: missing column 'added'",
        str(raised.value),
    )


def test_the_deeper_run_yaml_wins():
    merged = merge_sidecars([{"model": "a", "precision": "bf16"}, {"precision": "fp8"}, {"label": "x"}])
    assert merged == {"model": "a", "precision": "fp8", "label": "x"}
    assert merge_sidecars([]) == {}
