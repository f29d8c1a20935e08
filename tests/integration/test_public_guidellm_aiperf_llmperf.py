"""GuideLLM, AIPerf and LLMPerf outputs that teams committed to public repositories (../shared/data/dumps/public,
each folder's SOURCE.md), read in place. Every number the readers give is compared with a recomputation from
the raw file made here with plain json/csv and numpy (GuideLLM's percentiles are numpy's `inverted_cdf`,
AIPerf's and LLMPerf's (pandas) numpy's `linear`)."""

import csv
import json
from pathlib import Path, PurePath

import numpy as np
import pytest

from assets.formats.dumps import aiperf, guidellm, llmperf, registry
from assets.formats.dumps.exchange import Parsed
from assets.inputs.files import read_local
from tests.support.data import DATA
from tests.support.records import scan_frame

PUBLIC = DATA / "dumps" / "public"
RSEVILLA = PUBLIC / "guidellm-rsevilla87-guidellm-results-parser" / "example_output" / "benchmarks.json"
STEVE = PUBLIC / "guidellm-thesteve0-local-llm-benchmark" / "results"
ANUD = PUBLIC / "aiperf-anud18-qwen36-vllm-aiperf-benchmark" / "results" / "nvfp4"
C16 = ANUD / "5090" / "agent" / "c16"
C1 = ANUD / "qwen3vl_ngrok" / "chatbot_flat" / "c1"
ROHAN = PUBLIC / "aiperf-rohan9446-mlx-inference-bench" / "artifacts" / "Qwen_Qwen3-0.6B-openai-chat-concurrency1"
JOHNSON = PUBLIC / "llmperf-johnsonafool-llmperf-test" / "result_outputs" / "gpt-4.1-nano_20260120_165625" / "raw_data"
LEVELS = (1, 10, 20, 30, 40, 50)
PERCENTILES = {"p50": 50, "p90": 90, "p95": 95, "p99": 99}


def read(path: Path, in_place: bool = True) -> Parsed:
    """What the registry makes of one file; `in_place`: handed its place on disk, as a run reads it."""
    parsed, _dump = registry.parse_file(read_local(path)[0], str(path) if in_place else None)
    assert parsed is not None, path
    return parsed


def raw(path: Path):
    return json.loads(path.read_text())


def llmperf_file(level: int, half: str) -> Path:
    return JOHNSON / "performance" / str(level) / f"gpt-4-1-nano_550_150_{half}.json"


# --- GuideLLM --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["qwen3.6-35b-a3b-Q8_0", "gemma4-31b-dense"])
def test_guidellm_metadata_version_1_report_is_read_not_quarantined(name):
    path = STEVE / f"{name}.json"
    report = raw(path)
    assert report["metadata"]["version"] == 1
    parsed = read(path)
    assert parsed.problems == [] and parsed.tool_version == report["metadata"]["guidellm_version"] == "0.6.0"
    (m,) = parsed.measurements
    (bench,) = report["benchmarks"]
    (request,) = bench["requests"]["successful"]
    assert (m.load_kind, m.concurrency) == ("concurrency", 1.0)  # synchronous
    assert m.values["ttft_p95_ms"] == pytest.approx(request["time_to_first_token_ms"])
    assert m.values["e2e_p50_ms"] == pytest.approx(request["request_latency"] * 1000)
    timings = request["info"]["timings"]  # GuideLLM 0.6 spaces the gaps from the first to the last token
    assert m.values["tpot_p99_ms"] == pytest.approx(
        (timings["last_token_iteration"] - timings["first_token_iteration"]) * 1000 / (request["output_tokens"] - 1)
    )
    # tokens over the measured duration; GuideLLM's own output_tokens_per_second mean is the decode speed
    assert m.values["output_tokens_per_s"] == pytest.approx(request["output_tokens"] / bench["duration"])
    assert m.values["input_tokens_per_s"] == pytest.approx(request["prompt_tokens"] / bench["duration"])
    assert m.values["achieved_requests_per_s"] == pytest.approx(1 / bench["duration"])
    assert m.requests.height == 1 and m.requests["output_tokens"].to_list() == [request["output_tokens"]]
    assert m.workload["model"] == bench["config"]["backend"]["model"] and m.workload["max_requests"] == 1
    assert m.server_settings == {"target": bench["config"]["backend"]["target"]}


