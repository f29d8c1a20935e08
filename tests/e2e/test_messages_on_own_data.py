"""Messages on a team's own data name the real cause, on a real public dump and the real Azure trace: vLLM
benchmark_serving lines that state only median and p99 latencies under a p95 SLO (the files do not measure p95,
and which percentiles they have), a profile with a traffic log and requests_per_day (never "no volume stated"), and
the run's token mix from its load points (never "?"), a baseline naming a run.yaml label split in two, a misspelt
model ("did you mean"), and a profile mistake said alone before any step runs."""

import json
import re
from pathlib import Path

import duckdb
import pytest

from pipelines.cli import main
from pipelines.published_output import read_shortlist
from tests.support.data import DATA, REPO_ROOT, build_published

PUBLIC = "vllm-nerdalert-vllm-benchmark-graphs"
RESULTS = DATA / "dumps" / "public" / PUBLIC / "results.json"
TRACE = DATA / "traffic" / "azure-llm-inference-2023" / "AzureLLMInferenceTrace_conv.csv"
PROFILES = f"""\
profiles:
  - name: chat-8b-p95
    model: meta-llama/Llama-3.1-8B-Instruct
    slo: {{ttft_p95_ms: 1000, tpot_p95_ms: 50}}
    delivered_fraction_prior: [0.5, 0.8]
    workload: {{traffic_log: {TRACE}, requests_per_day: 1000000}}
    baseline: nerdalert-vllm
  - name: chat-typo
    model: meta-llama/Llama-3.1-8B-Instrct
    slo: {{ttft_p99_ms: 1000, tpot_p99_ms: 50}}
    delivered_fraction_prior: [0.5, 0.8]
"""


# Its own warehouse: the shared inputs plus a dumps folder and profiles of its own (the messages are about them).
@pytest.fixture(scope="module")
def own(tmp_path_factory):
    """The tests' published warehouse (tests/support/data.py) with one more dumps folder: the nerdalert results
    file (two servers in one file, so two runs) below a folder named `nerdalert-vllm` with the sidecar
    examples/public gives it; and the profile above."""
    root = tmp_path_factory.mktemp("own-data")
    folder = root / "own" / "nerdalert-vllm"
    folder.mkdir(parents=True)
    (folder / "run.yaml").write_text((REPO_ROOT / "examples" / "public" / PUBLIC / "run.yaml").read_text())
    (folder / "results").symlink_to(RESULTS.parent, target_is_directory=True)
    (root / "profiles.yaml").write_text(PROFILES)
    return build_published(root, ("--dumps", str(root / "own"), "--profiles", str(root / "profiles.yaml")))


def lines_of_results() -> list[dict]:
    return [json.loads(line) for line in RESULTS.read_text().splitlines() if line.strip()]


def observed_rows(warehouse: Path) -> list[dict]:
    with duckdb.connect(str(warehouse / "serving.duckdb"), read_only=True) as conn:
        cursor = conn.execute(
            "SELECT * FROM analytics.shortlist WHERE run_label LIKE 'nerdalert-vllm%' ORDER BY run_label"
        )
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]


def test_a_p95_slo_on_files_that_state_median_and_p99_says_they_do_not_measure_p95(own):
    stated = {
        f"{metric}_{'p50' if kind == 'median' else kind}_ms"
        for line in lines_of_results()
        for key in line
        if (found := re.fullmatch(r"(median|p\d+)_(ttft|tpot)_ms", key))
        for kind, metric in [found.groups()]
    }
    assert stated == {"ttft_p50_ms", "ttft_p99_ms", "tpot_p50_ms", "tpot_p99_ms"}  # the files' own keys
    rows = observed_rows(own)
    assert {r["run_label"] for r in rows} == {"nerdalert-vllm [framework=sgl]", "nerdalert-vllm [framework=vllm]"}
    for row in rows:
        assert "no load point meets the SLO" not in row["caveats"]
        assert (
            "the dumps do not measure what the SLO bounds: tpot_p95_ms (they have tpot_p50_ms, tpot_p99_ms: set the "
            "SLO on tpot_p99_ms, or measure p95) and ttft_p95_ms (they have ttft_p50_ms, ttft_p99_ms: set the SLO on "
            "ttft_p99_ms, or measure p95)" in row["caveats"]
        )
        assert "no price for this accelerator" not in row["caveats"]  # H100 is priced: the SLO is the cause


def test_the_token_mix_comes_from_the_load_points_never_a_question_mark(own):
    per_framework: dict[str, list[tuple[float, float]]] = {}
    for line in lines_of_results():
        completed = line["completed"]
        per_framework.setdefault(line["framework"], []).append(
            (line["total_input_tokens"] / completed, line["total_output_tokens"] / completed)
        )
    for row in observed_rows(own):
        means = per_framework[row["run_label"].split("framework=")[1].rstrip("]")]
        mean_in = round(sum(m[0] for m in means) / len(means))
        mean_out = round(sum(m[1] for m in means) / len(means))
        assert "?" not in row["caveats"]
        assert f"ours about {mean_in} input / {mean_out} output tokens per request" in row["caveats"]
        assert f"measured about {mean_in} / {mean_out}" in row["caveats"]  # against the trace's mix


