"""LoadGen logs (detail MLLOG lines, the v0.5 text form, the summary) and power samples, on the real
logs of the submission trees; the parser knows nothing of where the files sit."""

import pytest

from assets.formats.mlperf import loadgen
from tests.support.data import DATA

V51 = DATA / "mlperf" / "submissions" / "v5.1" / "closed"
AMD_INTERACTIVE = V51 / "AMD/results/8xMI300X_2xEPYC_9575F/llama2-70b-99/Interactive/performance/run_1"
LENOVO_MS = V51 / "Lenovo/results/SE100_RTX2000E_Ada_16GBx1_TRT/resnet50/MultiStream/performance/run_1"
WHISPER = V51 / "Lenovo/results/SR680a_V3_B200SXMx8_TRT/whisper/Offline/performance/run_1"


def text(path):
    return path.read_text(encoding="utf-8")


def test_detail_log_first_occurrence_of_each_key_and_non_json_lines_skipped():
    log = loadgen.parse_detail(text(AMD_INTERACTIVE / "mlperf_log_detail.txt") + "\nnot json\n:::MLLOG {broken\n")
    assert log.form == "mllog"
    assert log.get("effective_scenario") == "Server"  # an Interactive run says Server
    assert log.number("result_completed_tokens_per_second") == 8840.42
    assert log.get("loadgen_version") == "5.1.0 @ 091d51f041"
    assert log.errors == []


def test_summary_keys_are_named_as_in_the_detail_log_and_agree_with_it():
    for run in (AMD_INTERACTIVE, LENOVO_MS, WHISPER):
        detail = loadgen.parse_detail(text(run / "mlperf_log_detail.txt"))
        summary = loadgen.parse_summary(text(run / "mlperf_log_summary.txt"))
        shared = set(detail.values) & set(summary.values)
        assert len(shared) >= 12
        for key in shared:
            if isinstance(detail.get(key), (int, float)) and not isinstance(detail.get(key), bool):
                assert summary.number(key) == pytest.approx(detail.number(key), rel=1e-3), key  # summary rounds some


def test_multistream_summary_percentiles_are_per_query():
    summary = loadgen.parse_summary(text(LENOVO_MS / "mlperf_log_summary.txt"))
    assert summary.number("result_99.00_percentile_per_query_latency_ns") == 1482562
    assert summary.number("early_stopping_latency_ms") == 1482812
    assert summary.get("effective_scenario") == "MultiStream"


def test_conditions_hold_the_limits_and_the_ttft_tpot_percentiles_in_ms():
    conditions = loadgen.conditions(
        loadgen.read_run(
            text(AMD_INTERACTIVE / "mlperf_log_detail.txt"), text(AMD_INTERACTIVE / "mlperf_log_summary.txt")
        )
    )
    assert (conditions["ttft_limit_ms"], conditions["tpot_limit_ms"]) == (450.0, 40.0)
    assert conditions["ttft_p99_ms"] == pytest.approx(435.9761)
    assert conditions["tpot_p99_ms"] == pytest.approx(39.507635)
    assert conditions["latency_p50_ms"] == pytest.approx(8609.97075)
    assert conditions["target_qps"] == 29.5 and conditions["log_scenario"] == "Server"
    assert conditions["target_latency_ms"] is None  # 0 means no limit


def test_power_is_the_mean_of_the_samples_inside_the_power_window():
    log = loadgen.parse_detail(text(WHISPER / "mlperf_log_detail.txt"))
    samples = list(loadgen.parse_power_samples(text(WHISPER / "spl.txt")))
    watts, count = loadgen.average_power_w(samples, log.get("power_begin"), log.get("power_end"))
    assert len(samples) == 828 and count == 624
    assert watts == pytest.approx(7636.4895833333)  # the v5.1 table's Power_Result
    with pytest.raises(loadgen.LoadgenError, match="no power sample falls inside"):
        loadgen.average_power_w(samples, "01-01-2020 00:00:00.000", "01-01-2020 00:01:00.000")