@pytest.mark.parametrize("name", ["qwen3.6-35b-a3b-Q8_0", "gemma4-31b-dense"])
def test_guidellm_csv_beside_its_json_is_skipped_as_the_same_benchmark(name):
    beside = read(STEVE / f"{name}.csv")
    assert beside.kind == guidellm.REPORT_CSV_BESIDE_JSON and not beside.measurements
    assert beside.kind in registry.SKIPPED and "same benchmarks" in registry.SKIPPED[beside.kind]
    # read alone (three header rows, JSON in quoted cells), it gives the JSON's numbers
    (alone,) = read(STEVE / f"{name}.csv", in_place=False).measurements
    (from_json,) = read(STEVE / f"{name}.json").measurements
    for column in ("ttft_p95_ms", "tpot_p50_ms", "e2e_p99_ms", "achieved_requests_per_s", "output_tokens_per_s"):
        assert alone.values[column] == pytest.approx(from_json.values[column]), column
    rows = list(csv.reader((STEVE / f"{name}.csv").open(newline="")))
    metadata = json.loads(rows[3][list(zip(rows[0], rows[1])).index(("Runtime Info", "Metadata"))])
    assert read(STEVE / f"{name}.csv", in_place=False).tool_version == metadata["guidellm_version"]


def test_guidellm_report_without_metadata_counts_successful_and_incomplete_requests():
    (bench,) = raw(RSEVILLA)["benchmarks"]
    successful, incomplete = bench["requests"]["successful"], bench["requests"]["incomplete"]
    assert (len(successful), len(incomplete), bench["requests"]["total"]) == (586, 23, None)
    parsed = read(RSEVILLA)
    assert parsed.problems == [] and parsed.tool_version is None and "0.2/0.3" in parsed.note
    (m,) = parsed.measurements
    assert (m.load_kind, m.offered_rate_per_s) == ("rate", bench["args"]["strategy"]["rate"]) == ("rate", 10.0)
    assert (m.values["requests_ok"], m.values["requests_failed"], m.values["requests_sent"]) == (586, 23, 609)
    statuses = m.requests["status"].value_counts().sort("status").rows()
    assert statuses == [("incomplete", 23), ("ok", 586)]
    # the incomplete ones that produced nothing: empty output, no first token; kept, counted, not latency samples
    empty = [r for r in incomplete if r["output"] == "" and r["first_token_time"] is None]
    assert len(empty) == 10
    kept = m.requests.filter(m.requests["status"] == "incomplete")
    assert kept["ttft_ms"].null_count() == 23 and kept["error"].str.contains("TimeoutError").sum() == 23
    ttft = np.array([r["time_to_first_token_ms"] for r in successful])
    e2e = np.array([r["request_latency"] * 1000 for r in successful])
    for label, q in PERCENTILES.items():
        assert m.values[f"ttft_{label}_ms"] == pytest.approx(np.percentile(ttft, q, method="inverted_cdf"))
        assert m.values[f"e2e_{label}_ms"] == pytest.approx(np.percentile(e2e, q, method="inverted_cdf"))
    ok = m.requests.filter(m.requests["status"] == "ok")
    assert sorted(ok["ttft_ms"].to_list()) == pytest.approx(sorted(ttft))
    assert m.values["output_tokens_per_s"] == pytest.approx(
        sum(r["output_tokens"] for r in successful) / bench["duration"]
    )
    assert m.workload == {
        "data": "prompt_tokens=128,output_tokens=128",
        "model": "Qwen/Qwen3-0.6B",
        "max_seconds": 60.0,
    }
    assert m.server_settings == {"target": bench["worker"]["backend_target"]}


# --- AIPerf ----------------------------------------------------------------------------------------------


