"""TensorRT-LLM `trtllm-bench --report_json` reports committed to public repositories (../shared/data/dumps/public,
each folder's SOURCE.md), read in place: every number the reader gives equals a recomputation from the raw file made
here with plain json and arithmetic (rates from the request count and total latency, token rates from the average
lengths); what a report cannot give (TTFT in a non-streaming throughput run) is NULL with its reason, never 0; the
example sidecars in examples/public publish one run of one level per batch-1 latency report."""

import json
import re
from pathlib import Path

import duckdb
import pytest

from assets.formats.dumps import registry
from assets.formats.dumps.exchange import Parsed
from assets.inputs.files import read_local
from assets.runs.collect import collect_all
from tests.support.data import DATA, REPO_ROOT
from tests.support.observed import build

PUBLIC = DATA / "dumps" / "public"
EXAMPLES = REPO_ROOT / "examples" / "public"
KUBOTA = PUBLIC / "trtllm-bench-masahiro-kubota-trtllm-latency" / "measurements"
LATENCY = sorted(KUBOTA.glob("*/reports/*.json"))
LEIWU = PUBLIC / "trtllm-bench-leiwu0812-gpt-oss-eagle3-bench" / "trtllm_bench_report.json"
PERCENTILES = ("p50", "p90", "p95", "p99")


def read(path: Path) -> Parsed:
    parsed, _dump = registry.parse_file(read_local(path)[0], str(path))
    assert parsed is not None, path
    return parsed


def raw(path: Path) -> dict:
    return json.loads(path.read_text())


def metric(parsed: Parsed, name: str, statistic: str) -> float:
    (value,) = [v for m, s, v, _unit in parsed.measurements[0].tool_metrics if (m, s) == (name, statistic)]
    return value


def test_the_shared_files_hold_35_latency_reports_and_one_throughput_report():
    assert len(LATENCY) == 35
    assert {raw(p)["engine"]["version"] for p in LATENCY} == {"1.2.0"} and raw(LEIWU)["engine"]["version"] == "1.1.0rc2"


