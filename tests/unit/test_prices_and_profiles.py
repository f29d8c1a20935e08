"""Bundled prices and profiles are valid and sourced; bad ones are quarantined or refused clearly."""

import datetime

import pytest
import yaml

from assets.config.prices import PLAUSIBLE_USD_PER_ACCELERATOR_HOUR, read_prices
from assets.config.profiles import parse_profiles, read_profiles
from assets.core.errors import IngestError
from assets.core.paths import DEFAULT_PRICES, DEFAULT_PROFILES

HEADER = "accelerator,price_class,usd_per_accelerator_hour,provider,source,as_of\n"


def test_bundled_prices_are_all_valid_dated_and_sourced():
    rows, rejects, _file = read_prices(DEFAULT_PRICES)
    assert rejects == [] and len(rows) >= 20
    assert all(r["accelerator_known"] and r["price_source"] and r["price_as_of"].year >= 2023 for r in rows)
    lambda_h100 = [r for r in rows if r["price_provider"] == "Lambda" and r["accelerator_id"] == "nvidia-h100-sxm-80gb"]
    assert [r["usd_per_accelerator_hour"] for r in lambda_h100] == [2.99]
    assert {r["price_class"] for r in rows} >= {"on_demand", "capacity_block", "tco_model", "spot", "reserved"}


@pytest.mark.parametrize(
    "line,problem",
    [
        ("H100-SXM,on_demand,cheap,Lambda,page,2026-05-18", "not a number"),
        ("H100-SXM,on_demand,-2,Lambda,page,2026-05-18", "outside the plausible range 0.05 to 500 USD"),
        ("H100-SXM,on_demand,1e-9,Lambda,page,2026-05-18", "outside the plausible range 0.05 to 500 USD"),
        ("H100-SXM,on_demand,0.0499,Lambda,page,2026-05-18", "outside the plausible range"),
        ("H100-SXM,on_demand,500.01,Lambda,page,2026-05-18", "outside the plausible range"),
        ("H100-SXM,on_demand,nan,Lambda,page,2026-05-18", "outside the plausible range"),
        ("H100-SXM,on_demand,2.5,Lambda,page,2999-12-31", "as_of 2999-12-31 is in the future"),
        ("H100-SXM,sometimes,2.99,Lambda,page,2026-05-18", "price_class 'sometimes'"),
        ("H100-SXM,on_demand,2.99,Lambda,page,last spring", "not a date"),
        ("H100-SXM,on_demand,2.99,Lambda,,2026-05-18", "source is empty"),
        (",on_demand,2.99,Lambda,page,2026-05-18", "accelerator is empty"),
    ],
)
def test_bad_price_rows_are_quarantined_by_line(tmp_path, line, problem):
    path = tmp_path / "prices.csv"
    path.write_text(HEADER + "H100-SXM,on_demand,2.99,Lambda,page,2026-05-18\n" + line + "\n")
    rows, rejects, _ = read_prices(path)
    assert len(rows) == 1 and rejects[0].location == "line 3" and problem in rejects[0].reason


def test_a_price_dated_in_the_future_never_replaces_the_real_one(tmp_path):
    """Dated tomorrow it is quarantined; dated today it is read (the bound is today, not a fixed year)."""
    today = datetime.date(2026, 6, 1)
    path = tmp_path / "prices.csv"
    path.write_text(
        HEADER + "H100-SXM,on_demand,2.99,Lambda,page,2026-05-18\n"
        "H100-SXM,on_demand,1.00,Lambda,page,2026-06-02\n"
        "H100-SXM,on_demand,2.49,Lambda,page,2026-06-01\n"
    )
    rows, rejects, _ = read_prices(path, today=today)
    assert [r["usd_per_accelerator_hour"] for r in rows] == [2.99, 2.49]
    assert [(r.location, r.reason) for r in rejects] == [
        ("line 3", "as_of 2026-06-02 is in the future (today is 2026-06-01): a price must have been observed")
    ]


def test_the_plausible_price_range_is_inclusive_and_one_constant(tmp_path):
    low, high = PLAUSIBLE_USD_PER_ACCELERATOR_HOUR
    assert (low, high) == (0.05, 500.0)
    path = tmp_path / "prices.csv"
    path.write_text(
        HEADER + f"H100-SXM,on_demand,{low},Lambda,page,2026-05-18\nH100-SXM,spot,{high},Lambda,page,2026-05-18\n"
    )
    rows, rejects, _ = read_prices(path)
    assert not rejects and [r["usd_per_accelerator_hour"] for r in rows] == [low, high]