def test_a_traffic_log_with_requests_per_day_is_a_stated_volume(own):
    _rows, _slo, notes, _quarantine = read_shortlist(own / "serving.duckdb")
    text = " ".join(notes["chat-8b-p95"])
    assert "no volume stated" not in text
    assert text.startswith("at our volume: ") or text.startswith("volume stated (traffic log ")
    html = (own / "report.html").read_text()
    block = html.split('<div class="decision" data-profile="chat-8b-p95">')[1].split('<div class="decision"')[0]
    assert "no volume stated" not in block.lower() and "no volume stated" in html  # the typo's profile states none


def test_a_baseline_naming_a_run_yaml_label_split_in_two_matches_both_parts_and_says_them(own):
    with duckdb.connect(str(own / "serving.duckdb"), read_only=True) as conn:
        said = conn.execute("SELECT DISTINCT baseline_note FROM marts.capacity_plan WHERE profile = 'chat-8b-p95'")
        baseline_notes = [note for (note,) in said.fetchall()]
        baselines = conn.execute(
            "SELECT DISTINCT run_label FROM marts.capacity_plan WHERE profile = 'chat-8b-p95' AND is_baseline"
        ).fetchall()
    parts = "its 2 parts nerdalert-vllm [framework=sgl], nerdalert-vllm [framework=vllm]"
    assert any(f"nerdalert-vllm ({parts})" in note for note in baseline_notes), baseline_notes
    assert baselines and all(label.startswith("nerdalert-vllm [framework=") for (label,) in baselines)


def test_a_run_whose_files_lack_p95_bills_on_its_calibrated_band_and_is_ours(own):
    """The files state median and p99 only: no band is measured under the p95 SLO; where the run's config's engine
    model predicts p95 and its band bills as delivered (calibrated.delivered_at_slo), the bill rests on that band
    (billed_basis calibrated, the measured band empty), and the decision recommends a run of ours, never "no run of
    ours serves this profile" with a projection."""
    with duckdb.connect(str(own / "serving.duckdb"), read_only=True) as conn:
        calibrated = conn.execute(
            "SELECT run_labels, delivered_requests_per_s_low, delivered_requests_per_s_high FROM "
            "calibrated.delivered_at_slo WHERE profile = 'chat-8b-p95' AND bills AND status = 'delivered'"
        ).fetchall()
        costs = conn.execute(
            "SELECT run_label, billed_basis, billed_basis_reason, measured_requests_per_s_low, "
            "billed_requests_per_s_low, billed_requests_per_s_high FROM cost.cost_per_request "
            "WHERE profile = 'chat-8b-p95' AND run_label LIKE 'nerdalert-vllm%'"
        ).fetchall()
        first = conn.execute(
            "SELECT run_label, evidence FROM marts.config_shortlist WHERE profile = 'chat-8b-p95' "
            "ORDER BY rank_in_profile LIMIT 1"
        ).fetchone()
    bands = {label: (low, high) for labels, low, high in calibrated for label in json.loads(labels)}
    billing = {label for label in bands if label.startswith("nerdalert-vllm")}
    assert billing and {c[0] for c in costs} == billing  # only a run whose config's band bills has a cost
    for label, basis, reason, measured, low, high in costs:
        assert (basis, measured, (low, high)) == ("calibrated", None, bands[label])
        assert ": the run's files do not measure what the SLO bounds: tpot_p95_ms (they have" in reason
    _rows, _slo, notes, _quarantine = read_shortlist(own / "serving.duckdb")
    text = " ".join(" ".join(notes["chat-8b-p95"]).split())
    # which run of ours is cheapest follows the engine models' bands (the nerdalert run or the vllm sweep); the
    # decision names the shortlist's first row, a run of ours, and never a projection
    assert first is not None and first[1] == "observed", first
    assert text.startswith(f"at our volume: {first[0]} on ") and "no run of ours serves" not in text
    assert "billed on the band calibrated on our traffic, " in text and "(band error +-" in text


def test_a_misspelt_model_says_did_you_mean_above_its_profile(own):
    _rows, _slo, notes, _quarantine = read_shortlist(own / "serving.duckdb")
    assert notes["chat-typo"][0] == (
        "warning: model meta-llama/Llama-3.1-8B-Instrct matches no run of ours and no MLPerf result: did you mean "
        "meta-llama/Llama-3.1-8B-Instruct?"
    )
    assert not any(line.startswith("warning: model") for line in notes["chat-8b-p95"])
    # the report says it too, in the profile's decision block
    html = (own / "report.html").read_text()
    block = html.split('<div class="decision" data-profile="chat-typo">')[1].split('<div class="decision"')[0]
    assert (
        '<p class="decision-line warning" data-line="warning">warning: model meta-llama/Llama-3.1-8B-Instrct ' in block
    )


def test_a_profile_mistake_is_the_runs_one_message_before_any_step(tmp_path, capsys):
    profiles = tmp_path / "profiles.yaml"
    profiles.write_text(PROFILES.replace("requests_per_day: 1000000", "requests_per_dya: 1000000"))
    warehouse = tmp_path / "warehouse"
    assert (
        main(["run", "--dumps", str(RESULTS.parent), "--profiles", str(profiles), "--warehouse", str(warehouse)]) == 1
    )
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "benchbill: run failed; the published serving file (if any) is unchanged."
    assert err[1].startswith(
        f"  {profiles}: profile 'chat-8b-p95': unknown workload keys ['requests_per_dya']; allowed"
    )
    assert err[2].startswith("What to do: correct the file") and len(err) == 3  # no step ran, nothing else said
    assert not warehouse.exists()