@pytest.mark.parametrize("path", LATENCY, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_latency_report_numbers_equal_the_raw_file_and_its_name(path):
    r, parsed = raw(path), read(path)
    (m,) = parsed.measurements
    v = m.values
    n, seconds = r["request_info"]["num_requests"], r["performance"]["total_latency_ms"] / 1000
    assert v["achieved_requests_per_s"] == pytest.approx(n / seconds, rel=1e-9)
    assert v["requests_ok"] == n and v["requests_failed"] is None
    assert v["duration_s"] == pytest.approx(seconds)
    out_len, in_len = r["request_info"]["avg_output_length"], r["request_info"]["avg_input_length"]
    assert v["output_tokens_per_s"] == pytest.approx(n / seconds * out_len, rel=1e-9)
    assert v["input_tokens_per_s"] == pytest.approx(n / seconds * in_len, rel=1e-9)
    assert (v["input_tokens_mean"], v["output_tokens_mean"]) == (in_len, out_len)
    for pct in PERCENTILES:
        assert v[f"ttft_{pct}_ms"] == r["streaming_metrics"]["ttft_percentiles"][pct]
        assert v[f"tpot_{pct}_ms"] == r["streaming_metrics"]["tpot_percentiles"][pct]
        assert v[f"e2e_{pct}_ms"] == r["performance"]["request_latency_percentiles_ms"][pct]
    # batch 1: one request at a time, one level; the issue rate (~1e17) is nowhere a rate
    assert r["world_info"]["max_batch_size"] == 1 and r["world_info"]["issue_rate"] > 1e16
    assert (m.load_kind, m.concurrency) == ("concurrency", 1.0) and "a batch-1 run" in parsed.note
    assert not any(name == "issue_rate" for name, *_ in m.tool_metrics)
    # the input length a sweep states in the file name is the report's own
    isl, osl = map(int, re.fullmatch(r"in(\d+)_out(\d+)_bs1\.json", path.name).groups())
    assert (m.workload["input_len"], m.workload["output_len"]) == (isl, osl) == (r["dataset"]["avg_isl"], 40)
    assert parsed.tool_version == "1.2.0" and m.server_settings["max_batch_size"] == 1
    assert "model_path" not in m.server_settings  # the string "None"
    assert m.server_settings["gpu"] == r["machine"]["name"]
    assert m.server_settings.get("quantization") == r["engine"]["quantization"]  # null for BF16: not stated


def test_fp8_reports_keep_the_max_input_length_they_state_and_say_it_is_below_the_inputs_run():
    fp8 = sorted(KUBOTA.glob("*_fp8/reports/*.json"))
    above = [p for p in fp8 if raw(p)["dataset"]["max_isl"] > raw(p)["engine"]["max_input_length"]]
    assert {raw(p)["engine"]["max_input_length"] for p in fp8} == {1024} and len(above) == 5  # 2048 .. 9192
    for path in fp8:
        parsed = read(path)
        assert parsed.measurements[0].server_settings["max_input_length"] == 1024
        assert ("smaller than the inputs run" in parsed.note) == (path in above)
        assert parsed.measurements[0].server_settings["kv_cache_dtype"] == "FP8"


def test_throughput_report_without_streaming_has_no_ttft_or_tpot_and_says_why():
    r, parsed = raw(LEIWU), read(LEIWU)
    (m,) = parsed.measurements
    v = m.values
    assert "streaming_metrics" not in r
    assert all(v[f"{measure}_{pct}_ms"] is None for measure in ("ttft", "tpot") for pct in PERCENTILES)
    assert "TTFT and TPOT are not in the report, NULL (never 0)" in parsed.note
    assert "TTFT and TPOT are not in the report" in parsed.definitions  # on every load point it makes
    for pct in PERCENTILES:
        assert v[f"e2e_{pct}_ms"] == r["performance"]["request_latency_percentiles_ms"][pct]
    assert v["achieved_requests_per_s"] == pytest.approx(1000 / 135.775587844)
    assert v["total_tokens_per_s"] == pytest.approx(1000 * (512 + 512) / 135.775587844)
    # 1000 requests issued at once (issue_rate 3.5e13 req/s): closed loop at 1000, never a rate of 3.5e13
    assert (m.load_kind, m.concurrency, m.offered_rate_per_s) == ("concurrency", 1000.0, None)
    assert "means every request was issued at once (not a rate)" in parsed.note
    # engine settings and speculative decoding, as stated; "None" is no value
    assert m.server_settings == {
        "model": "openai/gpt-oss-120b", "backend": "Pytorch", "dtype": "bfloat16", "quantization": "W4A8_MXFP4_MXFP8",
        "tp_size": 8, "pp_size": 1, "ep_size": 4, "world_size": 8, "max_batch_size": 10, "max_num_tokens": 8192,
        "scheduling_policy": "GUARANTEED_NO_EVICT", "kv_cache_free_gpu_mem_fraction": 0.8,
        "speculative_decoding": "Eagle",
    }  # fmt: skip
    decoding = r["decoding_stats"]
    assert metric(parsed, "acceptance_length", "mean") == decoding["acceptance_length_percentiles"]["average"]
    assert metric(parsed, "draft_acceptance_rate", "p50") == decoding["draft_acceptance_rate_percentiles"]["p50"]
    assert metric(parsed, "avg_num_concurrent_requests", "mean") == r["request_info"]["avg_num_concurrent_requests"]
    assert parsed.tool_version == "1.1.0rc2"


# ---- the example sidecars: runs, levels, and the load points they publish ---------------------------------------


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    folders = ("trtllm-bench-masahiro-kubota-trtllm-latency", "trtllm-bench-leiwu0812-gpt-oss-eagle3-bench")
    batch = collect_all([str(EXAMPLES / name) for name in folders])
    assert not batch.rejects and not batch.request_rejects
    conn = duckdb.connect(str(tmp_path_factory.mktemp("trt") / "w.duckdb"))
    build(conn, batch)
    yield [batch], conn
    conn.close()


def test_every_report_is_one_run_of_one_level_with_the_runtime_and_its_settings(published):
    batches, _conn = published
    runs = [r for b in batches for r in b.runs]
    assert len(runs) == 36 and {r["load_points"] for r in runs} == {1}
    assert {r["runtime"] for r in runs} == {"TensorRT-LLM"}
    assert {r["tool_version"] for r in runs} == {"1.2.0", "1.1.0rc2"}
    fp8 = [r for r in runs if r["report_dir"].endswith("rtx6000-fp8")]
    assert len(fp8) == 15 and {r["precision"] for r in fp8} == {"fp8"}
    assert all(json.loads(r["runtime_settings"])["quantization"] == "FP8" for r in fp8)


def test_published_load_points_equal_the_raw_reports(published):
    batches, conn = published
    sources = {m["run_id"]: Path(m["source"]) for b in batches for m in b.measurements}
    rows = conn.execute(
        "SELECT run_id, concurrency, achieved_requests_per_s, ttft_p95_ms, tpot_p99_ms, e2e_p99_ms, tool_definitions "
        "FROM observed.load_points"
    ).fetchall()
    assert len(rows) == 36
    for run_id, concurrency, achieved, ttft_p95, tpot_p99, e2e_p99, definitions in rows:
        r = raw(sources[run_id])
        assert achieved == pytest.approx(
            r["request_info"]["num_requests"] * 1000 / r["performance"]["total_latency_ms"]
        )
        assert e2e_p99 == pytest.approx(r["performance"]["request_latency_percentiles_ms"]["p99"])
        if "streaming_metrics" in r:
            assert concurrency == 1
            assert ttft_p95 == pytest.approx(r["streaming_metrics"]["ttft_percentiles"]["p95"])
            assert tpot_p99 == pytest.approx(r["streaming_metrics"]["tpot_percentiles"]["p99"])
        else:
            assert concurrency == r["request_info"]["num_requests"]
            assert ttft_p95 is None and tpot_p99 is None and "NULL (never 0)" in definitions