def test_unknown_accelerator_price_is_kept_and_flagged(tmp_path):
    path = tmp_path / "prices.csv"
    path.write_text(HEADER + "H100,on_demand,3.95,Modal,page,2026-05-07\n")
    rows, rejects, _ = read_prices(path)
    assert not rejects and rows[0]["accelerator_id"] is None and not rows[0]["accelerator_known"]


def test_prices_missing_columns_fail_naming_them(tmp_path):
    path = tmp_path / "prices.csv"
    path.write_text("accelerator,usd\nH100-SXM,2.99\n")
    with pytest.raises(IngestError, match=r"prices.csv: prices CSV lacks columns \['price_class'"):
        read_prices(path)


def test_bundled_profiles_parse():
    profiles, bounds, _ = read_profiles(DEFAULT_PROFILES)
    assert profiles and all(p["model_known"] for p in profiles)
    assert {b["measure"] for b in bounds} >= {"ttft_p95_ms", "tpot_p95_ms", "error_rate"}


def profile(**changes):
    entry = {
        "name": "p",
        "model": "llama3.1-8b",
        "slo": {"ttft_p95_ms": 1000, "tpot_p95_ms": 50},
        "delivered_fraction_prior": [0.5, 0.8],
    }
    entry.update(changes)
    return {"profiles": [entry]}


def test_profile_bounds_and_default_error_rate():
    rows, bounds = parse_profiles(profile(), "p.yaml")
    assert rows[0]["model_id"] == "llama-3.1-8b-instruct" and rows[0]["error_rate_max"] == 0.01
    assert sorted((b["measure"], b["bound"]) for b in bounds) == [
        ("error_rate", 0.01),
        ("tpot_p95_ms", 50.0),
        ("ttft_p95_ms", 1000.0),
    ]


@pytest.mark.parametrize(
    "changes,problem",
    [
        ({"slo": {"ttft_p97_ms": 5}}, "unknown slo key 'ttft_p97_ms'"),
        ({"slo": {"ttft_p95_ms": -5}}, "must be a positive number"),
        ({"delivered_fraction_prior": [0.9, 0.5]}, "lo <= hi"),
        ({"delivered_fraction_prior": 0.7}, "must be [lo, hi]"),
        ({"delivered_fraction_prior": [1e-300, 1e-300]}, "delivered_fraction_prior must be a number above 0.001"),
        (
            {"delivered_fraction_prior": [0.5, 1.6]},
            "delivered_fraction_prior must be a number above 0.001 and at most 1.5",
        ),
        ({"model": ""}, "has no model"),
        ({"colour": "red"}, "unknown keys ['colour']"),
    ],
)
def test_profile_errors_name_file_profile_and_key(changes, problem):
    with pytest.raises(IngestError, match="p.yaml: profile 'p'|p.yaml: profiles\\[0\\]") as error:
        parse_profiles(profile(**changes), "p.yaml")
    assert problem in str(error.value)


def test_profiles_yaml_round_trip(tmp_path):
    path = tmp_path / "profiles.yaml"
    path.write_text(yaml.safe_dump(profile(slo={"e2e_p99_ms": 3000, "error_rate_max": 0.05})))
    rows, bounds, file = read_profiles(path)
    assert rows[0]["error_rate_max"] == 0.05 and file.sha256
    assert ("e2e_p99_ms", 3000.0) in [(b["measure"], b["bound"]) for b in bounds]


# --- our volume and peaks, and what we run today (workload keys, baseline) ------------------------------------


def test_volume_keys_default_and_scale_a_traffic_log(tmp_path):
    path = tmp_path / "profiles.yaml"
    path.write_text(
        "profiles:\n  - name: chat\n    model: llama3.1-8b\n    slo: {ttft_p95_ms: 1000}\n"
        "    delivered_fraction_prior: [0.5, 0.8]\n    baseline: vllm-h100\n"
        "    workload:\n      traffic_log: logs/chat.csv\n      requests_per_day: 2000000\n"
    )
    (row,), _bounds, _file = read_profiles(path)
    assert row["traffic_log"] == str(tmp_path / "logs" / "chat.csv")
    assert (row["requests_per_day"], row["peak_window_s"], row["min_replicas"]) == (2_000_000.0, 60.0, 1)
    assert (row["mean_requests_per_s"], row["peak_to_mean"]) == (None, None)
    assert row["baseline_run_label"] == "vllm-h100"