def test_aiperf_0_10_phases_without_kind_keep_the_concurrency():
    export = raw(C16 / "profile_export_aiperf.json")
    assert export["aiperf_version"] == "0.10.0" and export["schema_version"] == "1.3"
    assert all("kind" not in phase for phase in export["input_config"]["phases"])  # as 0.10/0.11 write them
    parsed = read(C16 / "profile_export_aiperf.json")
    assert parsed.problems == [] and parsed.tool_version == "0.10.0"
    (m,) = parsed.measurements
    profiling = next(p for p in export["input_config"]["phases"] if p["name"] == "profiling")
    assert (m.load_kind, m.concurrency) == ("concurrency", profiling["concurrency"]) == ("concurrency", 16)
    assert m.values["requests_ok"] == export["request_count"]["avg"] == 96
    assert m.values["ttft_p95_ms"] == export["time_to_first_token"]["p95"]
    assert m.values["input_tokens_per_s"] == pytest.approx(
        export["total_isl"]["avg"] / export["benchmark_duration"]["avg"]
    )
    assert m.workload["requests"] == 96 and m.workload["model"] == ["qwen3.6-nvfp4"]
    # the CSV beside it holds the same numbers to 2 decimals: skipped, said why
    beside = read(C16 / "profile_export_aiperf.csv")
    assert beside.kind == aiperf.AGGREGATE_CSV_BESIDE_JSON and not beside.measurements


@pytest.mark.parametrize(
    "phases",
    [
        [{"name": "warmup", "type": "concurrency", "concurrency": 4, "exclude_from_results": True},
         {"name": "profiling", "type": "concurrency", "concurrency": 16}],
        {"warmup": {"type": "concurrency", "concurrency": 4, "exclude_from_results": True},
         "profiling": {"type": "concurrency", "concurrency": 16}},
        [{"name": "warmup", "kind": "warmup", "type": "concurrency", "concurrency": 4},
         {"name": "main", "kind": "profiling", "type": "concurrency", "concurrency": 16}],
    ],
    ids=["list without kind (0.10, 0.11)", "mapping by name", "kind (0.12)"],
)  # fmt: skip
def test_aiperf_profiling_phase_in_each_layout(phases):
    assert aiperf.load_level({"phases": phases}) == ("concurrency", None, 16.0)


def test_aiperf_0_12_metrics_with_only_p50_to_p99_are_kept():
    export = raw(ROHAN / "profile_export_aiperf.json")
    assert export["aiperf_version"] == "0.12.0" and export["schema_version"] == "1.4"
    parsed = read(ROHAN / "profile_export_aiperf.json")
    assert parsed.problems == [] and parsed.tool_version == "0.12.0"
    (m,) = parsed.measurements
    assert (m.load_kind, m.concurrency) == ("concurrency", 1.0)
    kept = {(name, stat): (value, unit) for name, stat, value, unit in m.tool_metrics}
    for name in ("effective_concurrency", "effective_decode_throughput", "tokens_in_flight", "active_total_throughput"):
        written = {k: v for k, v in export[name].items() if k != "unit"}
        assert "p1" not in written and set(PERCENTILES) <= written.keys()
        assert {stat: kept[(name, stat)][0] for stat in written} == written
        assert {kept[(name, stat)][1] for stat in written} == {export[name]["unit"]}
    assert not any(name == "effective_concurrency" and stat == "p25" for name, stat in kept)
    for measure, name in (("ttft", "time_to_first_token"), ("tpot", "inter_token_latency"), ("e2e", "request_latency")):
        for label in PERCENTILES:
            assert m.values[f"{measure}_{label}_ms"] == export[name][label]
    assert m.values["achieved_requests_per_s"] == pytest.approx(100 / export["benchmark_duration"]["avg"], rel=1e-4)
    assert m.workload["extra_inputs"] == {"min_tokens": 128, "ignore_eos": True}
    # its CSV (CRLF) repeats the JSON: skipped beside it, and equal to 2 decimals when read alone
    assert read(ROHAN / "profile_export_aiperf.csv").kind == aiperf.AGGREGATE_CSV_BESIDE_JSON
    (alone,) = read(ROHAN / "profile_export_aiperf.csv", in_place=False).measurements
    assert b"\r\n" in (ROHAN / "profile_export_aiperf.csv").read_bytes()
    assert alone.values["ttft_p99_ms"] == pytest.approx(export["time_to_first_token"]["p99"], abs=0.005)
    csv_kept = {(name, stat): value for name, stat, value, _unit in alone.tool_metrics}
    assert csv_kept[("Effective Concurrency", "p50")] == 1.0 and ("Effective Concurrency", "p25") not in csv_kept


