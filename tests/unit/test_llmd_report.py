"""llm-d benchmark reports written here by hand, in the layout of llm-d-benchmark's schema (v0.1 keys as the real
reports in ../shared write them): units read from each statistic, failures, a damaged or odd report said."""

import json

import pytest
import yaml

from assets.formats.dumps import llmd_report, registry
from assets.inputs.files import Fetched


def report(**overrides) -> dict:
    """A v0.1 report of one inference-perf stage at 4 req/s: 40 sent, 1 failed, latencies in ms."""
    doc = {
        "metrics": {
            "latency": {
                "time_to_first_token": {"units": "ms", "mean": 120.0, "p50": 100.0, "p90": 150.0, "p99": 300.0},
                "request_latency": {"units": "s", "mean": 2.5, "p50": 2.0, "p90": 3.0},
            },
            "requests": {
                "total": 40,
                "failures": 1,
                "input_length": {"units": "count", "mean": 512.0},
                "output_length": {"units": "count", "mean": 128.0, "max": 130.0},
            },
            "throughput": {"requests_per_sec": 3.5, "total_tokens_per_sec": 2240.0},
            "time": {"duration": 10.0},
        },
        "scenario": {
            "load": {
                "name": "inference-perf",
                "args": {"load": {"type": "constant", "stages": [{"rate": 2.0, "duration": 10}, {"rate": 4.0}]}},
                "metadata": {"stage": 1},
            },
            "model": {"name": "unknown"},
        },
        "version": "0.1",
    }
    doc.update(overrides)
    return doc


def read(data: bytes, name: str = "benchmark_report,_stage_1_lifecycle_metrics.json.yaml"):
    parsed, _ = registry.parse_file(Fetched(name, data, "0" * 64))
    return parsed


def as_yaml(doc: dict) -> bytes:
    return yaml.safe_dump(doc).encode()


def test_units_are_read_from_each_statistic_and_failures_are_not_ok():
    parsed = read(as_yaml(report()))
    assert parsed.kind == llmd_report.REPORT_V01 and not parsed.problems
    (m,) = parsed.measurements
    assert (m.load_kind, m.offered_rate_per_s, m.location) == ("rate", 4.0, "stage 1")
    assert m.values["ttft_p50_ms"] == 100.0 and m.values["e2e_p50_ms"] == 2000.0  # ms kept, s x 1000
    assert (m.values["requests_sent"], m.values["requests_ok"], m.values["requests_failed"]) == (40, 39, 1)
    assert m.values["achieved_requests_per_s"] == 3.5 and m.values["sent_requests_per_s"] == 4.0  # 40 / 10 s


def test_a_json_report_is_read_alike():
    (m,) = read(json.dumps(report()).encode(), "br.json").measurements
    assert m.values["ttft_p99_ms"] == 300.0


def test_a_unit_not_in_the_table_quarantines_the_file_naming_it():
    doc = report()
    doc["metrics"]["latency"]["time_to_first_token"]["units"] = "us"
    parsed = read(as_yaml(doc))
    assert not parsed.measurements
    assert parsed.problems == [
        ("report", "metrics.latency.time_to_first_token.units is 'us', expected one of s, ms, s/token, ms/token")
    ]


def test_a_report_without_failure_counts_has_failures_unknown_not_zero():
    doc = report()
    del doc["metrics"]["requests"]["failures"]
    (m,) = read(as_yaml(doc)).measurements
    assert m.values["requests_failed"] is None and m.values["requests_ok"] == 40


def test_a_report_cut_short_is_recognised_and_quarantined():
    cut = as_yaml(report())[:300] + b"\n  latency: [unclosed\n"
    parsed = read(cut)
    assert parsed.kind == llmd_report.REPORT_V01 and not parsed.measurements
    assert "not a readable report" in parsed.problems[0][1]


def test_output_lengths_far_past_the_target_are_said():
    doc = report()
    doc["scenario"]["load"]["args"]["data"] = {"type": "random", "random": {"output_len": 100}}
    doc["metrics"]["requests"]["output_length"]["max"] = 900.0
    parsed = read(as_yaml(doc))
    assert "output lengths reach 900 tokens against a target of 100" in parsed.note


@pytest.mark.parametrize("text", [b"version: '0.1'\nother: 1\n", b"metrics: 3\n", b"name,rate\n1,2\n"])
def test_yaml_that_is_no_report_is_not_recognised(text):
    assert read(text, "x.yaml") is None


def test_a_report_converted_from_vllm_takes_its_level_by_vllms_rule_and_derives_no_sent_rate():
    """convert.py's vLLM import: `total` = completed (no failures key), ms, the args vLLM was run with."""
    doc = report()
    doc["scenario"]["load"] = {
        "name": "vllm-benchmark",
        "args": {"num_prompts": 200, "request_rate": 4.0, "burstiness": 1.0, "max_concurrency": 32},
    }
    del doc["metrics"]["requests"]["failures"]
    (m,) = read(as_yaml(doc)).measurements
    assert (m.load_kind, m.offered_rate_per_s, m.workload["max_concurrency"]) == ("rate", 4.0, 32.0)
    assert m.values["sent_requests_per_s"] is None and m.values["requests_failed"] is None
    doc["scenario"]["load"]["args"]["request_rate"] = "inf"
    (m,) = read(as_yaml(doc)).measurements
    assert (m.load_kind, m.concurrency) == ("concurrency", 32.0)
