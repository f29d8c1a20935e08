"""Traffic logs in the forms production traces are published in, recognised by content; every number of
the shape equals an independent recomputation from the raw file; a bad row is named with what was expected."""

import json
import re
import statistics

import polars as pl
import pytest

from assets.core.errors import IngestError
from assets.formats.dumps.decode import decode
from assets.formats.dumps.exchange import FormatProblem
from assets.inputs.files import read_dump_file
from assets.request_records.traffic_shape import (
    AZURE_TRACE,
    GENERIC_LOG,
    TRACE_JSON_LINES,
    read_traffic_log,
    shape_of,
    traffic_form,
)
from tests.support.data import FIXTURES

TRACE = FIXTURES / "traffic" / "trace.jsonl"
AZURE_HEADER = "TIMESTAMP,ContextTokens,GeneratedTokens"


def form_of(path):
    return traffic_form(decode(read_dump_file(path), str(path)))


def test_each_form_is_recognised_by_its_first_line(tmp_path):
    azure = tmp_path / "azure.csv"
    azure.write_text(f"{AZURE_HEADER}\n2023-11-16 18:15:46.6805900,374,44\n")
    other = tmp_path / "other.csv"
    other.write_text("when,prompt,completion\n1,2,3\n")
    assert form_of(TRACE) == TRACE_JSON_LINES
    assert form_of(azure) == AZURE_TRACE
    assert form_of(FIXTURES / "generic" / "production_log.csv") == GENERIC_LOG
    assert form_of(other) is None


