"""llm-d-benchmark benchmark reports v0.1 and v0.2 on the real files (../shared/data/dumps/public/
llm-d-benchmark-praveingk-llmd-benchmarking-nxtgen, read in place through the run.yaml sidecars of examples/public):
one load point per stage, every number equal to a recomputation from the raw YAML (yaml + arithmetic here)."""

from pathlib import Path

import duckdb
import pytest
import yaml

from assets.formats.dumps import llmd_report, registry
from assets.inputs.files import read_local
from assets.runs.collect import collect
from tests.support.data import DATA, REPO_ROOT
from tests.support.observed import build, parse, points

FOLDER = DATA / "dumps" / "public" / "llm-d-benchmark-praveingk-llmd-benchmarking-nxtgen"
EXAMPLES = REPO_ROOT / "examples" / "public" / "llm-d-benchmark-praveingk-llmd-benchmarking-nxtgen"
V01 = sorted(FOLDER.rglob("benchmark_report,_stage_*.yaml"))
V02 = sorted(FOLDER.rglob("benchmark_report_v0.2,_stage_*.yaml"))
TO_MS = {"s": 1000.0, "ms": 1.0, "s/token": 1000.0, "ms/token": 1.0}  # the report's units, spelled out here


def raw(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def twin(v01: Path) -> Path:
    return v01.with_name(v01.name.replace("benchmark_report,", "benchmark_report_v0.2,"))


def expected(v01: Path) -> dict:
    """The load point a stage's v0.1 report states, recomputed from the raw keys."""
    doc = raw(v01)
    metrics, load = doc["metrics"], doc["scenario"]["load"]
    stage = load["metadata"]["stage"]
    req, lat = metrics["requests"], metrics["latency"]
    out = {
        "offered_rate_per_s": float(load["args"]["load"]["stages"][stage]["rate"]),
        "requests_sent": req["total"],
        "requests_failed": req["failures"],
        "requests_ok": req["total"] - req["failures"],  # total counts the failures
        "duration_s": metrics["time"]["duration"],
        "achieved_requests_per_s": metrics["throughput"]["requests_per_sec"],
        "sent_requests_per_s": req["total"] / metrics["time"]["duration"],
        "output_tokens_per_s": metrics["throughput"]["output_tokens_per_sec"],
        "input_tokens_mean": req["input_length"]["mean"],
        "output_tokens_mean": req["output_length"]["mean"],
    }
    for ours, theirs in (("ttft", "time_to_first_token"), ("tpot", "time_per_output_token")):
        for p in ("p50", "p90", "p99"):
            out[f"{ours}_{p}_ms"] = lat[theirs][p] * TO_MS[lat[theirs]["units"]]
    out["e2e_p50_ms"] = lat["request_latency"]["p50"] * TO_MS[lat["request_latency"]["units"]]
    return out


def test_the_folder_holds_34_stages_each_in_both_versions():
    assert len(V01) == len(V02) == 34
    assert all(twin(p).is_file() for p in V01)
    assert {raw(p)["version"] for p in V01} == {"0.1"} and {raw(p)["version"] for p in V02} == {"0.2"}


@pytest.mark.parametrize("path", [V01[0], V02[0]], ids=["v0.1", "v0.2"])
def test_each_version_is_recognised_by_exactly_one_reader(path):
    parsed = parse(path)
    assert parsed.kind == (llmd_report.REPORT_V01 if "v0.2" not in path.name else llmd_report.REPORT_V02)
    assert parsed.tool == "llm-d-benchmark"


def test_the_configs_and_logs_beside_the_reports_are_no_report():
    others = [p for p in FOLDER.rglob("*") if p.is_file() and "benchmark_report" not in p.name]
    assert len(others) == 15
    for path in others:
        parsed, _ = registry.parse_file(read_local(path)[0])
        assert parsed is None, path


@pytest.mark.parametrize("path", V01, ids=lambda p: f"{p.parts[-3]}/{p.name.split(',_')[1][:8]}")
def test_every_stage_equals_its_raw_keys_in_both_versions(path):
    want = expected(path)
    (v01,) = parse(path).measurements
    (v02,) = parse(twin(path)).measurements
    assert v01.load_kind == v02.load_kind == "rate"
    # the rate: v0.1 only in the embedded inference-perf stages, v0.2 as rate_qps
    assert (
        v01.offered_rate_per_s
        == want["offered_rate_per_s"]
        == raw(twin(path))["scenario"]["load"]["standardized"]["rate_qps"]
    )
    assert v02.offered_rate_per_s == want["offered_rate_per_s"]
    for column, value in want.items():
        if column != "offered_rate_per_s":
            assert v01.values[column] == pytest.approx(value, rel=1e-12), column
        if column not in ("duration_s", "sent_requests_per_s", "offered_rate_per_s"):  # v0.2 has no duration
            assert v02.values[column] == pytest.approx(value, rel=1e-12), column
    assert v02.values["duration_s"] is None and v02.values["sent_requests_per_s"] is None
    assert v01.merge_key == v02.merge_key == f"stage {raw(path)['scenario']['load']['metadata']['stage']}"


def test_the_achieved_rate_is_requests_per_sec_not_total_over_the_send_window():
    """H100 llm-d stage 1: 60 requests sent in 20.09 s (2.99 req/s sent); 2.130 completed per second."""
    (path,) = [p for p in V01 if "llmd-scaled" in str(p) and "_stage_1_" in p.name]
    (m,) = parse(path).measurements
    assert m.values["achieved_requests_per_s"] == pytest.approx(2.1301262249199344)
    assert m.values["sent_requests_per_s"] == pytest.approx(60 / 20.091448519844562)


@pytest.fixture(scope="module")
def observed(tmp_path_factory):
    batch = collect(EXAMPLES)
    path = tmp_path_factory.mktemp("llmd") / "llmd.duckdb"
    with duckdb.connect(str(path)) as conn:
        build(conn, batch)
        yield batch, conn


def test_one_load_point_per_stage_rate_and_the_repeated_rate_is_a_repeat(observed):
    """34 stages are 34 measurements; the H100 runs ran 15 req/s twice (stage 0, a warm-up that only a comment
    of the config names, and stage 3): one level of two repeats, so 7 load points of 8 stages."""
    batch, conn = observed
    assert len(batch.measurements) == 34
    by_label = {r["run_label"]: r["load_points"] for r in batch.runs}
    assert by_label == {
        "praveingk granite-4.1-8b k8s round-robin": 7,
        "praveingk granite-4.1-8b llm-d precise prefix": 7,
        "praveingk sarvam-30b baseline": 9,
        "praveingk sarvam-30b llm-d PD 4P+4D": 9,
    }
    rates = [p["offered_rate_per_s"] for p in points(conn, "praveingk granite-4.1-8b llm-d precise prefix")]
    assert rates == [3.0, 10.0, 15.0, 20.0, 22.0, 25.0, 30.0]
    fifteen = [
        m
        for m in batch.measurements
        if "granite-llmd-precise-prefix" in m["source"] and m["offered_rate_per_s"] == 15.0
    ]
    assert sorted(m["location"] for m in fifteen) == ["stage 0", "stage 3"]


def test_every_measurement_equals_the_raw_v01_report_and_failures_stay_failures(observed):
    batch, _ = observed
    for m in batch.measurements:
        source = Path(m["source"])
        assert "benchmark_report," in source.name  # v0.1 sorts first; its v0.2 twin merged into it
        want = expected(_shared(source))
        for column, value in want.items():
            assert m[column] == pytest.approx(value, rel=1e-12), (source.name, column)
    failed = sum(m["requests_failed"] for m in batch.measurements)
    assert failed == sum(raw(p)["metrics"]["requests"]["failures"] for p in V01) == 11


def _shared(source: Path) -> Path:
    """The shared file a measurement's source names (read through the examples' links)."""
    (match,) = [p for p in V01 if p.name == source.name and p.parent.name == source.parent.name]
    return match


def test_output_lengths_past_the_target_are_said_on_the_file(observed):
    batch, _ = observed
    notes = {f.source: f.note for f in batch.files if "stage_1_" in f.source}
    said = [n for n in notes.values() if n and "against a target of 1000" in n]
    assert said and all("re-tokenised" in n for n in said)
