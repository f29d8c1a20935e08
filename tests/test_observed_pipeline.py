"""End to end: repeats of a sweep give honest bands, the shortlist uses them, our traffic is compared;
the drop folder picks up new content once."""

import shutil

import dagster as dg
import duckdb
import pytest

from pipelines.automation import dumps_fingerprint
from pipelines.cli import main
from pipelines.definitions import build_definitions
from pipelines.resources import Inputs
from tests.conftest import V51_TABLE, WORKED_RUN_YAML
from tests.test_dump_formats import FIXTURES, SLA_TREE

PROFILES = """\
profiles:
  - name: chat-8b
    model: llama3.1-8b
    slo: {ttft_p95_ms: 200, tpot_p95_ms: 50, error_rate_max: 0.05}
    delivered_fraction_prior: [0.5, 0.8]
    workload: {traffic_log: production_log.csv}
"""
PRICES = """\
accelerator,price_class,usd_per_accelerator_hour,provider,source,as_of
H100-SXM,on_demand,2.99,Lambda,"cliffcenter.com research note (third-party)",2026-05-18
"""


@pytest.fixture(scope="module")
def serving(tmp_path_factory):
    root = tmp_path_factory.mktemp("repeats")
    (root / "dumps" / "sweep").mkdir(parents=True)
    (root / "dumps" / "sweep" / "run.yaml").write_text(WORKED_RUN_YAML + "label: h100-sla-sweep\n")
    (root / "dumps" / "sweep" / "sla").symlink_to(SLA_TREE.parent.parent, target_is_directory=True)
    (root / "profiles.yaml").write_text(PROFILES)
    shutil.copy(FIXTURES / "generic" / "production_log.csv", root / "production_log.csv")
    (root / "prices.csv").write_text(PRICES)
    args = ["run", "--mlperf", str(V51_TABLE), "--dumps", str(root / "dumps"), "--prices", str(root / "prices.csv"),
            "--profiles", str(root / "profiles.yaml"), "--warehouse", str(root / "warehouse")]
    assert main(args) == 0
    return root / "warehouse" / "serving.duckdb"


def rows(serving, sql):
    with duckdb.connect(str(serving), read_only=True) as conn:
        cursor = conn.execute(sql)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, r)) for r in cursor.fetchall()]


def test_repeats_give_a_band_wider_than_zero_and_ordered(serving):
    (band,) = rows(serving, "SELECT * FROM observed.delivered_at_slo")
    assert band["feasible"] and band["slo_crossed"] and band["repeats_max"] == 2
    assert (band["low_load_value"], band["failing_load_value"], band["load_kind"]) == (8.0, 12.0, "rate")
    points = {r["load_index"]: r for r in rows(serving, "SELECT * FROM observed.load_points")}
    assert band["delivered_requests_per_s_low"] == pytest.approx(points[1]["achieved_requests_per_s_min"])
    assert band["delivered_requests_per_s_low"] < band["delivered_requests_per_s_high"]
    assert band["delivered_requests_per_s_high"] <= points[2]["achieved_requests_per_s_max"]
    assert "order statistics X(" in band["method"] and "open loop" in band["method"]
    assert band["percentile_source"] == "per_request"


def test_shortlist_uses_the_band_and_compares_our_traffic(serving):
    (band,) = rows(serving, "SELECT * FROM observed.delivered_at_slo")
    (row,) = rows(serving, "SELECT * FROM marts.config_shortlist WHERE evidence = 'observed'")
    assert (row["delivered_requests_per_s_low"], row["delivered_requests_per_s_high"]) == (
        band["delivered_requests_per_s_low"], band["delivered_requests_per_s_high"])
    assert row["cost_per_request_usd_high"] == pytest.approx(2.99 / (band["delivered_requests_per_s_low"] * 3600))
    assert "arrival pattern differs: our traffic has inter-arrival CV" in row["caveats"]
    assert "token mix differs: our traffic about" in row["caveats"]
    (shape,) = rows(serving, "SELECT * FROM requirement.traffic_shape")
    assert shape["requests"] == 600 and shape["interarrival_cv"] > 1.5
    assert 0.15 < shape["gamma_shape"] < 0.35 and shape["peak_to_mean"] > 1.5  # written with shape 0.25
    assert rows(serving, "SELECT count(*) AS n FROM requirement.traffic_rate")[0]["n"] > 10


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