def test_json_lines_trace_shape_equals_an_independent_recomputation():
    records = [json.loads(line) for line in TRACE.read_text().splitlines() if line.strip()]
    arrivals_s = sorted(r["timestamp"] / 1000 for r in records)
    gaps = [b - a for a, b in zip(arrivals_s, arrivals_s[1:])]
    inputs = [r["input_length"] for r in records]
    outputs = [r["output_length"] for r in records]
    span = arrivals_s[-1] - arrivals_s[0]

    shape, rates, source = read_traffic_log(str(TRACE), peak_window_s=1)

    assert shape["requests"] == len(records) == 8
    assert shape["span_s"] == pytest.approx(span) == 9.999
    assert shape["mean_rate_per_s"] == pytest.approx((len(records) - 1) / span)
    assert shape["interarrival_cv"] == pytest.approx(statistics.stdev(gaps) / statistics.mean(gaps))
    assert shape["input_tokens_mean"] == pytest.approx(statistics.mean(inputs))
    assert shape["output_tokens_mean"] == pytest.approx(statistics.mean(outputs))
    assert shape["input_tokens_p50"] == pytest.approx(statistics.median(inputs))
    assert shape["output_tokens_p95"] == pytest.approx(statistics.quantiles(outputs, n=100, method="inclusive")[94])
    # 1 s windows, whole windows only: the last request (at 9.999 s) opens a partial one
    full_windows = int(span // 1)
    counts = [sum(1 for t in arrivals_s if k <= t - arrivals_s[0] < k + 1) for k in range(full_windows)]
    assert shape["window_s"] == 1 and shape["peak_rate_per_s"] == max(counts)
    assert rates.get_column("requests").to_list() == counts
    assert source.detected_format == f"traffic log ({TRACE_JSON_LINES})" and source.rows == 8


def test_azure_timestamps_keep_their_seven_fractional_digits(tmp_path):
    """100 ns apart is 1e-7 s, not 0 (a microsecond parser would drop the seventh digit) and not 1e-6."""
    log = tmp_path / "trace.csv"
    log.write_text(
        f"{AZURE_HEADER}\n2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:15:46.6805901,396,109\n"
        "2023-11-16 18:15:47.0000000,91,16\n2023-11-16 18:15:48,10,1"  # no final newline, as published
    )
    shape, rates, _source = read_traffic_log(str(log), peak_window_s=1)
    assert shape["requests"] == 4  # the last line, without a newline, is read
    assert shape["span_s"] == pytest.approx(48 - 46.68059, abs=1e-9)
    assert shape["gamma_shape"] is not None
    assert shape["input_tokens_mean"] == pytest.approx((374 + 396 + 91 + 10) / 4)


@pytest.mark.parametrize(
    "lines,problem",
    [
        (
            ["2023-11-16 18:15:46.6805900,374,44", "16/11/2023 18:15:47,396,109", "2023-11-16 18:15:48.1,1,1"],
            r"line 3 is '16/11/2023 18:15:47': expected a TIMESTAMP as YYYY-MM-DD HH:MM:SS.fffffff",
        ),
        (
            ["2023-11-16 18:15:46.6805900,374,44", "2023-11-16 25:15:47.0,396,109", "2023-11-16 18:15:48.1,1,1"],
            r"line 3 is '2023-11-16 25:15:47.0'",
        ),
        (
            ["2023-11-16 18:15:46.6805900,374,44", "2023-11-16 18:15:47.0,39.5,109", "2023-11-16 18:15:48.1,1,1"],
            r"input_tokens of line 3 is not a whole number \(got '39.5'\)",
        ),
        (
            ["2023-11-16 18:15:46.6805900,374,44", "2023-11-16 18:15:47.0,396,-1", "2023-11-16 18:15:48.1,1,1"],
            r"output_tokens of line 3 is outside the plausible range",
        ),
    ],
)
def test_a_bad_azure_row_stops_the_log_naming_the_file_line_and_form(tmp_path, lines, problem):
    log = tmp_path / "trace.csv"
    log.write_text("\n".join([AZURE_HEADER, *lines]) + "\n")
    with pytest.raises(IngestError, match=problem) as caught:
        read_traffic_log(str(log))
    assert str(log) in str(caught.value) and "ContextTokens the input tokens" in str(caught.value)


@pytest.mark.parametrize(
    "edit,problem",
    [
        (
            lambda lines: lines[:2] + ['{"timestamp": 1200, "input_length": 5}'] + lines[2:],
            r"line 3 is .*expected a JSON object with timestamp",
        ),
        (lambda lines: lines[:4] + ["not json"] + lines[4:], r"invalid JSON on line 5"),
        (lambda lines: lines[:-1] + [lines[-1][:30]], r"invalid JSON on line 8"),  # cut short
        (
            lambda lines: lines[:1] + ['{"timestamp": 10, "input_length": 7.5, "output_length": 1}'] + lines[1:],
            r"input_tokens of line 2 is not a whole number \(got '7.5'\)",
        ),
        (
            lambda lines: lines[:1] + ['{"timestamp": "soon", "input_length": 7, "output_length": 1}'] + lines[1:],
            r"timestamp of line 2 is not a number \(got 'soon'\)",
        ),
    ],
)
def test_a_bad_json_line_stops_the_log_naming_the_file_and_line(tmp_path, edit, problem):
    log = tmp_path / "trace.jsonl"
    log.write_text("\n".join(edit(TRACE.read_text().splitlines())) + "\n")
    with pytest.raises(IngestError, match=problem) as caught:
        read_traffic_log(str(log))
    assert str(log) in str(caught.value)


def test_a_large_json_lines_trace_is_read_in_place_and_its_bad_line_named(tmp_path, monkeypatch):
    """Above LARGE_FILE_BYTES Python decodes only the first lines: DuckDB reads the rest and names the line."""
    monkeypatch.setattr("assets.inputs.files.LARGE_FILE_BYTES", 100)
    lines = [json.dumps({"timestamp": 100 * i, "input_length": i, "output_length": 1}) for i in range(80)]
    log = tmp_path / "trace.jsonl"
    log.write_text("\n".join(lines) + "\n")
    assert read_traffic_log(str(log), peak_window_s=1)[0]["requests"] == 80
    log.write_text("\n".join(lines[:69] + ["not json"] + lines[69:]) + "\n")
    with pytest.raises(IngestError, match=r"line 70 is 'not json': expected a JSON object with timestamp"):
        read_traffic_log(str(log))


def test_blank_lines_in_json_lines_are_skipped_and_lines_keep_their_numbers(tmp_path):
    lines = TRACE.read_text().splitlines()
    log = tmp_path / "trace.jsonl"
    log.write_text("\n".join(lines[:3] + ["", '{"timestamp": 1, "input_length": 1, "output_length": 0.5}'] + lines[3:]))
    with pytest.raises(IngestError, match=r"output_tokens of line 5 is not a whole number"):
        read_traffic_log(str(log))
    log.write_text("\n".join(lines[:3] + [""] + lines[3:]) + "\n")
    assert read_traffic_log(str(log), peak_window_s=1)[0]["requests"] == len(lines)


def test_a_file_in_no_known_form_is_refused_listing_the_forms(tmp_path):
    log = tmp_path / "log.csv"
    log.write_text("when,prompt,completion\n1,2,3\n2,3,4\n3,4,5\n")
    with pytest.raises(IngestError) as caught:
        read_traffic_log(str(log))
    message = str(caught.value)
    assert str(log) in message and all(form in message for form in (GENERIC_LOG, AZURE_TRACE, TRACE_JSON_LINES))
    assert re.search(r"TIMESTAMP,ContextTokens,GeneratedTokens", message)


def test_a_log_shorter_than_one_peak_window_is_refused_naming_the_window():
    with pytest.raises(IngestError, match=r"the log spans 9.999 s, shorter than one peak window of 60 s"):
        read_traffic_log(str(TRACE))


def test_windows_are_whole_tumbling_windows_from_the_first_request_scaled_to_the_volume():
    # arrivals at 0, 0.5, 1.2, 2.9, 3.0, 3.5 s: 2-second windows [0, 2) and [2, 4) hold 3 and 3; 4 to 6 s is
    # partial (the log ends at 4.1 s) and left out, so the request at 4.1 s counts in no window
    starts = [0.0, 0.5, 1.2, 2.9, 3.0, 3.5, 4.1]
    frame = pl.DataFrame({"start_offset_s": starts, "input_tokens": [1] * 7, "output_tokens": [1] * 7})
    shape, rates = shape_of(frame, peak_window_s=2, requests_per_day=86400 * 3)
    assert rates.get_column("requests").to_list() == [3, 3]
    assert rates.get_column("rate_per_s").to_list() == [1.5, 1.5]
    assert (shape["window_mean_rate_per_s"], shape["volume_scale"]) == (1.5, 2.0)
    assert rates.get_column("scaled_rate_per_s").to_list() == [3.0, 3.0]
    assert (shape["mean_requests_per_s"], shape["peak_requests_per_s"], shape["windows"]) == (3.0, 3.0, 2)
    unscaled, _rates = shape_of(frame, peak_window_s=1)
    assert unscaled["volume_scale"] == 1 and unscaled["peak_rate_per_s"] == 2  # [0,1): 0, 0.5


def same_shape(shape: dict, clean: dict) -> None:
    for key, value in clean.items():
        if key in ("source_sha256", "outliers_left_out"):
            continue
        assert shape[key] == (value if value is None else pytest.approx(value, rel=1e-9)), key


@pytest.mark.parametrize("stray_ms", [1e15, 253402300799000, 1e300])  # 1e15 ms, the last second of year 9999
def test_a_stray_timestamp_far_after_the_log_is_left_out_and_said(tmp_path, stray_ms):
    """Windows were allocated for the whole span it made (34-133 GB); now it is cut off and counted."""
    lines = TRACE.read_text().splitlines()
    log = tmp_path / "trace.jsonl"
    log.write_text("\n".join([*lines, json.dumps({"timestamp": stray_ms, "input_length": 9, "output_length": 9})]))
    shape, rates, source = read_traffic_log(str(log), peak_window_s=1)
    clean, clean_rates, _source = read_traffic_log(str(TRACE), peak_window_s=1)
    same_shape(shape, clean)
    assert rates.equals(clean_rates)
    assert shape["outliers_left_out"] == 1 and clean["outliers_left_out"] == 0
    assert source.note == "1 request(s) left out: timestamps far outside the rest of the log"


def test_a_sparse_log_whose_windows_would_outnumber_its_requests_is_refused():
    """Memory follows the requests: 4 requests a year apart in 1 s windows would be 94 million windows."""
    year = 365 * 86400.0
    frame = pl.DataFrame(
        {"start_offset_s": [0.0, year, 2 * year, 3 * year], "input_tokens": [1] * 4, "output_tokens": [1] * 4}
    )
    with pytest.raises(FormatProblem, match=r"94,608,000 windows of 1 s for 4 requests, more than 100,000"):
        shape_of(frame, peak_window_s=1)
    frame = pl.read_ndjson(TRACE).select(
        (pl.col("timestamp") / 1000).alias("start_offset_s"),
        pl.col("input_length").alias("input_tokens"),
        pl.col("output_length").alias("output_tokens"),
    )
    with pytest.raises(FormatProblem, match=r"9,999,000 windows of 1e-06 s for 8 requests"):
        shape_of(frame, peak_window_s=0.000001)  # profiles refuse it; the shape refuses it too
