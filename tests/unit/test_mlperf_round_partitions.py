"""MLPerf rounds as partitions, without the shared data: scoped replacement of one round's rows, a table
of an older model gaining columns, rounds named in the sources file registered by the sensor."""

import dagster as dg
import duckdb
import polars as pl
import pytest

from assets.core.errors import SchemaMismatch
from assets.core.records import Reject, SourceFile
from assets.warehouse.write import write_table
from schemas.benchmark.mlperf_source_disagreements import MlperfSourceDisagreements
from tests.support.data import V41_TABLE

# --- scoped replacement -------------------------------------------------------------------


def test_write_table_scoped_replaces_one_round_with_its_quarantine_and_files(tmp_path):
    conn = duckdb.connect(str(tmp_path / "w.duckdb"))
    rows = [
        {
            "result_key": f"{r}/a",
            "round": r,
            "field": "x",
            "kept_value": "1",
            "other_value": "2",
            "relative_difference": 1.0,
            "kept_source_format": "f",
            "kept_source": "s",
            "kept_location": "l",
            "other_source_format": "g",
            "other_source": "t",
            "other_location": "m",
        }
        for r in ("v4.1", "v5.1")
    ]
    for row in rows:
        write_table(
            conn,
            "benchmark.d",
            pl.DataFrame([row]),
            MlperfSourceDisagreements,
            [Reject("s", "l", f"bad {row['round']}")],
            [SourceFile(f"{row['round']}.json", None, 1, "f", "read")],
            scope=("round", row["round"]),
        )
    again = dict(rows[1], result_key="v5.1/b")
    write_table(conn, "benchmark.d", pl.DataFrame([again]), MlperfSourceDisagreements, [], [], scope=("round", "v5.1"))
    assert conn.execute("SELECT result_key FROM benchmark.d ORDER BY 1").fetchall() == [("v4.1/a",), ("v5.1/b",)]
    assert conn.execute("SELECT reason, scope FROM audit.quarantine").fetchall() == [("bad v4.1", "round=v4.1")]
    assert conn.execute("SELECT source FROM audit.source_files").fetchall() == [("v4.1.json",)]
    with pytest.raises(SchemaMismatch, match="outside the scope round = 'v5.1'"):
        write_table(conn, "benchmark.d", pl.DataFrame([rows[0]]), MlperfSourceDisagreements, scope=("round", "v5.1"))


def test_a_table_of_an_older_model_gains_new_columns_on_scoped_write(tmp_path):
    conn = duckdb.connect(str(tmp_path / "w.duckdb"))
    conn.execute("CREATE SCHEMA benchmark; CREATE TABLE benchmark.d (result_key VARCHAR, round VARCHAR, gone INT)")
    conn.execute("INSERT INTO benchmark.d VALUES ('v4.1/a', 'v4.1', 1)")
    row = {
        "result_key": "v5.1/a",
        "round": "v5.1",
        "field": "x",
        "kept_value": None,
        "other_value": "2",
        "relative_difference": None,
        "kept_source_format": None,
        "kept_source": None,
        "kept_location": None,
        "other_source_format": "g",
        "other_source": "t",
        "other_location": "m",
    }
    write_table(conn, "benchmark.d", pl.DataFrame([row]), MlperfSourceDisagreements, scope=("round", "v5.1"))
    columns = [r[0] for r in conn.execute("DESCRIBE benchmark.d").fetchall()]
    assert "gone" not in columns and "other_location" in columns
    assert conn.execute("SELECT count(*) FROM benchmark.d").fetchone() == (2,)


# --- the partitioned ingestion, versions, schedule and sensor ------------------------------


def test_round_sensor_registers_rounds_named_in_the_sources_file(round_setup):
    definitions, instance, _warehouse, inputs, sources = round_setup
    sources.write_text(f"allowed_hosts: []\nrounds:\n  - round: v4.1\n    url: {V41_TABLE}\n")
    sensor = definitions.resolve_sensor_def("mlperf_round_sensor")
    with dg.build_sensor_context(instance=instance, resources={"inputs": inputs}) as context:
        result = sensor(context)
    assert [r.partition_key for r in result.run_requests] == ["v4.1"]
    assert result.dynamic_partitions_requests[0].partition_keys == ["v4.1"]