def test_aiperf_csv_without_its_json_is_the_aggregate_of_its_records():
    records = [json.loads(line) for line in (C1 / "profile_export.jsonl").read_text().splitlines() if line.strip()]
    parsed = read(C1 / "profile_export_aiperf.csv")
    assert parsed.kind == aiperf.AGGREGATE_CSV and parsed.problems == [] and "folder" in parsed.note
    (m,) = parsed.measurements
    assert (m.load_kind, m.concurrency, m.merge_key) == ("concurrency", 1.0, aiperf.MERGE_KEY)  # folder c1
    assert m.values["requests_ok"] == len(records) == 10
    span_s = (
        max(r["metadata"]["request_end_ns"] for r in records) - min(r["metadata"]["request_start_ns"] for r in records)
    ) / 1e9
    assert m.values["achieved_requests_per_s"] == pytest.approx(len(records) / span_s, rel=1e-4)
    output = sum(r["metrics"]["output_sequence_length"]["value"] for r in records)
    assert m.values["output_tokens_per_s"] == pytest.approx(output / span_s, rel=1e-4)
    for measure, name in (("ttft", "time_to_first_token"), ("tpot", "inter_token_latency"), ("e2e", "request_latency")):
        values = np.array([r["metrics"][name]["value"] for r in records])
        for label, q in PERCENTILES.items():
            assert m.values[f"{measure}_{label}_ms"] == pytest.approx(np.percentile(values, q), abs=0.005)
    (records_half,) = read(C1 / "profile_export.jsonl").measurements
    assert records_half.merge_key == m.merge_key and not records_half.values
    scanned = scan_frame(records_half.requests)
    assert scanned.height == 10 and set(scanned["phase"]) == {"measure"} and set(scanned["status"]) == {"ok"}
    assert sorted(scanned["ttft_ms"].to_list()) == pytest.approx(
        sorted(r["metrics"]["time_to_first_token"]["value"] for r in records)
    )


# --- LLMPerf ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("level", LEVELS)
def test_llmperf_units_from_the_key_table(level):
    summary = raw(llmperf_file(level, "summary"))
    responses = raw(llmperf_file(level, "individual_responses"))
    parsed = read(llmperf_file(level, "summary"))
    assert parsed.kind == llmperf.SUMMARY and parsed.problems == [] and parsed.note == ""
    assert parsed.tool_version == summary["version"] == "2023-08-31"
    (m,) = parsed.measurements
    assert (m.load_kind, m.concurrency) == ("concurrency", float(level))
    kept = {(name, stat): (value, unit) for name, stat, value, unit in m.tool_metrics}
    # per-request output throughput stays tokens/s: the raw value, no x1000
    throughput = np.array([r["request_output_throughput_token_per_s"] for r in responses if r["error_code"] is None])
    for stat, key in (("mean", "mean"), ("p50", "quantiles_p50"), ("p99", "quantiles_p99"), ("max", "max")):
        raw_value = summary[f"results_request_output_throughput_token_per_s_{key}"]
        assert kept[("request_output_throughput", stat)] == (raw_value, "tokens/s")
    assert kept[("request_output_throughput", "mean")][0] == pytest.approx(throughput.mean())
    assert kept[("request_output_throughput", "p90")][0] == pytest.approx(np.percentile(throughput, 90))
    # completed requests per minute is a rate, not a `min` statistic
    per_min = summary["results_num_completed_requests_per_min"]
    assert kept[("completed_requests_per_min", "value")] == (per_min, "requests/min")
    assert m.values["achieved_requests_per_s"] == pytest.approx(per_min / 60)
    assert not any(
        stat == "min" and unit == "tokens/s" and "request_output" not in name
        for (name, stat), (_, unit) in kept.items()
    )
    assert m.values["duration_s"] == pytest.approx(summary["results_num_completed_requests"] / (per_min / 60))
    ok = [r for r in responses if r["error_code"] is None]
    assert (m.values["requests_ok"], m.values["requests_sent"]) == (len(ok), len(responses))
    outputs = sum(r["number_output_tokens"] for r in ok)
    assert m.values["output_tokens_per_s"] == pytest.approx(outputs / m.values["duration_s"])
    for measure, key in (("ttft", "ttft_s"), ("e2e", "end_to_end_latency_s")):
        seconds = np.array([r[key] for r in ok])
        for label, q in PERCENTILES.items():
            assert m.values[f"{measure}_{label}_ms"] == pytest.approx(np.percentile(seconds, q) * 1000)
    assert m.workload == {
        "model": "gpt-4.1-nano",
        "mean_input_tokens": 550,
        "stddev_input_tokens": 150,
        "mean_output_tokens": 150,
        "stddev_output_tokens": 10,
    }