def test_a_stated_volume_without_a_log():
    workload = {"mean_requests_per_s": 25, "peak_to_mean": 2.5, "peak_window_s": 30, "min_replicas": 2}
    (row,), _bounds = parse_profiles(profile(workload=workload), "p.yaml")
    assert (row["mean_requests_per_s"], row["peak_to_mean"], row["peak_window_s"], row["min_replicas"]) == (
        25.0,
        2.5,
        30.0,
        2,
    )
    assert row["requests_per_day"] is None and row["traffic_log"] is None and row["baseline_run_label"] is None
    (daily,), _bounds = parse_profiles(profile(workload={"requests_per_day": 86400, "peak_to_mean": 3}), "p.yaml")
    assert (daily["requests_per_day"], daily["peak_to_mean"]) == (86400.0, 3.0)


def test_arrival_cv_states_the_burstiness_of_arrivals_without_a_log():
    (bursty,), _bounds = parse_profiles(profile(workload={"arrival_cv": 4}), "p.yaml")
    (even,), _bounds = parse_profiles(profile(workload={"arrival_cv": 0}), "p.yaml")
    (unstated,), _bounds = parse_profiles(profile(workload={}), "p.yaml")
    assert (bursty["arrival_cv"], even["arrival_cv"], unstated["arrival_cv"]) == (4.0, 0.0, None)


@pytest.mark.parametrize(
    "changes,problem",
    [
        ({"workload": {"requests_per_day": 0}}, "workload.requests_per_day must be a positive number"),
        ({"workload": {"requests_per_day": "lots"}}, "workload.requests_per_day must be a positive number"),
        ({"workload": {"peak_window_s": -60}}, "workload.peak_window_s must be a number from 1"),
        (
            {"workload": {"peak_window_s": 90000}},
            "workload.peak_window_s must be a number from 1 to 86400 s (got 90000)",
        ),
        (
            {"workload": {"peak_window_s": 0.000001}},
            "workload.peak_window_s must be a number from 1 to 86400 s (got 1e-06)",
        ),
        ({"workload": {"min_replicas": 1.5}}, "workload.min_replicas must be a whole number"),
        ({"workload": {"min_replicas": -1}}, "workload.min_replicas must be a whole number"),
        ({"workload": {"min_replicas": True}}, "workload.min_replicas must be a whole number"),
        ({"workload": {"mean_requests_per_s": 25}}, "needs both a mean"),
        ({"workload": {"peak_to_mean": 2.5}}, "needs both a mean"),
        (
            {"workload": {"mean_requests_per_s": 25, "peak_to_mean": 0.5}},
            "workload.peak_to_mean must be a number from 1 to 1e+06 (got 0.5)",
        ),
        (
            {"workload": {"mean_requests_per_s": 25, "requests_per_day": 9, "peak_to_mean": 2}},
            "requests_per_day and workload.mean_requests_per_s both state the volume",
        ),
        (
            {"workload": {"traffic_log": "chat.csv", "peak_to_mean": 2.5}},
            "workload.peak_to_mean states the traffic without a log",
        ),
        (
            {"workload": {"traffic_log": "chat.csv", "arrival_cv": 2}},
            "workload.arrival_cv states the arrivals without a log, but workload.traffic_log is set",
        ),
        ({"workload": {"arrival_cv": -0.5}}, "workload.arrival_cv must be a number from 0 to 100 (got -0.5)"),
        ({"workload": {"peak_hour": 3}}, "unknown workload keys ['peak_hour']; allowed"),
        ({"baseline": ""}, "baseline must be the run label"),
        ({"baseline": ["a", "b"]}, "baseline must be the run label"),
    ],
)
def test_bad_volume_keys_name_file_profile_and_key(changes, problem):
    with pytest.raises(IngestError, match="p.yaml: profile 'p'") as error:
        parse_profiles(profile(**changes), "p.yaml")
    assert problem in str(error.value)
