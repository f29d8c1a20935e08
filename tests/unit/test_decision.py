"""The decision per profile (assets/report/decision.py): which config is recommended from the capacity plan, and
the sentences the report and the terminal print about its bill, the saving against the baseline and what to
measure next."""

from assets.report.decision import (
    bill_text,
    decide,
    measure_text,
    no_bill_text,
    profile_warnings,
    projected_text,
    saving_text,
)
from assets.report.decision_blocks import decision_block
from assets.report.terminal_shortlist import format_shortlist
from pipelines.published_output import decision_notes


def plan_row(config, evidence, run_label, usd_per_hour, replicas, delivered, provider="Lambda", **extra):
    """A marts.capacity_plan row of one config (1 accelerator) at one price; mean 23.15, peak 35.22 requests/s."""
    return {
        "profile": "chat",
        "config_key": config,
        "evidence": evidence,
        "run_label": run_label,
        "accelerator_id": "nvidia-h100-sxm-80gb",
        "accelerator_count": 1,
        "price_class": "on_demand",
        "price_provider": provider,
        "usd_per_accelerator_hour": usd_per_hour,
        "billed_requests_per_s_low": delivered,
        "billed_requests_per_s_high": delivered * 1.05,
        "measured_requests_per_s_low": delivered if evidence == "observed" else None,
        "measured_requests_per_s_high": delivered * 1.05 if evidence == "observed" else None,
        "billed_basis": "measured" if evidence == "observed" else "projected",
        "mean_requests_per_s": 23.15,
        "peak_requests_per_s": 35.22,
        "replicas_low": replicas,
        "replicas_high": replicas,
        "monthly_usd_low": replicas * usd_per_hour * 730,
        "monthly_usd_high": replicas * usd_per_hour * 730,
        "utilisation_low": 23.15 / (replicas * delivered * 1.05),
        "utilisation_high": 23.15 / (replicas * delivered),
        "effective_cost_per_request_usd_low": replicas * usd_per_hour / (23.15 * 3600),
        "effective_cost_per_request_usd_high": replicas * usd_per_hour / (23.15 * 3600),
        "autoscaled_monthly_usd_low": None,
        "autoscaled_monthly_usd_high": None,
        "baseline_run_label": "today",
        "monthly_saving_usd_low": None,
        "monthly_saving_usd_high": None,
        "traffic_basis": "stated",
        **extra,
    }


TODAY = plan_row(
    "run-today",
    "observed",
    "today",
    2.99,
    3,
    12.0,
    monthly_saving_usd_low=0.0,
    monthly_saving_usd_high=0.0,
    is_baseline=True,
)
# 1 replica at 2.99 USD/h = 2,182.70 USD a month against 3 x 2.99 x 730 = 6,548.10: saves 4,365.40
BATCHED = plan_row(
    "run-batched", "observed", "batched", 2.99, 1, 40.0, monthly_saving_usd_low=4365.4, monthly_saving_usd_high=4365.4
)
BATCHED_AWS = plan_row("run-batched", "observed", "batched", 12.29, 1, 40.0, provider="AWS")
PROJECTED = plan_row("mlperf:x", "projected", None, 1.0, 1, 500.0)  # cheaper, but not measured
# the capacity plan's one ranking (analytics.capacity_plan.rank_in_profile): our runs first, lowest bill first
RANKED = [
    {**BATCHED, "rank_in_profile": 1},
    {**TODAY, "rank_in_profile": 2},
    {**BATCHED_AWS, "rank_in_profile": 3},
    {**PROJECTED, "rank_in_profile": 4},
]


def test_the_recommendation_is_the_first_row_of_the_profiles_ranking():
    decision = decide("chat", [RANKED[3], RANKED[0], RANKED[2], RANKED[1]], [])
    assert decision.recommended is RANKED[0]
    assert [r["config_key"] for r in decision.top] == ["run-batched", "run-today", "mlperf:x"]
    assert decision.runner_up is RANKED[1]  # the next config, each at its first-ranked price


def test_a_projected_config_is_recommended_when_it_ranks_first():
    decision = decide("chat", [{**PROJECTED, "rank_in_profile": 1}], [])
    assert decision.recommended["config_key"] == "mlperf:x"
    assert "measure it before buying" in bill_text(PROJECTED)
    assert decide("chat", [{**TODAY, "monthly_usd_high": None, "rank_in_profile": 1}], []).recommended is None


