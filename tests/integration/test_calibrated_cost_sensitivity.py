"""What the token mix and the bursts cost, on the published warehouse of the real sweeps and prices: at our mix the
cost is the one the calibrated.delivered_at_slo band implies at each newest price (recomputed here in Python from
the price table and the band), doubling prompts or answers costs more, and the report says it per top config; the
real Azure code trace, at its own bursts, is delivered slower than the same token mix at Poisson arrivals."""

import csv
import html
import json
import re
import statistics
from collections import defaultdict

import duckdb
import pytest

from assets.calibrate import sensitivity
from assets.calibrate.our_traffic import params_of, traffic_of
from tests.support.data import DATA
from tests.support.workloads import workload_row

AZURE_CODE = DATA / "traffic" / "azure-llm-inference-2023" / "AzureLLMInferenceTrace_code.csv"
BOUNDS = {"ttft_p95_ms": 1000.0, "tpot_p95_ms": 50.0, "error_rate": 0.01}


@pytest.fixture(scope="module")
def tables(published) -> dict[str, list[dict]]:
    with duckdb.connect(str(published / "serving.duckdb"), read_only=True) as conn:

        def rows(sql: str) -> list[dict]:
            cursor = conn.execute(sql)
            names = [d[0] for d in cursor.description]
            return [dict(zip(names, r)) for r in cursor.fetchall()]

        return {
            "sensitivity": rows("SELECT * FROM analytics.cost_sensitivity"),
            "delivered": rows("SELECT * FROM calibrated.delivered_at_slo WHERE bills"),
            "prices": rows("SELECT * FROM benchmark.accelerator_prices WHERE accelerator_id IS NOT NULL"),
            "undescribed": rows(
                "SELECT column_name FROM duckdb_columns() WHERE schema_name = 'analytics' "
                "AND table_name = 'cost_sensitivity' AND comment IS NULL"
            ),
        }


def newest_prices(prices: list[dict]) -> dict[tuple, float]:
    """(accelerator, class, provider) -> USD per accelerator-hour of the newest price (ties: the lowest)."""
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for p in prices:
        groups[(p["accelerator_id"], p["price_class"], p["price_provider"])].append(p)
    newest = {}
    for key, group in groups.items():
        latest = max(p["price_as_of"] for p in group)
        newest[key] = min(p["usd_per_accelerator_hour"] for p in group if p["price_as_of"] == latest)
    return newest


def test_our_mix_costs_what_the_calibrated_band_implies_at_every_newest_price(tables):
    newest = newest_prices(tables["prices"])
    assert tables["delivered"]  # the inference-perf sweeps (here one config: they share a run.yaml), billing
    for band in tables["delivered"]:
        ours = [
            r
            for r in tables["sensitivity"]
            if (r["profile"], r["config_key"], r["variant"]) == (band["profile"], band["config_key"], "our_mix")
        ]
        expected = {k: usd for k, usd in newest.items() if k[0] == band["accelerator_id"]}
        assert {(r["accelerator_id"], r["price_class"], r["price_provider"]) for r in ours} == set(expected)
        for r in ours:
            per_hour = (
                expected[(r["accelerator_id"], r["price_class"], r["price_provider"])] * band["accelerator_count"]
            )
            low, high = band["delivered_requests_per_s_low"], band["delivered_requests_per_s_high"]
            assert r["status"] == "priced" and r["rate_ratio"] == 1.0
            assert r["cost_per_request_usd_low"] == pytest.approx(per_hour / (high * 3600), rel=1e-12)
            assert r["cost_per_request_usd_high"] == pytest.approx(per_hour / (low * 3600), rel=1e-12)
            tokens = band["output_tokens_mean"]
            assert r["cost_per_million_output_tokens_usd_high"] == pytest.approx(per_hour / (low * tokens * 3600) * 1e6)
            assert r["band_rel_error"] == band["band_rel_error"] and 0 < r["prefill_share"] < 1


def test_doubling_prompts_or_answers_costs_more_per_request_on_the_real_sweeps(tables):
    cost = {
        (r["config_key"], r["price_class"], r["price_provider"], r["variant"]): r["cost_per_request_usd_high"]
        for r in tables["sensitivity"]
        if r["status"] == "priced"
    }
    ours = [k for k in cost if k[3] == "our_mix"]
    assert ours
    for key in ours:
        for doubled, halved in (("prompts_x2", "prompts_x0.5"), ("answers_x2", "answers_x0.5")):
            assert cost[key[:3] + (halved,)] <= cost[key] <= cost[key[:3] + (doubled,)], (key, doubled)
    poisson = [r for r in tables["sensitivity"] if r["variant"] == "poisson_arrivals"]
    assert {r["status"] for r in poisson} == {"same_arrivals"}  # the bundled profile states no bursts
    assert tables["undescribed"] == []


def test_the_report_says_what_the_mix_and_the_bursts_cost_per_top_config(published, tables):
    text = html.unescape(re.sub(r"<[^>]+>", " ", (published / "report.html").read_text()))
    labels = sorted({label for r in tables["delivered"] for label in json.loads(r["run_labels"])})
    for label in labels:
        sentence = re.search(rf"{re.escape(label)} on 1x nvidia-h100-sxm-80gb: if prompts double: [^.]*\.[^.]*\.", text)
        assert sentence, label
        assert "per request" in sentence.group(0) and "bursts cost nothing extra" in sentence.group(0)
        assert "held-out error: median" in sentence.group(0)


def test_the_real_code_traces_bursts_are_delivered_slower_than_poisson_arrivals_of_the_same_mix(published):
    with duckdb.connect(str(published / "serving.duckdb"), read_only=True) as conn:
        model = conn.execute("SELECT * FROM calibrated.engine_models WHERE status = 'fitted'").pl().row(0, named=True)
    traffic = traffic_of(workload_row(traffic_log=str(AZURE_CODE), inputs=None, outputs=None, window_s=60.0))
    found = {v.variant: v for v in sensitivity.variants(params_of(model), traffic, BOUNDS)}
    with AZURE_CODE.open(newline="") as handle:
        inputs = [int(r["ContextTokens"]) for r in csv.DictReader(handle)]
    poisson = found[sensitivity.POISSON]
    assert poisson.interarrival_cv == 1.0 and poisson.input_tokens_mean == pytest.approx(statistics.fmean(inputs))
    assert found["our_mix"].interarrival_cv > 5  # the log's own bursts (CV about 13)
    assert poisson.rate_ratio > 1.0
