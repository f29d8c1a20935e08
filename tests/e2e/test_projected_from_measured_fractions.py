"""End to end on the real data (the session's published warehouse): our two inference-perf sweeps of vLLM on
1x H100 and MLPerf v5.1's H100 Server result of llama3.1-8b share accelerator and model, so they measure the
batching gap, each as run. Here both sweeps get one run.yaml (tests/support/data.py make_dumps), so they are one
config (examples/dumps states max_num_seqs 128 and 192: two configs there), whose engine model carries our traffic;
that band on our traffic is the one every accelerator we never ran learns from. Each measured fraction is
recomputed here from the raw files (json, arithmetic: the single-sweep rule of docs/design.md), never with the
project's code; the calibrated one from its band in calibrated.delivered_at_slo and the MLPerf reference read from
the raw round table."""

import html
import json

import duckdb
import pytest

from tests.support.data import INFERENCE_PERF, V51_TABLE

PROFILE = "chat-8b-interactive"  # the bundled profile: llama3.1-8b, p95 TTFT <= 1000 ms, p95 TPOT <= 50 ms
BOUNDS = {"ttft": 1000.0, "tpot": 50.0}
ERROR_RATE_MAX = 0.01


def query(published, sql, *params):
    with duckdb.connect(str(published / "serving.duckdb"), read_only=True) as conn:
        cursor = conn.execute(sql, list(params))
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]


def h100_reference_per_accelerator():
    """MLPerf v5.1's highest closed llama3.1-8b Server tokens/s per accelerator on an H100-SXM-80GB."""
    rows = json.loads(V51_TABLE.read_text())
    return max(
        r["Performance_Result"] / (r["Nodes"] * r["a#"])
        for r in rows
        if r["Model"] == "llama3.1-8b"
        and r["Scenario"] == "Server"
        and r["Category"] == "closed"
        and r["Accelerator"] == "NVIDIA H100-SXM-80GB"
    )


def delivered_output_tokens(variant):
    """The sweep's delivered output tokens/s band at the profile's SLO, from its stage files: low = the last stage
    meeting every bound before the first failing one; high = the first bound crossing interpolated between them."""
    stages = []
    for path in (INFERENCE_PERF / variant / "results").glob("stage_*_lifecycle_metrics.json"):
        data = json.loads(path.read_text())
        ok, failed = data["successes"]["count"], data["failures"]["count"]
        latency = data["successes"]["latency"]
        stages.append(
            {
                "rate": data["load_summary"]["requested_rate"],
                "out": data["successes"]["throughput"]["output_tokens_per_sec"],
                "ttft": latency["time_to_first_token"]["p95"] * 1000,
                "tpot": latency["time_per_output_token"]["p95"] * 1000,
                "errors": failed / (ok + failed),
            }
        )
    stages.sort(key=lambda s: s["rate"])
    meets = [
        s["ttft"] <= BOUNDS["ttft"] and s["tpot"] <= BOUNDS["tpot"] and s["errors"] <= ERROR_RATE_MAX for s in stages
    ]
    first_fail = meets.index(False)
    last, fail = stages[first_fail - 1], stages[first_fail]
    shares = [(BOUNDS[m] - last[m]) / (fail[m] - last[m]) for m in BOUNDS if fail[m] > BOUNDS[m] and fail[m] > last[m]]
    share = max(0.0, min(1.0, min(shares)))
    return last["out"], last["out"] + share * (fail["out"] - last["out"])


@pytest.fixture(scope="module")
def recomputed():
    reference = h100_reference_per_accelerator()
    return {
        variant: tuple(tokens / 1 / reference for tokens in delivered_output_tokens(variant))  # 1 accelerator
        for variant in ("vllm", "vllm+batch_size")
    }


def calibrated_band(published):
    """The one config of the two sweeps, its band on our traffic: (config_key, low, high) fraction of the MLPerf
    reference read from the raw round table."""
    (band,) = query(
        published,
        "SELECT * FROM calibrated.delivered_at_slo WHERE profile = ? AND bills AND status = 'delivered'",
        PROFILE,
    )
    assert sorted(json.loads(band["run_labels"])) == ["vllm", "vllm+batch_size"] and band["accelerator_count"] == 1
    per_accel = h100_reference_per_accelerator()
    tokens = band["output_tokens_mean"]
    return (
        band["config_key"],
        band["delivered_requests_per_s_low"] * tokens / per_accel,
        band["delivered_requests_per_s_high"] * tokens / per_accel,
    )


