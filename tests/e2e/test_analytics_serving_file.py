"""The analyst surface of a published serving file: documented views per evidence class, a comment on
every table, view and column (from one place), quarantine and provenance visible."""

import csv
import json
from collections import Counter
from pathlib import Path

import duckdb

from assets.core.paths import DEFAULT_PRICES, REFERENCE_DIR
from tests.support.data import V41_TABLE, V51_TABLE

OUR_SCHEMAS = ("analytics", "audit", "benchmark", "requirement", "observed", "calibrated", "projected", "cost", "marts")


def serving(warehouse: Path) -> duckdb.DuckDBPyConnection:
    return duckdb.connect(str(warehouse / "serving.duckdb"), read_only=True)


def test_every_table_view_and_column_in_the_serving_file_has_a_comment(published):
    with serving(published) as conn:
        relations = conn.execute(
            "SELECT schema_name, table_name, comment FROM duckdb_tables() UNION ALL "
            "SELECT schema_name, view_name, comment FROM duckdb_views() WHERE NOT internal"
        ).fetchall()
        columns = conn.execute(
            "SELECT schema_name, table_name, column_name, comment FROM duckdb_columns() "
            "WHERE schema_name IN ? AND NOT internal",
            [list(OUR_SCHEMAS)],
        ).fetchall()
    assert len(relations) >= 26 and len(columns) > 400
    assert [r for r in relations if r[0] not in OUR_SCHEMAS] == []
    assert [f"{s}.{t}" for s, t, c in relations if not (c or "").strip()] == []
    assert [f"{s}.{t}.{c}" for s, t, c, comment in columns if not (comment or "").strip()] == []


def test_views_cover_every_evidence_class_the_shortlist_quarantine_and_provenance(published):
    with serving(published) as conn:
        views = {
            r[0]
            for r in conn.execute("SELECT view_name FROM duckdb_views() WHERE schema_name = 'analytics'").fetchall()
        }
        evidence = {
            view: {r[0] for r in conn.execute(f"SELECT DISTINCT evidence FROM analytics.{view}").fetchall()}
            for view in (
                "mlperf_results",
                "accelerator_prices",
                "profiles",
                "load_points",
                "delivered_at_slo",
                "shortlist",
            )
        }
        shortlist_rows = conn.execute("SELECT count(*) FROM marts.config_shortlist").fetchone()[0]
        view_rows = conn.execute("SELECT count(*) FROM analytics.shortlist").fetchone()[0]
    assert {
        "shortlist",
        "shortlist_sources",
        "quarantine",
        "source_files",
        "mlperf_results",
        "mlperf_reference",
        "accelerator_prices",
        "profiles",
        "slo_bounds",
        "runs",
        "load_points",
        "delivered_at_slo",
        "cost_per_request",
        "mlperf_round_over_round",
        "traffic_shape",
    } <= views
    assert evidence == {
        "mlperf_results": {"benchmark"},
        "accelerator_prices": {"benchmark"},
        "profiles": {"requirement"},
        "load_points": {"observed"},
        "delivered_at_slo": {"observed", "projected"},
        "shortlist": {"observed", "projected"},
    }
    assert view_rows == shortlist_rows


def test_quarantined_rows_are_visible_with_their_reason(published):
    with serving(published) as conn:
        rows = conn.execute("SELECT table_name, location, reason FROM analytics.quarantine").fetchall()
    line = len(DEFAULT_PRICES.read_text().splitlines()) + 1
    assert rows == [
        ("benchmark.accelerator_prices", f"line {line}", "usd_per_accelerator_hour 'not-a-number' is not a number")
    ]


def test_each_shortlist_number_names_its_sources(published):
    with serving(published) as conn:
        cursor = conn.execute(
            "SELECT s.*, l.mlperf_server_tokens_per_s_per_accel AS reference FROM analytics.shortlist_sources AS s "
            "JOIN (SELECT DISTINCT profile, config_key, mlperf_server_tokens_per_s_per_accel "
            "      FROM marts.config_shortlist) AS l USING (profile, config_key) "
            "WHERE s.run_label = 'vllm'"
        )
        names = [d[0] for d in cursor.description]
        rows = [dict(zip(names, r)) for r in cursor.fetchall()]
    server = [r for r in rows if r["number"].startswith("MLPerf Server tokens/s per accelerator")]
    assert server and all(r["value"] == r["reference"] == 5103.99 for r in server)
    # H100 published no Interactive result: Server is the reference each profile of the vllm run is compared with
    assert all(r["number"].endswith("(the reference this profile is compared with)") for r in server)
    assert {(r["round"], r["submitter"], r["number_evidence"]) for r in server} == {("v5.1", "RedHat", "benchmark")}
    assert all(
        r["source"].endswith("v5.1/summary_results.json") and r["location"].startswith("record ") for r in server
    )
    points = [r for r in rows if r["number"].startswith("load point")]
    assert {r["number_evidence"] for r in points} == {"observed"}
    assert all("lifecycle_metrics.json" in r["source"] and len(r["source_sha256"]) == 64 for r in points)
    prices = [r for r in rows if r["number"].startswith("price:")]
    assert prices and all(r["location"].startswith("line ") and r["source"].endswith("prices.csv") for r in prices)


def test_serving_file_is_written_for_duckdb_1_0_and_later(published):
    conn = duckdb.connect()
    conn.execute(f"ATTACH '{published / 'serving.duckdb'}' AS s (READ_ONLY)")
    tags = conn.execute("SELECT tags FROM duckdb_databases() WHERE database_name = 's'").fetchone()[0]
    assert tags["storage_version"] == "v1.0.0+"


def test_unknown_names_lists_every_mlperf_accelerator_name_no_alias_knows_as_often_as_the_files_hold_it(published):
    with serving(published) as conn:
        listed = conn.execute(
            "SELECT raw_name, rows FROM analytics.unknown_names "
            "WHERE kind = 'accelerator' AND table_name = 'benchmark.mlperf_results'"
        ).fetchall()
        flagged = conn.execute(
            "SELECT count(*) FROM benchmark.mlperf_results WHERE NOT accelerator_known AND accelerator_raw IS NOT NULL"
        ).fetchone()[0]
    # independently: each name as often as the published round tables hold it, and none of them an alias
    published_names = Counter(
        record["Accelerator"] for table in (V51_TABLE, V41_TABLE) for record in json.loads(table.read_text())
    )
    with (REFERENCE_DIR / "accelerator_aliases.csv").open(newline="", encoding="utf-8") as f:
        aliases = {row["alias"] for row in csv.DictReader(f)}
    assert len(listed) >= 10 and sum(rows for _name, rows in listed) == flagged
    for name, rows in listed:
        assert published_names[name] == rows and name not in aliases, name
    assert any("Jetson" in name for name, _rows in listed) and any("Arc Pro B60" in name for name, _rows in listed)
