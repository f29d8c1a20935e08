"""The report's throughput-latency charts draw the MLPerf reference of the profile's scenario: Interactive where the
profile is held to it (benchmark.mlperf_profile_reference), else Server; Offline stays as an upper bound."""

import re

from assets.report.profile_sections import _latency_charts

RUN = {
    "run_label": "vllm",
    "config_key": "run-1",
    "delivered_output_tokens_per_s_per_accel_low": 3000.0,
    "delivered_output_tokens_per_s_per_accel_high": 3500.0,
}
POINTS = [
    {
        "load_index": i,
        "output_tokens_per_s_per_accel": 1000.0 * i,
        "ttft_p95_ms": 100.0 * i,
        "offered_rate_per_s": i,
        "concurrency": None,
        "achieved_requests_per_s": float(i),
        "error_rate": 0.0,
    }
    for i in range(1, 5)
]
BOUNDS = [{"measure": "ttft_p95_ms", "bound": 300.0}]
REFERENCE = {
    "round": "v5.1",
    "submitter": "NVIDIA",
    "server_tokens_per_s_per_accel": 8114.3,
    "interactive_tokens_per_s_per_accel": 6684.4,
    "offline_tokens_per_s_per_accel": 9000.0,
}


def lines_of(svg: str) -> dict[str, str]:
    return dict(re.findall(r'<line class="(mlperf-[a-z]+)"[^>]*data-value="([^"]+)"', svg))


def test_a_profile_held_to_interactive_is_drawn_against_the_interactive_result():
    reference = {**REFERENCE, "reference_scenario": "Interactive", "reference_tokens_per_s_per_accel": 6684.4}
    (svg,) = _latency_charts("chat", RUN, POINTS, BOUNDS, reference)
    drawn = lines_of(svg)
    assert float(drawn["mlperf-interactive"]) == 6684.4 and "mlperf-server" not in drawn
    assert float(drawn["mlperf-offline"]) == 9000.0
    assert "MLPerf v5.1 Interactive (NVIDIA): 6,684" in svg


def test_without_a_profile_scenario_the_server_result_is_the_reference():
    (svg,) = _latency_charts("chat", RUN, POINTS, BOUNDS, REFERENCE)
    drawn = lines_of(svg)
    assert float(drawn["mlperf-server"]) == 8114.3 and "mlperf-interactive" not in drawn
    assert "MLPerf v5.1 Server (NVIDIA): 8,114" in svg
