"""Dump formats on the real files under ../shared/data/dumps: each recognised by exactly one reader, its
quirks, and files of several formats merged into one run."""

from pathlib import Path

import duckdb
import pytest

from assets.formats.dumps import aiperf, generic, guidellm, inference_perf, llmperf, registry, sglang, vllm
from assets.formats.dumps.decode import decode
from assets.inputs.files import read_local
from assets.runs.collect import collect_all
from tests.support.data import DATA, FIXTURES, SLA_TREE, WORKED_RUN_YAML
from tests.support.observed import build, dumps_folder, parse, points

DUMPS = DATA / "dumps"
PUBLIC = DUMPS / "public"
ANUD18 = "aiperf-anud18-qwen36-vllm-aiperf-benchmark/results/nvfp4"
ROHAN9446 = "aiperf-rohan9446-mlx-inference-bench/artifacts/Qwen_Qwen3-0.6B-openai-chat-concurrency1"
JOHNSONAFOOL = "llmperf-johnsonafool-llmperf-test/result_outputs/gpt-4.1-nano_20260120_165625/raw_data/performance/10"
RECOGNISED = [
    (DUMPS / "inference-perf/kubecon-na-2025/vllm/results/stage_3_lifecycle_metrics.json", inference_perf.STAGE),
    (DUMPS / "inference-perf/kubecon-na-2025/vllm/results/summary_lifecycle_metrics.json", inference_perf.SUMMARY),
    (DUMPS / "inference-perf/kubecon-na-2025/vllm/results/stage_3_prometheus_metrics.json", inference_perf.PROMETHEUS),
    (FIXTURES / "inference-perf/per_request/per_request_lifecycle_metrics.json", inference_perf.PER_REQUEST),
    (DUMPS / "llmperf/summary_together_70b.json", llmperf.SUMMARY),
    (DUMPS / "llmperf/individual_fireworks_70b.json", llmperf.INDIVIDUAL),
    (DUMPS / "inferencex-vllm-bench/qwen35_vllm_tp8_isl1024_osl128_conc4.json", vllm.RESULT_SECONDS),
    (DUMPS / "guidellm/guidellm_report_v2_mock_server.json", guidellm.REPORT_JSON),
    (FIXTURES / "guidellm/benchmarks.json", guidellm.REPORT_JSON),
    (FIXTURES / "guidellm/benchmarks.csv", guidellm.REPORT_CSV),
    (FIXTURES / "aiperf/rate8/profile_export.jsonl", aiperf.RECORDS),
    (FIXTURES / "aiperf/rate8/profile_export_aiperf.json", aiperf.AGGREGATE),
    (FIXTURES / "genai-perf/profile_export_genai_perf.json", aiperf.GENAI_PERF),
    (FIXTURES / "vllm/openai-4.0qps-Llama-3.1-8B-Instruct-20260901-120000.json", vllm.RESULT),
    (FIXTURES / "vllm/appended.jsonl", vllm.RESULT_LINES),
    (SLA_TREE / "request_rate=4/summary.json", vllm.SWEEP_SUMMARY),
    (SLA_TREE.parent / "summary.csv", vllm.SWEEP_CSV),
    (FIXTURES / "sglang/sglang_0901_10_256_64.jsonl", sglang.RESULT_LINES),
    (FIXTURES / "sglang/old_keys.jsonl", sglang.RESULT_LINES),
    (FIXTURES / "generic/requests.csv", generic.MEASUREMENT_CSV),
    (FIXTURES / "generic/production_log.csv", generic.LOG_CSV),
    # the public outputs (../shared/data/dumps/public): handed without their place on disk, a CSV is read
    (PUBLIC / "guidellm-rsevilla87-guidellm-results-parser/example_output/benchmarks.json", guidellm.REPORT_JSON),
    (PUBLIC / "guidellm-thesteve0-local-llm-benchmark/results/gemma4-31b-dense.json", guidellm.REPORT_JSON),
    (PUBLIC / "guidellm-thesteve0-local-llm-benchmark/results/gemma4-31b-dense.csv", guidellm.REPORT_CSV),
    (PUBLIC / f"{ANUD18}/5090/agent/c16/profile_export_aiperf.json", aiperf.AGGREGATE),
    (PUBLIC / f"{ANUD18}/qwen3vl_ngrok/chatbot_flat/c1/profile_export_aiperf.csv", aiperf.AGGREGATE_CSV),
    (PUBLIC / f"{ANUD18}/qwen3vl_ngrok/chatbot_flat/c1/profile_export.jsonl", aiperf.RECORDS),
    (PUBLIC / f"{ROHAN9446}/profile_export_aiperf.json", aiperf.AGGREGATE),
    (PUBLIC / f"{ROHAN9446}/profile_export_aiperf.csv", aiperf.AGGREGATE_CSV),
    (PUBLIC / f"{JOHNSONAFOOL}/gpt-4-1-nano_550_150_summary.json", llmperf.SUMMARY),
    (PUBLIC / f"{JOHNSONAFOOL}/gpt-4-1-nano_550_150_individual_responses.json", llmperf.INDIVIDUAL),
]