def test_each_sweep_measures_its_fraction_of_the_h100_mlperf_reference(published, recomputed):
    rows = query(
        published, "SELECT * FROM analytics.measured_fractions WHERE profile = ? AND source = 'observed'", PROFILE
    )
    assert {r["run_labels"] for r in rows} == set(recomputed)
    config_key, _low, _high = calibrated_band(published)
    for row in rows:
        assert row["accelerator_id"] == "nvidia-h100-sxm-80gb" and row["model_id"] == "llama-3.1-8b-instruct"
        assert row["reference_tokens_per_s_per_accel"] == h100_reference_per_accelerator()
        low, high = recomputed[row["run_labels"]]
        assert (row["delivered_fraction_low"], row["delivered_fraction_high"]) == pytest.approx((low, high), rel=1e-9)
        # measured, kept, and not learnt from: their config's band on our traffic stands for them
        assert not row["learnt_from"]
        assert row["not_learnt_reason"] == (
            f"its config's band calibrated on our traffic ({config_key}) is learnt from instead: one config, one band"
        )
    # both above 1 (our ~200/64-token requests are lighter than CNN/DailyMail), both within (0.001, 1.5]
    assert 1 < recomputed["vllm"][0] < recomputed["vllm+batch_size"][1] <= 1.5


def test_the_configs_band_calibrated_on_our_traffic_is_the_one_learnt(published):
    config_key, low, high = calibrated_band(published)
    (row,) = query(
        published, "SELECT * FROM analytics.measured_fractions WHERE profile = ? AND source = 'calibrated'", PROFILE
    )
    assert (row["config_key"], row["run_labels"], row["learnt_from"]) == (config_key, "vllm + vllm+batch_size", True)
    assert (row["delivered_fraction_low"], row["delivered_fraction_high"]) == pytest.approx((low, high), rel=1e-9)
    assert 0.001 < low <= high <= 1.5


def test_every_accelerator_we_never_ran_is_projected_with_the_fraction_learnt(published):
    _config_key, low, high = calibrated_band(published)
    rows = query(published, "SELECT * FROM projected.delivered_at_slo WHERE profile = ?", PROFILE)
    assert rows and "nvidia-h100-sxm-80gb" not in {r["accelerator_id"] for r in rows}
    for row in rows:
        assert (row["delivered_fraction_low"], row["delivered_fraction_high"]) == pytest.approx((low, high), rel=1e-9)
        assert row["delivered_fraction_runs"] == 1
        per_system = row["reference_tokens_per_s_per_accel"] * row["accelerator_count"]
        assert row["delivered_output_tokens_per_s_low"] == pytest.approx(per_system * low, rel=1e-9)
        assert row["delivered_output_tokens_per_s_high"] == pytest.approx(per_system * high, rel=1e-9)
        assert row["delivered_fraction_basis"].startswith(
            "learnt from 1 band of ours (vllm + vllm+batch_size calibrated on our traffic on nvidia-h100-sxm-80gb "
            f"{low:.3f}-{high:.3f}; "
        )
    # a profile whose model we never ran keeps its prior, and says why
    (other,) = {
        r["delivered_fraction_basis"]
        for r in query(published, "SELECT * FROM projected.delivered_at_slo WHERE profile <> ?", PROFILE)
    }
    assert other.startswith("prior [0.5, 0.8] of the profile: no run of ours shares an accelerator and model")


def test_the_shortlist_the_capacity_plan_and_the_report_say_which_fraction_a_projected_band_applies(published):
    (basis,) = {
        r["delivered_fraction_basis"]
        for r in query(published, "SELECT * FROM projected.delivered_at_slo WHERE profile = ?", PROFILE)
    }
    for table in ("marts.config_shortlist", "marts.capacity_plan"):
        rows = query(published, f"SELECT evidence, delivered_fraction_basis FROM {table} WHERE profile = ?", PROFILE)
        assert {r["delivered_fraction_basis"] for r in rows if r["evidence"] == "projected"} == {basis}, table
        assert {r["delivered_fraction_basis"] for r in rows if r["evidence"] == "observed"} == {None}, table
    caveats = query(
        published, "SELECT caveats FROM marts.config_shortlist WHERE profile = ? AND evidence = 'projected'", PROFILE
    )
    assert all("MLPerf Server x the fraction our runs measured [" in r["caveats"] for r in caveats)
    assert all("the fraction learnt is above 1" in r["caveats"] for r in caveats)
    sources = query(
        published,
        "SELECT number, value, source FROM analytics.shortlist_sources WHERE profile = ? AND evidence = 'projected' "
        "AND number LIKE 'delivered fraction our %'",
        PROFILE,
    )
    assert sources and {r["source"] for r in sources} == {"calibrated.delivered_at_slo"}
    assert all(
        r["number"].startswith("delivered fraction our config vllm + vllm+batch_size calibrated") for r in sources
    )
    assert not query(
        published,
        "SELECT * FROM analytics.shortlist_sources WHERE profile = ? AND number LIKE 'delivered-fraction prior%'",
        PROFILE,
    )
    report = html.unescape((published / "report.html").read_text())
    assert f"their delivered band is the MLPerf reference x a delivered fraction, {basis}" in report