def test_the_bill_in_words():
    assert bill_text(BATCHED) == (
        "batched on 1x nvidia-h100-sxm-80gb at on_demand Lambda 2.99 USD per accelerator-hour: 1 replica for our "
        "peak of 35.22 requests/s (mean 23.15), 2,183 USD a month, utilisation 55 to 58%, 0.0359 USD per 1,000 "
        "requests; billed on the band measured as run (40.00 to 42.00 requests/s)"
    )


CALIBRATED = {
    "calibrated_requests_per_s_low": 30.0,
    "calibrated_requests_per_s_high": 45.0,
    "calibrated_band_rel_error": 0.165,
    "calibrated_heldout_rel_error_median": 0.017,
    "calibrated_heldout_rel_error_worst": 0.47,
}


def test_the_bill_names_the_evidence_class_of_its_band_and_the_calibrated_band_with_its_own_error_first():
    assert bill_text({**BATCHED, **CALIBRATED}).endswith(
        "billed on the band measured as run (40.00 to 42.00 requests/s); calibrated on our traffic: 30.00 to 45.00 "
        "requests/s (band error +-16.5%; engine model held-out error median 1.7%, worst 47%)"
    )
    assert bill_text(PROJECTED).endswith(
        "billed on the band projected from MLPerf (500.0 to 525.0 requests/s, MLPerf x a delivered fraction)"
    )


def test_where_the_runs_workload_differs_from_ours_the_bill_rests_on_the_calibrated_band_and_says_its_error():
    """The band billed is named and shown with its own error first, and the band measured as run beside it, not
    billed: the terminal and the report quote the band the cost is priced on."""
    reason = (
        "calibrated on our traffic (band error +-16.5%; engine model held-out error median 2%, worst 47%): the run's "
        "workload differs from ours: input tokens differ: ours 1000, measured 200 (-80%)"
    )
    row = {
        **BATCHED,
        **CALIBRATED,
        "billed_requests_per_s_low": 30.0,
        "billed_requests_per_s_high": 45.0,
        "measured_requests_per_s_low": 110.8,
        "measured_requests_per_s_high": 111.4,
        "billed_basis": "calibrated",
        "billed_basis_reason": reason,
    }
    assert bill_text(row).endswith(
        "billed on the band calibrated on our traffic, 30.00 to 45.00 requests/s (band error +-16.5%; engine model "
        "held-out error median 1.7%, worst 47%), not the 110.8 to 111.4 requests/s measured as run: the run's "
        "workload differs from ours: input tokens differ: ours 1000, measured 200 (-80%)"
    )


def test_a_run_whose_files_lack_the_bounded_percentile_is_ours_billed_on_its_calibrated_band():
    """Dumps with p50/p99 but no p95 under a p95 SLO: the run bills on its calibrated band (cost.cost_per_request),
    so it ranks first as one of ours and the decision says why, never that no run of ours serves the profile."""
    reason = (
        "calibrated on our traffic (band error +-16.5%; engine model held-out error median 2%, worst 47%): the run's "
        "files do not measure what the SLO bounds: ttft_p95_ms (they have ttft_p50_ms, ttft_p99_ms: set the SLO on "
        "ttft_p99_ms, or measure p95): no band measured, the model predicts it"
    )
    ours = {
        **BATCHED,
        **CALIBRATED,
        "billed_requests_per_s_low": 26.7,
        "billed_requests_per_s_high": 31.3,
        "measured_requests_per_s_low": None,
        "measured_requests_per_s_high": None,
        "billed_basis": "calibrated",
        "billed_basis_reason": reason,
        "rank_in_profile": 1,
    }
    decision = decide("chat", [{**PROJECTED, "rank_in_profile": 2}, ours], [])
    assert decision.recommended is ours
    text = bill_text(ours)
    assert "no run of ours" not in text and "measured as run" not in text
    assert text.endswith(
        "billed on the band calibrated on our traffic, 26.70 to 31.30 requests/s (band error +-16.5%; engine model "
        "held-out error median 1.7%, worst 47%): the run's files do not measure what the SLO bounds: ttft_p95_ms (they "
        "have ttft_p50_ms, ttft_p99_ms: set the SLO on ttft_p99_ms, or measure p95): no band measured, the model "
        "predicts it"
    )