@pytest.mark.parametrize("path,kind", RECOGNISED, ids=lambda v: v if isinstance(v, str) else Path(v).name)
def test_each_file_is_recognised_by_exactly_one_format(path, kind):
    dump = decode(read_local(path)[0])
    answers = {m.__name__.rsplit(".", 1)[-1]: m.recognise(dump) for m in registry.READERS}
    assert [k for k in answers.values() if k] == [kind], answers


def test_not_a_dump_is_listed_unrecognised():
    assert parse_or_none(DUMPS / "llm-d-benchmark/br_v0_2_1_json_schema.json") is None
    assert parse_or_none(FIXTURES / "aiperf/prompts.jsonl") is None


def parse_or_none(path):
    return registry.parse_file(read_local(path)[0])[0]


def test_inferencex_seconds_are_converted_to_ms():
    (m,) = parse(DUMPS / "inferencex-vllm-bench/qwen35_vllm_tp8_isl1024_osl128_conc4.json").measurements
    assert (m.load_kind, m.concurrency) == ("concurrency", 4.0)
    assert m.values["ttft_p99_ms"] == pytest.approx(7589.123, abs=0.001)
    assert m.values["tpot_p50_ms"] == pytest.approx(32.305, abs=0.001)
    assert m.values["input_tokens_per_s"] == pytest.approx(541.11, abs=0.01)


def test_guidellm_real_report_with_empty_request_lists_uses_the_aggregates():
    parsed = parse(DUMPS / "guidellm/guidellm_report_v2_mock_server.json")
    assert [m.offered_rate_per_s for m in parsed.measurements] == [2.0, 4.0]
    assert all(m.requests is None and m.values["ttft_p95_ms"] is not None for m in parsed.measurements)


def test_llmperf_strings_as_numbers_and_its_itl_is_not_our_tpot():
    (m,) = parse(DUMPS / "llmperf/summary_together_70b.json").measurements
    assert (m.load_kind, m.concurrency) == ("concurrency", 5.0)
    assert m.values["ttft_p95_ms"] == pytest.approx(770.108, abs=0.001) and m.values["tpot_p95_ms"] is None
    assert ("number_input_tokens", "min", 550.0, "tokens") in m.tool_metrics  # "550" in the file
    assert m.merge_key == llmperf.merge_key("individual_together_70b.json")


@pytest.fixture
def conn(tmp_path):
    connection = duckdb.connect(str(tmp_path / "build.duckdb"))
    yield connection
    connection.close()


def test_merged_files_of_one_folder(tmp_path, conn):
    root = dumps_folder(
        tmp_path / "dumps",
        {
            "aiperf": FIXTURES / "aiperf/rate8",
            "llmperf": DUMPS / "llmperf",
            "ip": FIXTURES / "inference-perf/per_request",
        },
    )
    (root / "llmperf" / "run.yaml").write_text(WORKED_RUN_YAML.replace("constant", "concurrency"))
    batch = collect_all([str(root)])
    build(conn, batch)
    (aiperf_point,) = points(conn, "aiperf")
    assert aiperf_point["offered_rate_per_s"] == 8.0 and aiperf_point["percentile_source"] == "per_request"
    assert (aiperf_point["requests_warmup_excluded"], aiperf_point["requests_failed"]) == (3, 1)
    # two summaries at the same concurrency below one run.yaml, of two providers: two configs, never repeats
    labels = [
        r[0] for r in conn.execute("SELECT run_label FROM observed.runs WHERE tool = 'llmperf' ORDER BY 1").fetchall()
    ]
    assert [label.split(" model=")[0] for label in labels] == [
        "llmperf [framework=fireworks",
        "llmperf [framework=together",
    ]
    for label in labels:
        (llm,) = points(conn, label)
        assert (llm["concurrency"], llm["repeats"], llm["requests_ok"], llm["load_kind"]) == (
            5.0,
            1,
            150,
            "concurrency",
        )
        assert llm["percentile_source"] == "per_request" and llm["tpot_p95_ms"] < llm["e2e_p95_ms"] / 100
    ip = points(conn, "ip")
    assert {(p["offered_rate_per_s"], p["requests_ok"]) for p in ip} == {
        (2.0, 11),
        (None, 11),
    }  # stage 1: no stage file
