"""End to end: repeats of a sweep give honest bands, the shortlist uses them, our traffic is compared."""

import json
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


# Its own warehouse: a serve_sla sweep, a production log and prices of its own.
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
    assert (row["measured_requests_per_s_low"], row["measured_requests_per_s_high"]) == (
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


# ---- a sweep whose concurrency cap scales with the rate -------------------------------------------------------------

CAPPED = FIXTURES / "vllm-capped-sweep"
CAPPED_PROFILES = """\
profiles:
  - name: chat-8b
    model: llama3.1-8b
    slo: {ttft_p95_ms: 1000, tpot_p95_ms: 50, error_rate_max: 0.05}
    delivered_fraction_prior: [0.5, 0.8]
"""


@pytest.fixture(scope="module")
def capped(tmp_path_factory):
    """The capped sweep (`--request-rate R --max-concurrency 32R`, R = 1, 2, 4, 8), and its 4 req/s result written
    again at caps 1, 16 and 256: three caps at one rate, as aurotripathy/vllm-bench ran them."""
    root = tmp_path_factory.mktemp("capped")
    sweep, caps = root / "dumps" / "capped-sweep", root / "dumps" / "caps-at-one-rate"
    for folder in (sweep, caps):
        folder.mkdir(parents=True)
        (folder / "run.yaml").write_text(WORKED_RUN_YAML + f"label: {folder.name}\n")
    (sweep / "results").symlink_to(CAPPED, target_is_directory=True)
    at_4 = json.loads(next(CAPPED.glob("openai-4.0qps-*.json")).read_bytes())
    for cap in (1, 16, 256):
        (caps / f"openai-4.0qps-concurrency{cap}.json").write_text(json.dumps({**at_4, "max_concurrency": cap}))
    (root / "profiles.yaml").write_text(CAPPED_PROFILES)
    (root / "prices.csv").write_text(PRICES)
    args = ["run", "--mlperf", str(V51_TABLE), "--dumps", str(root / "dumps"), "--prices", str(root / "prices.csv")]
    assert main([*args, "--profiles", str(root / "profiles.yaml"), "--warehouse", str(root / "warehouse")]) == 0
    return root / "warehouse" / "serving.duckdb"


def test_a_sweep_with_its_cap_scaled_with_the_rate_is_one_shortlist_row_with_a_crossing(capped):
    (row,) = rows(capped, "SELECT * FROM marts.config_shortlist WHERE run_label = 'capped-sweep'")
    (band,) = rows(capped, "SELECT d.* FROM observed.delivered_at_slo d WHERE run_label = 'capped-sweep'")
    assert (
        band["slo_crossed"]
        and band["load_points"] == 4
        and (band["low_load_value"], band["failing_load_value"])
        == (
            4.0,
            8.0,
        )
    )
    assert row["measured_requests_per_s_low"] < row["measured_requests_per_s_high"]
    assert "SLO not crossed" not in row["caveats"] and "kept apart" not in row["caveats"]
    caps = rows(
        capped,
        "SELECT lp.max_concurrency FROM observed.load_points lp JOIN observed.runs r USING (run_id)"
        " WHERE r.run_label = 'capped-sweep' ORDER BY load_index",
    )
    assert [c["max_concurrency"] for c in caps] == [32, 64, 128, 256]


def test_caps_at_one_rate_stay_apart_and_the_shortlist_says_why(capped):
    kept = rows(capped, "SELECT * FROM marts.config_shortlist WHERE run_label LIKE 'caps-at-one-rate%'")
    assert sorted(r["run_label"] for r in kept) == sorted(
        f"caps-at-one-rate [max_concurrency={c}]" for c in (1, 16, 256)
    )
    for row in kept:
        cap = row["run_label"].rsplit("=", 1)[1].rstrip("]")
        assert f"measured at max_concurrency {cap}, one of several caps at the same offered rate" in row["caveats"]