def test_the_saving_against_what_we_run_today_in_the_issues_words():
    assert saving_text(BATCHED) == (
        "moving from today to batched on 1x nvidia-h100-sxm-80gb saves 4,365 USD a month at our volume, "
        "on this evidence (observed)"
    )
    autoscaled = {**BATCHED, "autoscaled_monthly_saving_usd_low": 828.0, "autoscaled_monthly_saving_usd_high": 1091.0}
    assert "saves 4,365 USD a month (828 to 1,091 USD a month autoscaled) at our volume" in saving_text(autoscaled)
    more = {**BATCHED, "monthly_saving_usd_low": -2000.0, "monthly_saving_usd_high": -1000.0}
    assert "costs 1,000 to 2,000 USD a month more" in saving_text(more)
    mixed = {**BATCHED, "monthly_saving_usd_low": -500.0, "monthly_saving_usd_high": 1500.0}
    assert "changes the bill by -500 to 1,500 USD a month (negative: costs more)" in saving_text(mixed)
    assert (
        saving_text(TODAY) == "keep today: no config saves money at this volume (no other config serves this profile)"
    )
    assert saving_text({**BATCHED, "baseline_run_label": None}).startswith("no baseline stated")


def test_when_what_we_run_today_ranks_first_the_decision_keeps_it_and_says_what_the_next_best_costs():
    # a tie on the bill goes to the baseline (marts.config_shortlist ranks it first): no move that saves nothing
    tied = {**BATCHED, "monthly_saving_usd_low": 0.0, "monthly_saving_usd_high": 0.0}
    assert saving_text(TODAY, tied) == (
        "keep today: no config saves money at this volume; the next best, batched on 1x nvidia-h100-sxm-80gb, "
        "costs the same"
    )
    dearer = {**BATCHED, "monthly_saving_usd_low": -2000.0, "monthly_saving_usd_high": -1000.0}
    assert saving_text(TODAY, dearer).endswith(
        "the next best, batched on 1x nvidia-h100-sxm-80gb, costs 1,000 to 2,000 USD a month more"
    )


def test_where_a_top_config_is_projected_the_decision_says_which_fraction_its_band_applies():
    basis = "measured on 2 runs of ours (today on nvidia-h100-sxm-80gb 1.116-1.152, ...)"
    projected = {**PROJECTED, "accelerator_count": 8, "delivered_fraction_basis": basis}
    ranked = [{**BATCHED, "rank_in_profile": 1}, {**TODAY, "rank_in_profile": 2}]
    assert projected_text(decide("chat", ranked, []).top) is None
    with_projected = [*ranked, {**projected, "rank_in_profile": 3}]
    assert projected_text(decide("chat", with_projected, []).top) == (
        "top configs projected from MLPerf (8x nvidia-h100-sxm-80gb): their delivered band is the MLPerf reference x "
        f"a delivered fraction, {basis}"
    )


def test_what_to_measure_next_names_the_saving_and_the_mlperf_result():
    row = {
        "what_to_measure": "run 8 x nvidia-b200-sxm-180gb",
        "possible_monthly_saving_usd_low": -1200.0,
        "possible_monthly_saving_usd_high": 15000.0,
        "mlperf_result": "v5.1 closed NVIDIA B200 Server: 16,099 tokens/s",
    }
    assert measure_text(row) == (
        "run 8 x nvidia-b200-sxm-180gb; possible saving -1,200 to 15,000 USD a month "
        "(rests on MLPerf v5.1 closed NVIDIA B200 Server: 16,099 tokens/s)"
    )


def test_decision_lines_above_the_terminal_shortlist_fold_to_160_columns():
    shortlist = [
        {
            "profile": "chat",
            "config_key": "run-batched",
            "accelerator_id": "nvidia-h100-sxm-80gb",
            "accelerator_count": 1,
            "run_label": "batched",
            "evidence": "observed",
            "price_class": "on_demand",
            "price_provider": "Lambda",
            "usd_per_accelerator_hour": 2.99,
            "cost_per_request_usd_low": 2e-05,
            "cost_per_request_usd_high": 2.1e-05,
            "caveats": "",
        }
    ]
    notes = {"chat": [f"at our volume: {bill_text(BATCHED)}", saving_text(BATCHED)]}
    text = format_shortlist(shortlist, notes=notes, width=80)
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "  at our volume: batched on 1x nvidia-h100-sxm-80gb" in text
    assert " ".join(text.split()).count("saves 4,365 USD a month at our volume") == 1


