"""The Dagster catalog shows what a Dagster user expects of each table: `dagster/row_count`, a
`dagster/column_schema` read from the table's pandera model, a preview of its first rows, the source files it was
read from, an owner and a code version; check evaluations say in words whether they passed and why."""

import csv
import importlib
import pkgutil
import time

import dagster as dg
import duckdb
import pandera.polars as pa
import polars as pl
import pytest
import yaml

import schemas
from assets import benchmark, publish, requirement, specs, sql_tables
from assets.core.paths import DEFAULT_PRICES, DEFAULT_PROFILES
from assets.core.sqltext import one_line
from assets.resources import Inputs, Warehouse
from assets.specs import OWNERS, column_schema, sql_code_version
from assets.warehouse.catalog import PREVIEW_CELL_CHARS, PREVIEW_ROWS, markdown_table, preview_markdown
from assets.warehouse.sqlfiles import check_sql_files
from assets.warehouse.write import write_table
from pipelines.definitions import defs


def _models() -> dict[str, type[pa.DataFrameModel]]:
    found = {}
    for schema in pkgutil.iter_modules(schemas.__path__):
        if not schema.ispkg:
            continue
        package = importlib.import_module(f"schemas.{schema.name}")
        for table in pkgutil.iter_modules(package.__path__):
            found[f"{schema.name}.{table.name}"] = schemas.model_for(f"{schema.name}.{table.name}")
    return found


MODELS = _models()


@pytest.mark.parametrize("table", sorted(MODELS))
def test_a_column_schema_lists_every_column_of_the_model_with_its_description(table):
    model = MODELS[table]
    columns = model.to_schema().columns
    shown = column_schema(model).columns
    assert [c.name for c in shown] == list(columns)
    for column in shown:
        assert column.description == one_line(columns[column.name].description) and len(column.description) > 10
        assert column.type == str(columns[column.name].dtype)
        assert column.constraints.nullable == bool(columns[column.name].nullable)


def test_a_column_schema_states_the_model_checks_in_words():
    shown = {c.name: c for c in column_schema(MODELS["benchmark.accelerator_prices"]).columns}
    assert "greater_than(min_value=0)" in shown["usd_per_accelerator_hour"].constraints.other
    assert shown["price_class"].constraints.other[0].startswith("isin(allowed_values=")


def test_every_table_asset_has_an_owner_a_code_version_and_its_column_schema_before_it_is_materialised():
    graph = defs.resolve_asset_graph()
    tables = 0
    for key in graph.get_all_asset_keys():
        node = graph.get(key)
        assert node.owners == OWNERS and node.code_version, key
        table = ".".join(key.path)
        if table in MODELS:
            tables += 1
            assert node.metadata["dagster/table_name"] == table
            assert [c.name for c in node.metadata["dagster/column_schema"].columns] == list(
                MODELS[table].to_schema().columns
            )
    assert tables >= 25


def test_a_sql_built_table_changes_its_code_version_when_its_sql_changes(tmp_path):
    sql = tmp_path / "config_shortlist.sql"
    sql.write_text("SELECT 1 AS x")
    before = sql_code_version("marts.config_shortlist", sql)
    assert sql_code_version("marts.config_shortlist", sql) == before
    sql.write_text("SELECT 2 AS x")
    assert sql_code_version("marts.config_shortlist", sql) != before


def test_a_sql_built_table_changes_its_code_version_when_the_macros_it_may_call_change(tmp_path, monkeypatch):
    sql = tmp_path / "config_shortlist.sql"
    sql.write_text("SELECT usd_per_request(10.0, 2.0) AS x")
    macros = tmp_path / "macros.sql"
    macros.write_text("CREATE OR REPLACE TEMP MACRO usd_per_request(h, r) AS h / (r * 3600);")
    monkeypatch.setattr(specs, "SQL_DIR", tmp_path)
    before = sql_code_version("marts.config_shortlist", sql)
    macros.write_text("CREATE OR REPLACE TEMP MACRO usd_per_request(h, r) AS h / r;")
    assert sql_code_version("marts.config_shortlist", sql) != before


class Scoped(pa.DataFrameModel):
    """A test table written one round at a time."""

    round: str = pa.Field(description="Round of the row.")
    note: str = pa.Field(description="Free text.")
    value: float = pa.Field(ge=0, description="A number.")


def test_a_scoped_write_reports_the_whole_table_its_scope_and_a_preview_of_the_scope():
    conn = duckdb.connect()
    v41 = pl.DataFrame({"round": ["v4.1"] * 7, "note": ["a|b"] * 7, "value": [float(i) for i in range(7)]})
    write_table(conn, "benchmark.scoped", v41, Scoped, scope=("round", "v4.1"))
    v51 = pl.DataFrame({"round": ["v5.1"] * 3, "note": ["x" * 100, "c", "d"], "value": [1.0, 2.0, -1.0]})
    report = write_table(conn, "benchmark.scoped", v51, Scoped, scope=("round", "v5.1"))
    assert (report.rows, report.quarantined, report.table_rows, report.scope) == (2, 1, 9, "round=v5.1")
    lines = report.preview.splitlines()
    assert lines[0] == "| round | note | value |" and lines[1] == "| --- | --- | --- |"
    assert len(lines) == 2 + 2 and all("v5.1" in line for line in lines[2:])
    assert "x" * (PREVIEW_CELL_CHARS - 1) + "…" in lines[2] and "x" * PREVIEW_CELL_CHARS not in lines[2]
    whole = preview_markdown(conn, "benchmark.scoped")
    assert len(whole.splitlines()) == 2 + PREVIEW_ROWS and "a\\|b" in whole


