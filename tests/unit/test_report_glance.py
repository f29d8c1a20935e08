"""The report's decision at a glance: one headline per profile (config, replicas, monthly bill band, the evidence class
of the band it bills on and that band's error), the alternatives with the recommended one marked, their bands beside
the MLPerf reference; each shortlist caveat written once under its table; capacity lines that coincide told apart;
no absolute machine path in the page."""

import re
from pathlib import Path

from assets.report.decision import Decision, decide
from assets.report.decision_blocks import capacity_chart
from assets.report.decision_glance import alternatives, alternatives_chart, band_error_text, glance, headline
from assets.report.evidence_marks import billed_evidence
from assets.report.profile_sections import _shortlist_table
from assets.report.report_paths import shown_path, without_absolute_paths


def plan_row(config, run_label, rank, replicas, billed, basis="measured", usd_per_hour=1.3, **extra):
    """A capacity plan row of one config on 1 accelerator, merged with its shortlist row's columns."""
    return {
        "profile": "chat",
        "rank_in_profile": rank,
        "config_key": config,
        "evidence": "projected" if basis == "projected" else "observed",
        "run_label": run_label,
        "accelerator_id": "nvidia-h100-sxm-80gb",
        "accelerator_count": 1,
        "price_class": "reserved",
        "price_provider": "SemiAnalysis",
        "usd_per_accelerator_hour": usd_per_hour,
        "billed_basis": basis,
        "billed_requests_per_s_low": billed,
        "billed_requests_per_s_high": billed * 1.25,
        "billed_output_tokens_per_s_low": billed * 200,
        "billed_output_tokens_per_s_high": billed * 250,
        "mlperf_server_tokens_per_s_per_accel": 5103.99,
        "calibrated_band_rel_error": 0.165 if basis == "calibrated" else None,
        "calibrated_heldout_rel_error_median": 0.017 if basis == "calibrated" else None,
        "calibrated_heldout_rel_error_worst": 0.47 if basis == "calibrated" else None,
        "replicas_low": replicas - 3,
        "replicas_high": replicas,
        "monthly_usd_low": (replicas - 3) * usd_per_hour * 730,
        "monthly_usd_high": replicas * usd_per_hour * 730,
        "autoscaled_monthly_usd_low": None,
        "autoscaled_monthly_usd_high": None,
        "cost_per_request_usd_low": usd_per_hour / (billed * 1.25 * 3600),
        "cost_per_request_usd_high": usd_per_hour / (billed * 3600),
        **extra,
    }


CALIBRATED = plan_row("run-batched", "vllm+batch_size", 1, 12, 18.73, "calibrated")
MEASURED = plan_row("run-today", "vllm", 2, 14, 16.15)
PROJECTED = plan_row("mlperf:b200", None, 3, 2, 205.4, "projected", usd_per_hour=2.0)
PROFILE = {"profile": "chat", "traffic_log": None, "peak_to_mean": None}


def test_the_headline_says_config_replicas_monthly_band_evidence_class_and_the_bands_error():
    decision = decide("chat", [CALIBRATED, MEASURED, PROJECTED], [])
    box = headline(decision, PROFILE)
    text = re.sub(r"<[^>]+>", "", box)
    assert text.startswith("Recommended: vllm+batch_size on 1x nvidia-h100-sxm-80gb, 9 to 12 replicas, ")
    assert "8,541 to 11,388 USD a month" in text
    assert 'data-evidence="calibrated"' in box and ">calibrated</span> billed on the band calibrated on our" in box
    assert "band error +-16.5%; engine model held-out error median 1.7%, worst 47%" in text
    assert f'data-monthly-usd-high="{CALIBRATED["monthly_usd_high"]!r}"' in box and 'data-replicas-low="9"' in box


def test_a_band_measured_as_run_or_projected_says_how_sure_it_is_in_its_own_terms():
    assert band_error_text(MEASURED) == "measured as run: no model error"
    # 205.4 to 256.75 requests/s: 11% either side of its middle
    assert band_error_text(PROJECTED) == "band +-11%: MLPerf x a delivered fraction, not measured"
    assert [billed_evidence(r) for r in (CALIBRATED, MEASURED, PROJECTED)] == ["calibrated", "observed", "projected"]