def test_a_profile_without_a_bill_says_whether_it_states_no_volume_or_no_config_is_billed_at_it():
    assert no_bill_text({"profile": "chat"}).startswith("no volume stated, so no monthly bill: set")
    logged = no_bill_text({"traffic_log": "/logs/conv.csv", "requests_per_day": 1_000_000.0})
    assert logged.startswith("volume stated (traffic log /logs/conv.csv scaled to 1,000,000 requests a day), but no")
    stated = no_bill_text({"mean_requests_per_s": 5.0, "peak_to_mean": 2.5})
    assert stated.startswith("volume stated (mean 5.000 requests/s x peak_to_mean 2.5), but no config has a monthly")


def observed_row(run_label, feasible, unmeasured_bounds=None):
    """An analytics.delivered_at_slo row of one run of ours."""
    return {
        "profile": "chat",
        "evidence": "observed",
        "run_label": run_label,
        "feasible": feasible,
        "unmeasured_bounds": unmeasured_bounds,
    }


def test_where_every_run_of_ours_misses_even_at_its_lightest_load_no_projection_is_recommended_without_saying_so():
    """A 1 ms TTFT profile: every run of ours misses even at its lightest load, so the cheapest projection is named
    after that is said, and not as a recommendation."""
    profile = {"profile": "chat", "peak_to_mean": 2.0, "mean_requests_per_s": 5.0}
    capacity = [{**PROJECTED, "rank_in_profile": 1}]
    missed = [observed_row("today", False), observed_row("batched", False)]
    decision = decide("chat", capacity, [], missed)
    assert decision.missed_at_lightest == ["batched", "today"] and decision.projection_first
    lines = decision_notes([profile], capacity, [], missed)["chat"]
    assert lines[0] == (
        "no config recommended: every config of ours measured for this profile (batched, today) misses the SLO even "
        "at its lightest load, so a projection from MLPerf is unlikely to do better (check the SLO's bounds and "
        "units, or measure lighter loads)"
    )
    assert lines[1].startswith("the cheapest projection, not recommended: 1x nvidia-h100-sxm-80gb (projected from")
    block = decision_block(decision, profile, [], ["warning: profiles.yaml: profile 'chat': slo.ttft_p95_ms = 1 ms"])
    order = ("warning", "missed-at-lightest-load", "cheapest-projection")
    said = [block.index(f'data-line="{line}"') for line in order]
    assert said == sorted(said) and 'data-line="recommended"' not in block  # in this order, and no recommendation
    assert not any(line.startswith("at our volume") for line in lines)
    # a run that meets the SLO somewhere, or whose files lack the bounded percentile, has not missed it
    for other in (observed_row("batched", True), observed_row("batched", False, "ttft_p95_ms")):
        assert decide("chat", capacity, [], [missed[0], other]).missed_at_lightest == []
        assert decision_notes([profile], capacity, [], [missed[0], other])["chat"][0].startswith("at our volume: ")
    assert decide("chat", capacity, [], []).missed_at_lightest == []  # nothing of ours ran: nothing missed


def test_the_profiles_warnings_reach_the_report_as_the_terminal_prints_them():
    """A TTFT bound of 1 ms (seconds meant?) and a model nothing serves: the warnings the terminal prints, for the
    report's decision block too."""
    profile = {"profile": "chat", "model_id": None, "model_raw": "Llama-3.1-8B-Instrukt", "source": "profiles.yaml"}
    bounds = [{"profile": "chat", "measure": "ttft_p95_ms", "bound": 1.0}]
    warnings = profile_warnings(profile, bounds, {"Llama-3.1-8B-Instruct": "llama-3.1-8b-instruct"})
    assert warnings == [
        "warning: model Llama-3.1-8B-Instrukt matches no run of ours and no MLPerf result: did you mean "
        "Llama-3.1-8B-Instruct?",
        "warning: profiles.yaml: profile 'chat': slo.ttft_p95_ms = 1 ms is under 10 ms: seconds meant? "
        "(1 s is 1000 ms)",
    ]
    served = {"Llama-3.1-8B-Instruct": "llama-3.1-8b-instruct"}
    assert profile_warnings({**profile, "model_key": "llama-3.1-8b-instruct"}, [], served) == []
