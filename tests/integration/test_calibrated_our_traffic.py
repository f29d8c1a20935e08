"""Our traffic through the engine models of the real sweeps: the published warehouse's curves and bands (the two
inference-perf H100 sweeps, the bundled profiles) against the observed band of the same runs, and the real Azure code
trace (its own arrivals and lengths, recomputed here from the CSV) through the same config."""

import csv
import datetime
import json
import statistics

import duckdb
import pytest

from assets.calibrate.our_traffic import project_pair
from tests.support.data import DATA
from tests.support.workloads import mean_of, workload_row

AZURE_CODE = DATA / "traffic" / "azure-llm-inference-2023" / "AzureLLMInferenceTrace_code.csv"
BOUNDS = {"ttft_p95_ms": 1000.0, "tpot_p95_ms": 50.0, "error_rate": 0.01}


def test_every_config_of_the_profiles_model_has_a_curve_of_twenty_rates_to_saturation(published):
    with duckdb.connect(str(published / "serving.duckdb"), read_only=True) as conn:
        curves = conn.execute(
            "SELECT profile, run_labels, count(*), min(requests_per_s), max(requests_per_s), "
            "arg_max(achieved_requests_per_s / requests_per_s, point_index) "
            "FROM analytics.calibrated_curve GROUP BY ALL"
        ).fetchall()
        described = conn.execute(
            "SELECT count(*) FROM duckdb_columns() WHERE schema_name = 'analytics' AND table_name = 'calibrated_curve' "
            "AND comment IS NULL"
        ).fetchone()
    # the two sweeps share one run.yaml here, so one config fitted on both
    assert [(p, json.loads(labels)) for p, labels, *_ in curves] == [
        ("chat-8b-interactive", ["vllm", "vllm+batch_size"])
    ]
    for _profile, _labels, points, lowest, highest, heaviest_share in curves:
        assert points >= 20 and highest / lowest > 50 and heaviest_share < 0.9
    assert described == (0,)


def test_the_calibrated_band_of_each_real_sweep_meets_its_observed_band(published):
    """The model, fitted on the sweeps' own levels, run on the profile's token means (close to the sweeps' own
    200/62 tokens), puts the SLO rate where each sweep itself crossed it: the bands overlap."""
    with duckdb.connect(str(published / "serving.duckdb"), read_only=True) as conn:
        pairs = conn.execute(
            "SELECT o.run_label, c.status, c.bills, c.delivered_requests_per_s_low, c.delivered_requests_per_s_high, "
            "c.band_rel_error, c.heldout_rel_error_median, c.heldout_rel_error_worst, o.delivered_requests_per_s_low, "
            "o.delivered_requests_per_s_high FROM calibrated.delivered_at_slo AS c "
            "JOIN observed.delivered_at_slo AS o ON o.profile = c.profile "
            "AND list_contains(CAST(c.run_labels AS VARCHAR[]), o.run_label) "
            "WHERE c.profile = 'chat-8b-interactive'"
        ).fetchall()
    assert sorted(p[0] for p in pairs) == ["vllm", "vllm+batch_size"]
    for label, status, bills, low, high, error, median, worst, observed_low, observed_high in pairs:
        assert status == "delivered" and bills, label
        assert low == pytest.approx(high / (1 + error) ** 2) and error > 0 and median <= worst
        assert low <= observed_high and observed_low <= high, label


@pytest.fixture(scope="module")
def azure_code() -> tuple[float, float, float]:
    """The code trace's inter-arrival CV and token means, recomputed from the CSV with the csv module."""
    with AZURE_CODE.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    times = sorted(datetime.datetime.fromisoformat(r["TIMESTAMP"][:26]).timestamp() for r in rows)
    gaps = [b - a for a, b in zip(times, times[1:])]
    cv = statistics.pstdev(gaps) / statistics.fmean(gaps)
    return (
        cv,
        statistics.fmean(int(r["ContextTokens"]) for r in rows),
        statistics.fmean(int(r["GeneratedTokens"]) for r in rows),
    )


def test_the_real_code_traces_bursts_cost_most_of_what_its_token_mix_allows(published, azure_code):
    cv, input_mean, output_mean = azure_code
    with duckdb.connect(str(published / "serving.duckdb"), read_only=True) as conn:
        model = conn.execute("SELECT * FROM calibrated.engine_models WHERE status = 'fitted'").pl().row(0, named=True)
    log = workload_row(traffic_log=str(AZURE_CODE), inputs=None, outputs=None, window_s=60.0)
    logged, curve = project_pair(log, BOUNDS, model, [])
    means = workload_row(inputs=mean_of(input_mean), outputs=mean_of(output_mean), mean_requests_per_s=None)
    poisson, _ = project_pair(means, BOUNDS, model, [])
    assert logged["traffic_interarrival_cv"] == pytest.approx(cv, rel=0.01) and cv > 10
    assert logged["input_tokens_mean"] == pytest.approx(input_mean) and logged["output_tokens_mean"] == pytest.approx(
        output_mean
    )
    assert "the whole log (8,819 requests)" == logged["traffic_sample"] and len(curve) >= 20
    assert logged["status"] == poisson["status"] == "delivered"
    # the same token mix at Poisson arrivals is delivered at well over twice the rate the log's own bursts allow
    assert poisson["delivered_requests_per_s_low"] > 2 * logged["delivered_requests_per_s_high"]


def test_the_shortlist_carries_the_calibrated_band_beside_the_measured_one(published):
    with duckdb.connect(str(published / "serving.duckdb"), read_only=True) as conn:
        rows = conn.execute(
            "SELECT s.run_label, s.measured_requests_per_s_low, s.calibrated_requests_per_s_low, "
            "s.calibrated_requests_per_s_high, s.calibrated_heldout_rel_error_median, c.delivered_requests_per_s_low, "
            "c.delivered_requests_per_s_high, c.heldout_rel_error_median, o.delivered_requests_per_s_low "
            "FROM analytics.shortlist AS s JOIN calibrated.delivered_at_slo AS c ON c.profile = s.profile "
            "JOIN observed.delivered_at_slo AS o ON o.profile = s.profile AND o.run_label = s.run_label "
            "WHERE s.profile = 'chat-8b-interactive' AND s.evidence = 'observed'"
        ).fetchall()
    assert {r[0] for r in rows} == {"vllm", "vllm+batch_size"}
    for _label, measured, low, high, median, calibrated_low, calibrated_high, error, observed_low in rows:
        assert (low, high, median) == (calibrated_low, calibrated_high, error)
        assert measured == observed_low  # the costs still rest on the measured band
