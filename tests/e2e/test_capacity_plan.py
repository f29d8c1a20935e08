"""End to end through `benchbill run`: the capacity plan on the real Azure conversation trace scaled to a stated
daily volume, the worked case's two real vLLM sweeps and the bundled prices. Every column of one capacity row,
the saving against the baseline and a measure-next row are recomputed here from the raw files (csv, datetime,
math), never with the project's code."""

import csv
import datetime
import json
import math

import duckdb
import pytest

from assets.core.paths import DEFAULT_PRICES
from pipelines.cli import main
from schemas.marts.capacity_plan import CapacityPlan
from tests.support.data import DATA, V51_TABLE, make_dumps

TRACE = DATA / "traffic" / "azure-llm-inference-2023" / "AzureLLMInferenceTrace_conv.csv"
REQUESTS_PER_DAY = 20_000_000
WINDOW_S = 60
MONTH_H = 730
PROFILES = f"""\
profiles:
  - name: chat-8b
    model: llama3.1-8b
    slo: {{ttft_p95_ms: 1000, tpot_p95_ms: 50}}
    delivered_fraction_prior: [0.5, 0.8]
    baseline: vllm
    workload:
      traffic_log: {TRACE}
      requests_per_day: {REQUESTS_PER_DAY}
  - name: chat-8b-slow-start
    model: llama3.1-8b
    slo: {{ttft_p95_ms: 3000, tpot_p95_ms: 50}}
    delivered_fraction_prior: [0.5, 0.8]
    workload: {{output_tokens_mean: 211, mean_requests_per_s: 25, peak_to_mean: 2.5}}
"""


# Its own warehouse: two profiles of its own (the hand computations name them) over the v5.1 table alone.
@pytest.fixture(scope="module")
def serving(tmp_path_factory):
    root = tmp_path_factory.mktemp("capacity")
    dumps = make_dumps(root / "dumps")
    (root / "profiles.yaml").write_text(PROFILES)
    warehouse = root / "warehouse"
    args = ["run", "--mlperf", str(V51_TABLE), "--dumps", str(dumps), "--profiles", str(root / "profiles.yaml")]
    assert main([*args, "--warehouse", str(warehouse), "--allow-links-into", str(DATA)]) == 0
    return warehouse / "serving.duckdb"


def query(serving, sql, *params):
    with duckdb.connect(str(serving), read_only=True) as conn:
        cursor = conn.execute(sql, list(params))
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]