def _scope(path: Path, parsed: Parsed) -> tuple[PurePath, str | None]:
    """Where a measurement's merge key holds: its folder, `merge_up` folders up, and the key."""
    (m,) = parsed.measurements
    return PurePath(path).parents[m.merge_up], m.merge_key


def test_llmperf_halves_of_one_level_merge_and_levels_stay_apart():
    scopes = {}
    for level in LEVELS:
        summary, individual = llmperf_file(level, "summary"), llmperf_file(level, "individual_responses")
        assert _scope(summary, read(summary)) == _scope(individual, read(individual))  # one measurement
        scopes[level] = _scope(summary, read(summary))
    assert len(set(scopes.values())) == len(LEVELS)  # the same file name in six folders: six load levels
    assert {key for _folder, key in scopes.values()} == {"llmperf gpt-4-1-nano_550_150"}


def test_llmperf_individual_half_alone_has_no_rate_rather_than_zero():
    (m,) = read(llmperf_file(10, "individual_responses")).measurements
    assert m.values.get("achieved_requests_per_s") is None and m.offered_rate_per_s is None
    responses = raw(llmperf_file(10, "individual_responses"))
    assert m.requests.height == len(responses) and m.requests["start_time_unix_s"].null_count() == len(responses)


def test_llmperf_leaderboard_layout_merges_summary_and_individual_sibling_folders(tmp_path):
    """The leaderboard keeps `summary/X.json` and `individual/X.json` side by side (here linked to the copies in
    ../shared/data/dumps/llmperf): their merge key holds one folder up, so the two halves are one measurement."""
    source = DATA / "dumps" / "llmperf"
    for half in ("summary", "individual"):
        (tmp_path / half).mkdir()
        (tmp_path / half / "together_70b.json").symlink_to(source / f"{half}_together_70b.json")
    summary_path, individual_path = tmp_path / "summary/together_70b.json", tmp_path / "individual/together_70b.json"
    summary, individual = read(summary_path), read(individual_path)
    assert [m.merge_up for m in summary.measurements + individual.measurements] == [1, 1]
    assert _scope(summary_path, summary) == _scope(individual_path, individual) == (tmp_path, "llmperf together_70b")
    (m,) = summary.measurements
    assert m.server_settings == {"framework": "together"}  # the provider measured: another server than fireworks


def test_every_file_of_these_folders_is_recognised_or_said_why_not():
    for folder in (
        sorted(PUBLIC.glob("guidellm-*")) + sorted(PUBLIC.glob("aiperf-*")) + sorted(PUBLIC.glob("llmperf-*"))
    ):
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            parsed, _dump = registry.parse_file(read_local(path)[0], str(path))
            if path.name in ("SOURCE.md", "meta.json"):  # the collection's notes; the repository's run script
                assert parsed is None, path
                continue
            assert parsed is not None and not parsed.problems, path
            assert parsed.measurements or parsed.kind in registry.SKIPPED, path