def test_without_a_bill_the_headline_says_why_and_when_every_run_misses_it_recommends_nothing():
    assert "no volume stated, so no monthly bill" in headline(Decision("chat"), PROFILE)
    missed = Decision("chat", {**PROJECTED, "rank_in_profile": 1}, missed_at_lightest=["vllm"])
    assert "No config recommended (every run of ours misses the SLO at its lightest load)" in headline(missed, PROFILE)


def test_the_alternatives_follow_the_ranking_with_the_recommended_one_marked_and_drawn_beside_mlperf():
    decision = decide("chat", [PROJECTED, MEASURED, CALIBRATED], [])
    rows = alternatives(decision, [])
    assert [r["rank_in_profile"] for r in rows] == [1, 2, 3]
    page = glance(decision, PROFILE, [])
    assert page.count('class="alternative recommended"') == 1 and page.count(">recommended</span>") == 1
    assert re.findall(r'data-rank="(\d+)"', page) == ["1", "2", "3"]
    chart = alternatives_chart(decision, rows)
    assert re.findall(r'class="reference"[^>]*data-value="([^"]+)"', chart) == ["5103.99"] * 3
    bands = re.findall(r'class="delivered"[^>]*data-low="([^"]+)" data-high="([^"]+)"', chart)
    assert [(float(lo), float(hi)) for lo, hi in bands][0] == (18.73 * 200, 18.73 * 250)  # per accelerator
    assert len(re.findall(r'class="cost"', chart)) == 3


def test_each_shortlist_caveat_is_written_once_under_the_table_and_marked_on_its_rows():
    shared = "precision differs: MLPerf fp8, ours bf16"
    rows = [
        {
            **plan_row(f"run-{i}", f"run{i}", i, 3, 10.0),
            "caveats": f"{shared}; token mix differs {i}" if i < 3 else shared,
            "quality_status": "not_required",
            "measured_requests_per_s_low": None,
            "measured_requests_per_s_high": None,
        }
        for i in (1, 2, 3)
    ]
    table = _shortlist_table(rows)
    assert table.count(shared) == 1
    assert re.findall(r'<td class="caveat-marks">([^<]*)</td>', table) == ["1,2", "1,3", "1"]
    assert re.findall(r'<li value="(\d)">([^<]*)</li>', table) == [
        ("1", shared),
        ("2", "token mix differs 1"),
        ("3", "token mix differs 2"),
    ]


def test_capacity_lines_that_coincide_are_drawn_apart_and_each_says_the_evidence_class_it_bills_on():
    decision = decide("chat", [CALIBRATED, MEASURED, PROJECTED], [])
    windows = [{"window_start_s": 60.0 * i, "scaled_rate_per_s": 150.0 + i, "requests": 100} for i in range(5)]
    svg = capacity_chart(decision, windows)
    lines = re.findall(r'<line class="capacity"([^>]*)><title>([^<]*)</title>', svg)
    assert len(lines) == 3
    (first, first_label), (second, second_label), (third, third_label) = lines
    # 12 x 18.73 = 224.8 and 14 x 16.15 = 226.1 requests/s: within 3 px, so the second is dotted and says so
    assert "stroke-dasharray" not in first and 'stroke-dasharray="2 3"' in second
    assert second_label.endswith("(observed as run); dotted: coincides with vllm+batch_size")
    assert first_label.endswith("= 224.8 requests/s (calibrated on our traffic)")
    assert 'stroke-dasharray="6 4"' in third and third_label.endswith("(projected from MLPerf)")


def test_an_absolute_path_is_written_relative_to_the_warehouse_or_as_its_file_name():
    roots = [Path("/srv/warehouse"), Path("/home/me/benchbill")]
    text = (
        "read /srv/warehouse/serving.duckdb, /home/me/benchbill/examples/dumps/vllm/a.json and "
        "(/data/shared/traffic/trace.csv); 12 requests/s at 14px/1.45, see https://mlcommons.org/a/b or ./x/y"
    )
    assert without_absolute_paths(text, roots) == (
        "read serving.duckdb, examples/dumps/vllm/a.json and (trace.csv); 12 requests/s at 14px/1.45, see "
        "https://mlcommons.org/a/b or ./x/y"
    )
    assert shown_path("/tmp/elsewhere/prices.csv", roots) == "prices.csv"