def trace_means_and_cv():
    """The trace's mean prompt and answer tokens and its inter-arrival CV (population), from the raw csv."""
    with open(TRACE, newline="") as handle:
        rows = list(csv.DictReader(handle))
    stamps = sorted(
        datetime.datetime.strptime(r["TIMESTAMP"][:26], "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=datetime.UTC)
        for r in rows
    )
    gaps = [(b - a).total_seconds() for a, b in zip(stamps, stamps[1:])]
    mean_gap = sum(gaps) / len(gaps)
    cv = math.sqrt(sum((g - mean_gap) ** 2 for g in gaps) / len(gaps)) / mean_gap
    return (
        sum(int(r["ContextTokens"]) for r in rows) / len(rows),
        sum(int(r["GeneratedTokens"]) for r in rows) / len(rows),
        cv,
    )


def scaled_windows():
    """The trace's 60 s windows from its first request (whole windows only), scaled to REQUESTS_PER_DAY."""
    ticks = []
    with open(TRACE, newline="") as handle:
        for row in csv.DictReader(handle):
            whole, _dot, fraction = row["TIMESTAMP"].partition(".")
            seconds = datetime.datetime.strptime(whole, "%Y-%m-%d %H:%M:%S").replace(tzinfo=datetime.UTC)
            ticks.append(int(seconds.timestamp()) * 10_000_000 + int(fraction.ljust(7, "0")))
    ticks.sort()
    offsets = [(t - ticks[0]) / 1e7 for t in ticks]
    counts = [0] * int(offsets[-1] // WINDOW_S)
    for t in offsets:
        if int(t // WINDOW_S) < len(counts):
            counts[int(t // WINDOW_S)] += 1
    rates = [c / WINDOW_S for c in counts]
    scale = REQUESTS_PER_DAY / 86400 / (sum(rates) / len(rates))
    return [r * scale for r in rates]


def lambda_h100_price():
    with open(DEFAULT_PRICES, newline="") as handle:
        (row,) = {
            (r["price_class"], r["provider"], r["usd_per_accelerator_hour"], r["as_of"]): r
            for r in csv.DictReader(handle)
            if r["accelerator"] == "H100-SXM" and r["provider"] == "Lambda"
        }.values()
    return float(row["usd_per_accelerator_hour"]), datetime.date.fromisoformat(row["as_of"])


def by_hand(rates, low, high, usd, count=1, min_replicas=1):
    mean, peak = sum(rates) / len(rates), max(rates)
    replicas_low, replicas_high = math.ceil(peak / high), math.ceil(peak / low)
    auto_low = sum(max(min_replicas, math.ceil(r / high)) for r in rates) / len(rates)
    auto_high = sum(max(min_replicas, math.ceil(r / low)) for r in rates) / len(rates)
    per_replica_month = count * usd * MONTH_H
    utilisations = (mean / (replicas_high * low), mean / (replicas_low * high))
    return {
        "mean_requests_per_s": mean,
        "peak_requests_per_s": peak,
        "replicas_low": replicas_low,
        "replicas_high": replicas_high,
        "monthly_usd_low": replicas_low * per_replica_month,
        "monthly_usd_high": replicas_high * per_replica_month,
        "utilisation_low": min(utilisations),
        "utilisation_high": max(utilisations),
        "effective_cost_per_request_usd_low": replicas_low * per_replica_month / (mean * MONTH_H * 3600),
        "effective_cost_per_request_usd_high": replicas_high * per_replica_month / (mean * MONTH_H * 3600),
        "autoscaled_replicas_mean_low": auto_low,
        "autoscaled_replicas_mean_high": auto_high,
        "autoscaled_monthly_usd_low": auto_low * per_replica_month,
        "autoscaled_monthly_usd_high": auto_high * per_replica_month,
    }


def test_every_column_of_a_capacity_row_equals_a_hand_computation_from_the_trace(serving):
    """The trace's prompts and answers are far longer than the sweep's and its arrivals bursty where the sweep's
    were evenly spaced: the bill rests on the config's band calibrated on the trace (docs/calibrated-model.md)."""
    (band,) = query(serving, "SELECT * FROM observed.delivered_at_slo WHERE profile = 'chat-8b' AND run_label = 'vllm'")
    measured = band["delivered_requests_per_s_low"], band["delivered_requests_per_s_high"]
    assert tuple(round(x, 2) for x in measured) == (91.36, 94.28)  # the worked case's band (docs/capacity-plan.md)
    (calibrated,) = query(
        serving, "SELECT * FROM calibrated.delivered_at_slo WHERE profile = 'chat-8b' AND run_labels LIKE '%\"vllm\"%'"
    )
    low, high = calibrated["delivered_requests_per_s_low"], calibrated["delivered_requests_per_s_high"]
    assert calibrated["bills"] and calibrated["status"] == "delivered" and high < measured[0]
    assert (round(low, 3), round(high, 3)) == (12.939, 18.452)  # the worked case's calibrated band
    ours_in, ours_out, ours_cv = trace_means_and_cv()
    assert band["arrival"] == "constant"  # CV 0
    reason = (
        f"calibrated on our traffic (band error +-{100 * calibrated['band_rel_error']:.1f}%; engine model held-out "
        f"error median {100 * calibrated['heldout_rel_error_median']:.0f}%, "
        f"worst {100 * calibrated['heldout_rel_error_worst']:.0f}%): the run's workload differs from ours: input "
        f"tokens differ: ours {ours_in:.0f}, measured {band['input_tokens_mean']:.0f} "
        f"({100 * (band['input_tokens_mean'] / ours_in - 1):+.0f}%); output tokens differ: ours {ours_out:.0f}, "
        f"measured {band['output_tokens_mean']:.0f} ({100 * (band['output_tokens_mean'] / ours_out - 1):+.0f}%); "
        f"arrival CV differs: ours {ours_cv:.2f}, measured 0.0 (constant)"
    )
    usd, as_of = lambda_h100_price()
    rates = scaled_windows()
    assert len(rates) == 58 and sum(rates) / len(rates) == pytest.approx(REQUESTS_PER_DAY / 86400)
    expected = {
        "profile": "chat-8b",
        "model_id": "llama-3.1-8b-instruct",
        "accelerator_id": "nvidia-h100-sxm-80gb",
        "accelerator_count": 1,
        "precision": "bf16",
        "runtime": "vLLM",
        "runtime_version": "0.11.0",
        "run_label": "vllm",
        "evidence": "observed",
        "config_key": band["run_id"],
        "price_class": "on_demand",
        "price_provider": "Lambda",
        "usd_per_accelerator_hour": usd,
        "price_as_of": as_of,
        "measured_requests_per_s_low": measured[0],  # the band measured as run, under its own name
        "measured_requests_per_s_high": measured[1],
        "billed_requests_per_s_low": low,  # the band billed: calibrated
        "billed_requests_per_s_high": high,
        "billed_basis": "calibrated",
        "billed_basis_reason": reason,
        "delivered_fraction_basis": None,  # observed, not projected
        # the config's calibrated band on the trace (calibrated.delivered_at_slo), beside the measured one
        "calibrated_requests_per_s_low": calibrated["delivered_requests_per_s_low"],
        "calibrated_requests_per_s_high": calibrated["delivered_requests_per_s_high"],
        "calibrated_band_rel_error": calibrated["band_rel_error"],
        "calibrated_heldout_rel_error_median": calibrated["heldout_rel_error_median"],
        "calibrated_heldout_rel_error_worst": calibrated["heldout_rel_error_worst"],
        "traffic_basis": f"traffic log {TRACE} scaled to {REQUESTS_PER_DAY} requests a day (58 windows of 60.0 s)",
        "peak_window_s": WINDOW_S,
        "min_replicas": 1,
        **by_hand(rates, low, high, usd),
        "baseline_run_label": "vllm",
        "baseline_monthly_usd_low": math.ceil(max(rates) / high) * usd * MONTH_H,
        "baseline_monthly_usd_high": math.ceil(max(rates) / low) * usd * MONTH_H,
        "monthly_saving_usd_low": 0,  # the baseline itself
        "monthly_saving_usd_high": 0,
        "autoscaled_monthly_saving_usd_low": 0,
        "autoscaled_monthly_saving_usd_high": 0,
        "baseline_note": "against vllm at the same price (on_demand, Lambda)",
        "is_baseline": True,  # its run label is the profile's baseline
        "quality_status": "not_required",  # the profile states no quality requirement
        "quality_evidence": "the profile states no quality requirement",
    }
    assert set(expected) == set(CapacityPlan.to_schema().columns)  # every column, none forgotten
    (row,) = query(
        serving,
        "SELECT * FROM marts.capacity_plan WHERE profile = 'chat-8b' AND run_label = 'vllm' "
        "AND price_provider = 'Lambda'",
    )
    for column, value in expected.items():
        assert row[column] == (pytest.approx(value, rel=1e-12) if isinstance(value, float) else value), column
    # the figures the worked example of docs/capacity-plan.md states
    assert (round(row["mean_requests_per_s"], 2), round(row["peak_requests_per_s"], 2)) == (231.48, 352.16)
    assert (row["replicas_low"], row["replicas_high"], row["monthly_usd_low"]) == (20, 28, pytest.approx(43654.0))


def test_the_saving_against_the_baseline_at_our_volume(serving):
    """Both runs bill on their config's band calibrated on the trace; they are one config (the same engine model),
    so one band: the move from vllm to vllm+batch_size changes the bill by minus to plus the band's width."""
    rates = scaled_windows()
    peak = max(rates)
    bands = {}
    for r in query(serving, "SELECT * FROM calibrated.delivered_at_slo WHERE profile = 'chat-8b' AND bills"):
        for label in r["run_labels"].strip("[]").replace('"', "").split(","):
            bands[label.strip()] = (r["delivered_requests_per_s_low"], r["delivered_requests_per_s_high"])
    assert bands["vllm"] == bands["vllm+batch_size"]
    usd, _as_of = lambda_h100_price()
    (row,) = query(
        serving,
        "SELECT * FROM analytics.capacity_plan WHERE profile = 'chat-8b' AND run_label = 'vllm+batch_size' "
        "AND price_provider = 'Lambda'",
    )
    baseline = [math.ceil(peak / bands["vllm"][1]) * usd * MONTH_H, math.ceil(peak / bands["vllm"][0]) * usd * MONTH_H]
    candidate = [math.ceil(peak / b) * usd * MONTH_H for b in reversed(bands["vllm+batch_size"])]
    assert row["monthly_saving_usd_low"] == pytest.approx(baseline[0] - candidate[1])
    assert row["monthly_saving_usd_high"] == pytest.approx(baseline[1] - candidate[0])
    assert row["monthly_saving_usd_low"] == pytest.approx(-row["monthly_saving_usd_high"]) and baseline[0] < baseline[1]
    ours, theirs = by_hand(rates, *bands["vllm+batch_size"], usd), by_hand(rates, *bands["vllm"], usd)
    assert row["autoscaled_monthly_saving_usd_low"] == pytest.approx(
        theirs["autoscaled_monthly_usd_low"] - ours["autoscaled_monthly_usd_high"]
    )
    assert row["autoscaled_monthly_saving_usd_high"] == pytest.approx(
        theirs["autoscaled_monthly_usd_high"] - ours["autoscaled_monthly_usd_low"]
    )
    (shortlisted,) = query(
        serving,
        "SELECT * FROM marts.config_shortlist WHERE profile = 'chat-8b' AND run_label = 'vllm+batch_size' "
        "AND price_provider = 'Lambda'",
    )
    assert shortlisted["baseline_run_label"] == "vllm"
    assert shortlisted["monthly_saving_usd_low"] == pytest.approx(row["monthly_saving_usd_low"])
    assert shortlisted["billed_basis"] == "calibrated"
    assert shortlisted["cost_per_request_usd_high"] == pytest.approx(usd / (bands["vllm+batch_size"][0] * 3600))


def test_a_sweep_sparse_near_a_loose_slo_asks_for_the_loads_between(serving):
    """At p95 TTFT <= 3000 ms the SLO falls between the sweep's 92.19 and 122.59 req/s points, far apart: the
    band is wide and measure_next asks for three loads evenly spaced between them."""
    (band,) = query(
        serving, "SELECT * FROM observed.delivered_at_slo WHERE profile = 'chat-8b-slow-start' AND run_label = 'vllm'"
    )
    rows = query(
        serving,
        "SELECT * FROM analytics.measure_next WHERE profile = 'chat-8b-slow-start' AND config_key = ?",
        band["run_id"],
    )
    (row,) = rows
    last, failing = band["low_load_value"], band["failing_load_value"]
    assert row["kind"] == "sparse_near_slo"
    assert row["band_width_fraction"] == pytest.approx(
        band["delivered_requests_per_s_high"] / band["delivered_requests_per_s_low"] - 1
    )
    assert row["band_width_fraction"] > 0.10
    assert (row["last_meeting_load"], row["first_failing_load"]) == (last, failing)
    assert row["loads_to_add"] == ", ".join(str(round(last + k * (failing - last) / 4, 2)) for k in (1, 2, 3))
    assert row["what_to_measure"].startswith(f"add loads {row['loads_to_add']} requests/s to vllm")


def test_projected_configs_that_may_beat_the_h100_on_our_trace_are_what_measure_next_names(serving):
    """Billed on its band calibrated on the trace (12.939 to 18.452 requests/s, not the 91.36 to 94.28 measured at
    the sweep's short prompts), the H100 needs 20 to 28 replicas; the projected 8-accelerator MLPerf systems whose
    effective cost per request may be below the best measured config's, at each price class (a best case that saves
    more than 0), are exactly the ones measure_next asks to run: checked from the capacity rows themselves."""
    plan = query(serving, "SELECT * FROM marts.capacity_plan WHERE profile = 'chat-8b'")
    best = {}
    for r in plan:
        if r["evidence"] == "observed":
            assert r["billed_basis"] == "calibrated"
            best[r["price_class"]] = min(best.get(r["price_class"], 1.0), r["effective_cost_per_request_usd_high"])
    beating = {
        (r["config_key"], r["price_class"])
        for r in plan
        if r["evidence"] == "projected"
        and r["price_class"] in best
        and r["effective_cost_per_request_usd_low"] < best[r["price_class"]]  # its best case saves more than 0
    }
    named = query(
        serving, "SELECT * FROM analytics.measure_next WHERE profile = 'chat-8b' AND kind = 'projected_may_beat'"
    )
    assert beating and {(r["config_key"], r["price_class"]) for r in named} == beating
    assert all(r["billed_basis"] == "projected" for r in plan if r["evidence"] == "projected")
    assert all(r["possible_monthly_saving_usd_high"] > 0 for r in named)


def mlperf_server_per_accelerator(accelerator):
    """MLPerf v5.1's highest closed llama3.1-8b Server tokens/s per accelerator on `accelerator` (as the raw round
    table names it), and that system's accelerator count."""
    rows = [
        r
        for r in json.loads(V51_TABLE.read_text())
        if r["Model"] == "llama3.1-8b"
        and r["Scenario"] == "Server"
        and r["Category"] == "closed"
        and r["Accelerator"] == accelerator
    ]
    best = max(rows, key=lambda r: r["Performance_Result"] / (r["Nodes"] * r["a#"]))
    return best["Performance_Result"] / (best["Nodes"] * best["a#"]), best["Nodes"] * best["a#"]


def test_the_projected_h200_band_rests_on_the_token_mix_every_other_row_prices(serving):
    """One workload per profile: the projected 8x H200 band = MLPerf's H200 tokens/s x the fraction learnt from our
    config's band calibrated on the trace, over the trace's mean output tokens (recomputed from the raw CSV): the
    same number of output tokens per request the calibrated replay and the cost rows use, never a second mix."""
    _ours_in, ours_out, _cv = trace_means_and_cv()
    (workload,) = query(serving, "SELECT * FROM requirement.workload WHERE profile = 'chat-8b'")
    assert (workload["source"], workload["output_tokens_kind"]) == ("log", "empirical_log")
    assert workload["output_tokens_mean"] == pytest.approx(ours_out, rel=1e-9)
    (band,) = query(
        serving,
        "SELECT * FROM calibrated.delivered_at_slo WHERE profile = 'chat-8b' AND bills AND status = 'delivered'",
    )
    assert band["output_tokens_mean"] == pytest.approx(ours_out, rel=1e-9)
    h100, _count = mlperf_server_per_accelerator("NVIDIA H100-SXM-80GB")
    fraction = (
        band["delivered_requests_per_s_low"] * ours_out / h100,
        band["delivered_requests_per_s_high"] * ours_out / h100,
    )
    h200, count = mlperf_server_per_accelerator("NVIDIA H200-SXM-141GB")
    (row,) = query(
        serving,
        "SELECT * FROM projected.delivered_at_slo WHERE profile = 'chat-8b' "
        "AND accelerator_id = 'nvidia-h200-sxm-141gb'",
    )
    assert (row["accelerator_count"], row["delivered_fraction_runs"]) == (count, 1)
    assert (row["delivered_fraction_low"], row["delivered_fraction_high"]) == pytest.approx(fraction, rel=1e-9)
    assert row["output_tokens_per_request"] == pytest.approx(ours_out, rel=1e-9)
    assert row["output_tokens_basis"].startswith("the workload's output mean (211.1 tokens; the log's 19,366 requests")
    expected = tuple(h200 * count * f / ours_out for f in fraction)
    assert (row["delivered_requests_per_s_low"], row["delivered_requests_per_s_high"]) == pytest.approx(
        expected, rel=1e-9
    )
    assert 150 < expected[0] < expected[1] < 400  # about 205-323 requests/s (the old 64-token mix said 678-1,067)


def test_a_band_billed_on_our_traffic_names_the_calibrated_row_it_is(serving):
    """Both runs bill on their config's band calibrated on the trace: analytics.shortlist_sources points each at its
    calibrated.delivered_at_slo row (a computed number: no file), low and high end equal to the billed band."""
    billed = query(
        serving,
        "SELECT DISTINCT run_label, billed_requests_per_s_low, billed_requests_per_s_high FROM marts.config_shortlist "
        "WHERE profile = 'chat-8b' AND billed_basis = 'calibrated'",
    )
    sources = query(
        serving,
        "SELECT * FROM analytics.shortlist_sources WHERE profile = 'chat-8b' "
        "AND number LIKE 'billed band calibrated on our traffic%'",
    )
    ends: dict[str, dict[str, float]] = {}
    for r in sources:
        assert (r["source"], r["number_evidence"], r["source_sha256"]) == (
            "calibrated.delivered_at_slo",
            "calibrated",
            None,
        )
        ends.setdefault(r["run_label"], {})[r["number"].rsplit(", ", 1)[1]] = r["value"]
    assert {r["run_label"] for r in billed} == {"vllm", "vllm+batch_size"}
    assert {(r["run_label"], r["billed_requests_per_s_low"], r["billed_requests_per_s_high"]) for r in billed} == {
        (label, e["low end"], e["high end"]) for label, e in ends.items()
    }
