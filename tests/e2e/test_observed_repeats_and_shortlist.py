"""End to end: repeats of a sweep give honest bands, the shortlist uses them, our traffic is compared."""

import shutil

import duckdb
import pytest

from pipelines.cli import main
from tests.support.data import FIXTURES, SLA_TREE, V51_TABLE, WORKED_RUN_YAML

PROFILES = """\
profiles:
  - name: chat-8b
    model: llama3.1-8b
    slo: {ttft_p95_ms: 200, tpot_p95_ms: 50, error_rate_max: 0.05}
    delivered_fraction_prior: [0.5, 0.8]
    workload: {traffic_log: production_log.csv, peak_window_s: 15}  # a 5-minute log: 15 s windows
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
    args = [
        "run",
        "--mlperf",
        str(V51_TABLE),
        "--dumps",
        str(root / "dumps"),
        "--prices",
        str(root / "prices.csv"),
        "--profiles",
        str(root / "profiles.yaml"),
        "--warehouse",
        str(root / "warehouse"),
    ]
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
        band["delivered_requests_per_s_low"],
        band["delivered_requests_per_s_high"],
    )
    assert row["cost_per_request_usd_high"] == pytest.approx(2.99 / (band["delivered_requests_per_s_low"] * 3600))
    assert "arrival pattern differs: our traffic has inter-arrival CV" in row["caveats"]
    assert "token mix differs: our traffic about" in row["caveats"]
    (shape,) = rows(serving, "SELECT * FROM requirement.traffic_shape")
    assert shape["requests"] == 600 and shape["interarrival_cv"] > 1.5
    assert 0.15 < shape["gamma_shape"] < 0.35 and shape["peak_to_mean"] > 1.5  # written with shape 0.25
    assert rows(serving, "SELECT count(*) AS n FROM requirement.traffic_rate")[0]["n"] > 10