def test_a_markdown_preview_escapes_pipes_and_shows_nulls():
    assert markdown_table(["a|b", "c"], [(None, "x|y")]).splitlines() == [
        "| a\\|b | c |",
        "| --- | --- |",
        "| NULL | x\\|y |",
    ]


def test_prompt_and_response_texts_are_never_previewed():
    conn = duckdb.connect()
    conn.execute("CREATE SCHEMA observed; CREATE TABLE observed.request_texts AS SELECT 'a secret prompt' AS prompt")
    assert "secret" not in preview_markdown(conn, "observed.request_texts")


def _materialised(tmp_path) -> dict[str, dict]:
    result = dg.materialize(
        [requirement.profiles, benchmark.accelerator_prices],
        resources={"warehouse": Warehouse(dir=str(tmp_path / "w")), "inputs": Inputs()},
    )
    return {
        e.materialization.asset_key.to_user_string(): {k: v.value for k, v in e.materialization.metadata.items()}
        for e in result.get_asset_materialization_events()
    }


def test_benchmark_and_requirement_materialisations_carry_row_count_schema_preview_and_sources(tmp_path):
    metadata = _materialised(tmp_path)
    with DEFAULT_PRICES.open(newline="", encoding="utf-8") as f:
        prices = [row for row in csv.DictReader(f) if any((v or "").strip() for v in row.values())]
    profiles = yaml.safe_load(DEFAULT_PROFILES.read_text(encoding="utf-8"))["profiles"]
    bounds = sum(len(p["slo"]) + 1 for p in profiles)  # each SLO bound, and the error rate (default 0.01)

    prices_meta = metadata["benchmark/accelerator_prices"]
    assert prices_meta["dagster/row_count"] == len(prices) and prices_meta["quarantined"] == 0
    assert prices_meta["source_files"] == [str(DEFAULT_PRICES)]
    assert prices[0]["provider"] in prices_meta["preview"].splitlines()[2]
    assert "rows" not in prices_meta  # the custom key gave way to Dagster's own
    assert metadata["requirement/profiles"]["dagster/row_count"] == len(profiles)
    assert metadata["requirement/slo_bounds"]["dagster/row_count"] == bounds
    for meta in metadata.values():
        assert [c.name for c in meta["dagster/column_schema"].columns][:1] and meta["preview"].startswith("| ")


@pytest.mark.parametrize("offending, outcome", [(0, "passed: "), (1, "failed: 1 row breaks it"), (3, "3 rows")])
def test_a_check_evaluation_says_its_outcome_and_what_it_expects(offending, outcome):
    check = next(c for c in check_sql_files() if c.name == "one_row_per_result")
    said = sql_tables.check_outcome(check, offending)
    assert outcome in said and check.description in said
    if offending:
        assert f"sql/{check.relative}" in said


def test_a_warn_check_that_finds_rows_warned_rather_than_failed():
    check = next(c for c in check_sql_files() if c.severity == "warn")
    assert sql_tables.check_outcome(check, 2).startswith("warned: 2 rows break it")


def test_the_freshness_check_says_how_old_the_publish_is(monkeypatch):
    instance = dg.DagsterInstance.ephemeral()
    never = publish.serving_freshness(dg.build_asset_check_context(instance=instance))
    assert not never.passed and never.description.startswith("warned: never published")
    instance.report_runless_asset_event(dg.AssetMaterialization(asset_key=publish.serving_duckdb.key))
    fresh = publish.serving_freshness(dg.build_asset_check_context(instance=instance))
    assert fresh.passed and fresh.description == "passed: published less than a second ago (allowed: 1 day 2 hours)"
    later = time.time() + 27 * 3600 + 5 * 60
    monkeypatch.setattr(publish.time, "time", lambda: later)
    stale = publish.serving_freshness(dg.build_asset_check_context(instance=instance))
    assert not stale.passed and stale.severity == dg.AssetCheckSeverity.WARN
    assert stale.description.startswith("warned: last published 1 day 3 hours ago, more than the 1 day 2 hours allowed")


def test_the_freshness_check_has_a_readable_step_name_and_the_sensor_requests_it():
    job = defs.resolve_job_def("build_warehouse")
    assert "publish__serving_duckdb_freshness_check" in job.graph.node_dict
    assert not [name for name in job.graph.node_dict if "freshness_check_" in name and name.count("_") == 2]
    sensor = defs.resolve_sensor_def("freshness_checks_sensor")
    with dg.build_sensor_context(instance=dg.DagsterInstance.ephemeral(), definitions=defs) as context:
        request = sensor(context)
    assert isinstance(request, dg.RunRequest)
    assert [k.to_user_string() for k in request.asset_check_keys] == ["publish/serving_duckdb:freshness_check"]


def test_the_serving_file_carries_a_freshness_policy_of_the_same_window():
    policy = defs.resolve_asset_graph().get(publish.serving_duckdb.key).freshness_policy
    assert policy is not None and policy.fail_window.to_timedelta() == publish.PUBLISHED_WITHIN


@pytest.mark.parametrize(
    "seconds, words",
    [(0.3, "less than a second"), (1, "1 second"), (3725, "1 hour 2 minutes"), (90061, "1 day 1 hour")],
)
def test_durations_are_said_in_words(seconds, words):
    assert publish.duration_words(seconds) == words
