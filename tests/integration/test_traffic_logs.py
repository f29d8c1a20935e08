"""The real Azure LLM inference trace (../shared/data/traffic/azure-llm-inference-2023, read in place) as a
profile's traffic log: recognised by its header, every arrival kept to 100 ns, and its shape equal to an
independent recomputation from the raw CSV (csv + statistics)."""

import csv
import datetime
import math
import statistics

import duckdb
import pytest

from assets.config.profiles import read_profiles, write_profiles
from assets.request_records.lengths import read_lengths_file, token_stats
from assets.request_records.traffic_shape import AZURE_TRACE, read_traffic_log, write_traffic
from tests.support.data import DATA

AZURE = DATA / "traffic" / "azure-llm-inference-2023"


def independent_shape(path, window=60, per_day=None):
    """The shape recomputed from the raw file: arrivals as integer 100 ns ticks (Python's %f reads only 6 of
    the 7 fractional digits), rates over whole `window`-second windows from the first arrival (scaled so that
    their mean is `per_day` / 86400), tokens by statistics."""
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    ticks = []
    for row in rows:
        whole, _dot, fraction = row["TIMESTAMP"].partition(".")
        seconds = datetime.datetime.strptime(whole, "%Y-%m-%d %H:%M:%S").replace(tzinfo=datetime.UTC).timestamp()
        ticks.append(int(seconds) * 10_000_000 + int(fraction.ljust(7, "0")))
    ticks.sort()
    offsets = [(t - ticks[0]) / 1e7 for t in ticks]
    span = offsets[-1]
    counts = [0] * int(span // window)
    for t in offsets:
        if int(t // window) < len(counts):
            counts[int(t // window)] += 1
    scale = per_day / 86400 / (sum(counts) / (len(counts) * window)) if per_day else 1.0
    gaps = [b - a for a, b in zip(offsets, offsets[1:])]
    positive = [g for g in gaps if g > 0]
    s = math.log(statistics.mean(positive)) - statistics.mean(math.log(g) for g in positive)
    inputs = [int(r["ContextTokens"]) for r in rows]
    outputs = [int(r["GeneratedTokens"]) for r in rows]
    pct = lambda values, q: statistics.quantiles(values, n=100, method="inclusive")[q - 1]  # noqa: E731
    p95 = lambda values: pct(values, 95)  # noqa: E731
    spread = {  # the rest of each side's statistics, as requirement.workload states a log's lengths
        f"{side}_tokens_{key}": value
        for side, values in (("input", inputs), ("output", outputs))
        for key, value in (
            ("p90", pct(values, 90)),
            ("p99", pct(values, 99)),
            ("cv", statistics.pstdev(values) / statistics.mean(values)),
            ("max", max(values)),
        )
    }
    return {
        "requests": len(rows),
        "span_s": span,
        "mean_rate_per_s": (len(rows) - 1) / span,
        "window_s": window,
        "windows": len(counts),
        "window_mean_rate_per_s": sum(counts) / (len(counts) * window),
        "peak_rate_per_s": max(counts) / window,
        "peak_to_mean": max(counts) / (sum(counts) / len(counts)),
        "volume_scale": scale,
        "mean_requests_per_s": sum(counts) / (len(counts) * window) * scale,
        "peak_requests_per_s": max(counts) / window * scale,
        "interarrival_cv": statistics.stdev(gaps) / statistics.mean(gaps),
        "gamma_shape": (3 - s + math.sqrt((s - 3) ** 2 + 24 * s)) / (12 * s),
        "input_tokens_mean": statistics.mean(inputs),
        "input_tokens_p50": statistics.median(inputs),
        "input_tokens_p95": p95(inputs),
        "output_tokens_mean": statistics.mean(outputs),
        "output_tokens_p50": statistics.median(outputs),
        "output_tokens_p95": p95(outputs),
        **spread,
    }, counts


@pytest.mark.parametrize("name", ["AzureLLMInferenceTrace_code.csv", "AzureLLMInferenceTrace_conv.csv"])
@pytest.mark.parametrize("window,per_day", [(60, None), (60, 2_000_000), (15, 500_000), (300, None)])
def test_azure_trace_shape_equals_an_independent_recomputation(name, window, per_day):
    path = AZURE / name
    expected, counts = independent_shape(path, window, per_day)
    shape, rates, source = read_traffic_log(str(path), window, per_day)
    for key, value in expected.items():
        assert shape[key] == pytest.approx(value, rel=1e-9, abs=1e-9), key
    assert rates.get_column("requests").to_list() == counts
    scaled = rates.get_column("scaled_rate_per_s").to_list()
    assert scaled == pytest.approx([c / window * expected["volume_scale"] for c in counts], rel=1e-12)
    if per_day:  # the scaled windows' mean is the stated volume per second
        assert sum(scaled) / len(scaled) == pytest.approx(per_day / 86400, rel=1e-12)
    assert source.detected_format == f"traffic log ({AZURE_TRACE})" and source.rows == expected["requests"]


def test_azure_trace_figures():
    """What the two one-hour samples say (the dataset's README states 8,818 and 19,365 requests: one fewer
    than the rows, as a line count of files without a final newline gives; the last line is a request)."""
    code, _, _ = read_traffic_log(str(AZURE / "AzureLLMInferenceTrace_code.csv"))
    conv, _, _ = read_traffic_log(str(AZURE / "AzureLLMInferenceTrace_conv.csv"))
    assert (code["requests"], conv["requests"]) == (8819, 19366)
    assert code["span_s"] == pytest.approx(3435.948056, abs=1e-7)  # 18:17:03.9799600 to 19:14:19.9280160
    # code completion: long prompts, short answers, very bursty; conversation: near-Poisson arrivals
    assert code["interarrival_cv"] > 10 and 1 < conv["interarrival_cv"] < 1.2
    assert code["output_tokens_p50"] == 13 and conv["output_tokens_p50"] == 129


def test_a_profile_names_the_azure_trace_as_its_traffic_log(tmp_path):
    """From the profiles YAML to requirement.traffic_shape and audit.source_files, the trace read in place."""
    profiles = tmp_path / "profiles.yaml"
    profiles.write_text(
        "profiles:\n  - name: code-assist\n    model: llama3.1-8b\n    slo: {ttft_p95_ms: 1000}\n"
        "    delivered_fraction_prior: [0.5, 0.8]\n"
        f"    workload: {{traffic_log: {AZURE / 'AzureLLMInferenceTrace_code.csv'}}}\n"
    )
    conn = duckdb.connect(str(tmp_path / "build.duckdb"))
    try:
        write_profiles(conn, *read_profiles(profiles))
        reports = write_traffic(conn, lambda _message: None)
        shape_report, rate_report = reports["requirement.traffic_shape"], reports["requirement.traffic_rate"]
        (row,) = conn.execute("SELECT profile, requests, window_s FROM requirement.traffic_shape").fetchall()
        (formats,) = conn.execute(
            "SELECT detected_format FROM audit.source_files WHERE source LIKE '%AzureLLMInferenceTrace_code.csv'"
        ).fetchall()
    finally:
        conn.close()
    assert row == ("code-assist", 8819, 60.0) and shape_report.rows == 1 and rate_report.rows == 57
    assert formats == (f"traffic log ({AZURE_TRACE})",)


@pytest.mark.parametrize(
    "stray,where,rel",
    [
        ("9999-12-31 23:59:59.9999999,100,10", "end", 1e-9),
        ("2023-11-23 19:14:19.9280160,100,10", "end", 1e-9),  # a week after the last request
        ("0001-01-01 00:00:00.0000000,100,10", "start", 1e-6),  # offsets from year 1: 100 ns kept to ~8 us
    ],
)
def test_a_stray_timestamp_in_the_real_trace_is_left_out_and_said(tmp_path, stray, where, rel):
    """The real trace (copied to a temporary file) with a stray arrival far from the rest: it was windows for the
    whole span (34-133 GB, or killed by the kernel); now the request is left out, said, and the shape is the
    trace's own."""
    path = AZURE / "AzureLLMInferenceTrace_code.csv"
    header, *rows = path.read_text().splitlines()
    lines = [header, stray, *rows] if where == "start" else [header, *rows, stray]
    log = tmp_path / "trace.csv"
    log.write_text("\n".join(lines))
    expected, counts = independent_shape(path, 60)
    shape, rates, source = read_traffic_log(str(log), 60)
    for key, value in expected.items():
        loose = key == "gamma_shape" and rel > 1e-9  # the log of gaps of 100 ns, read to ~8 us
        assert shape[key] == pytest.approx(value, rel=1e-2 if loose else rel, abs=1e-9), key
    assert rates.get_column("requests").to_list() == counts
    assert shape["outliers_left_out"] == 1 and source.note.startswith("1 request(s) left out")


@pytest.mark.parametrize("name", ["conv", "code"])
def test_the_real_azure_trace_read_as_a_lengths_file_gives_the_lengths_the_csv_holds(name):
    """A lengths file may be a log whose timestamps are not ours: the Azure trace read by `read_lengths_file` holds
    every row's ContextTokens and GeneratedTokens, and its statistics are those recomputed here with the csv module."""
    path = AZURE / f"AzureLLMInferenceTrace_{name}.csv"
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    inputs = [int(r["ContextTokens"]) for r in rows]
    outputs = [int(r["GeneratedTokens"]) for r in rows]
    frame = read_lengths_file(str(path))
    assert frame.height == len(rows)
    assert frame.get_column("input_tokens").to_list() == inputs
    assert frame.get_column("output_tokens").to_list() == outputs
    stats = token_stats("output", frame.get_column("output_tokens"))
    assert stats["output_tokens_mean"] == pytest.approx(statistics.fmean(outputs), rel=1e-12)
    assert stats["output_tokens_max"] == max(outputs)
    ordered = sorted(outputs)
    rank = 0.5 * (len(ordered) - 1)  # linear interpolation between closest ranks, as the table's p50
    low = ordered[math.floor(rank)]
    assert stats["output_tokens_p50"] == pytest.approx(low + (ordered[math.ceil(rank)] - low) * (rank % 1))
    assert stats["output_tokens_cv"] == pytest.approx(statistics.pstdev(outputs) / statistics.fmean(outputs), rel=1e-9)
