"""Every dump format on the repository's recorded fixtures: its quirks, bad inputs, the request pass over
per-request records, and one definition per metric."""

import json
import re
import shutil

import duckdb
import polars as pl
import pytest

from assets.core.errors import IngestError
from assets.formats.dumps import llmperf, vllm
from assets.formats.dumps.exchange import Dump
from assets.request_records.order_stats import EXACT_UP_TO, PERCENTILE_PROBABILITIES, bracket_probabilities
from assets.request_records.traffic_shape import read_traffic_log
from assets.runs.collect import collect_all
from assets.runs.store import write_observed
from assets.warehouse.sqlfiles import read_sql
from tests.support import synthetic
from tests.support.data import FIXTURES, SLA_TREE
from tests.support.observed import build, dumps_folder, parse, points
from tests.support.records import scan_frame

# ---- per format, with its quirks ---------------------------------------------------------------


def test_vllm_detailed_result_gives_requests_and_metadata_strings_do_no_harm():
    (m,) = parse(FIXTURES / "vllm/openai-4.0qps-Llama-3.1-8B-Instruct-20260901-120000.json").measurements
    assert (m.load_kind, m.offered_rate_per_s) == ("rate", 4.0)
    assert m.requests.height == 12 and m.requests.filter(pl.col("status") == "error").height == 1
    failed = m.requests.filter(pl.col("status") == "error").row(0, named=True)
    assert failed["ttft_ms"] is None and failed["error"].startswith("HTTP 500")
    assert m.values["requests_failed"] == 1 and m.values["requests_ok"] == 11


def test_vllm_appended_lines_old_goodput_key_and_inf_rate():
    parsed = parse(FIXTURES / "vllm/appended.jsonl")
    assert [(m.load_kind, m.offered_rate_per_s, m.concurrency) for m in parsed.measurements] == [
        ("rate", 2.0, None),
        ("concurrency", None, 8.0),
        ("concurrency", None, 16.0),
    ]
    first = parsed.measurements[0]
    assert ("request_goodput", "value", 1.5, "requests/s") in first.tool_metrics
    assert first.requests is None  # no per-request arrays (only `latencies`)
    # No `failed` key (old spelling): num_prompts 10 - completed 9, inferred and said so.
    assert (first.values["requests_failed"], first.values["requests_sent"]) == (1, 10)
    assert ("requests_failed", "inferred: num_prompts - completed", 1.0, "requests") in first.tool_metrics
    assert "num_prompts - completed" in parsed.note
    assert first.values["ttft_p95_ms"] == pytest.approx(64.0) and first.values["e2e_p99_ms"] == pytest.approx(660.0)


def test_sglang_new_and_old_keys_and_measured_concurrency_is_not_the_load():
    new = parse(FIXTURES / "sglang/sglang_0901_10_256_64.jsonl").measurements
    assert [(m.offered_rate_per_s, m.requests is not None) for m in new] == [(2.0, False), (4.0, True)]
    assert new[0].values["input_tokens_mean"] is not None and new[0].values["itl_p95_ms"] == pytest.approx(12.8)
    assert ("concurrency", "mean in flight (measured)", 0.37, "requests") in new[0].tool_metrics
    assert new[1].requests.filter(pl.col("status") == "ok").get_column("e2e_ms").min() > 0  # TTFT + gaps
    (old,) = parse(FIXTURES / "sglang/old_keys.jsonl").measurements
    assert (old.load_kind, old.concurrency) == ("concurrency", 4.0)
    assert old.values["output_tokens_mean"] == new[0].values["output_tokens_mean"]


def test_guidellm_json_and_csv_agree_and_tpot_is_not_guidellms_time_per_output_token():
    from_json = parse(FIXTURES / "guidellm/benchmarks.json").measurements
    from_csv = parse(FIXTURES / "guidellm/benchmarks.csv").measurements
    assert len(from_json) == len(from_csv) == 2
    for j, c in zip(from_json, from_csv):
        assert (j.load_kind, j.offered_rate_per_s) == (c.load_kind, c.offered_rate_per_s)
        for column in ("ttft_p50_ms", "ttft_p95_ms", "tpot_p95_ms", "e2e_p99_ms", "achieved_requests_per_s"):
            assert j.values[column] == pytest.approx(c.values[column]), column
    tool = {(name, s): v for name, s, v, _u in from_json[0].tool_metrics}
    ours = from_json[0].values["tpot_p95_ms"]
    assert ours == tool[("inter_token_latency_ms", "p95")]  # (E2E - TTFT) / (output tokens - 1): our TPOT
    assert tool[("time_per_output_token_ms", "p95")] > ours  # GuideLLM's includes the TTFT: kept apart
    assert from_json[0].requests.height == 8 and from_json[0].values["itl_p95_ms"] is None


def test_llmperf_summary_with_errors_counts_each_request_once_and_lists_keys_it_does_not_know():
    """LLMPerf's num_completed_requests already leaves out the requests with an error code (token_benchmark_ray
    metrics_summary); the per-minute rate is requests/min; a results key outside the key table is named, not read."""
    summary = {
        "version": "2023-08-31",
        "model": "m",
        "num_concurrent_requests": 4,
        "results_ttft_s_mean": 0.5,
        "results_ttft_s_quantiles_p95": 0.75,
        "results_request_output_throughput_token_per_s_mean": 41.5,
        "results_num_requests_started": 10,
        "results_number_errors": 2,
        "results_num_completed_requests": 8,
        "results_num_completed_requests_per_min": 48.0,
        "results_mean_output_throughput_token_per_s": 120.0,
        "results_goodput_per_min": 3.0,
    }
    parsed = llmperf.parse(Dump("s_summary.json", b"", payload=summary), llmperf.SUMMARY)
    (m,) = parsed.measurements
    assert (m.values["requests_sent"], m.values["requests_ok"], m.values["requests_failed"]) == (10, 8, 2)
    assert m.values["achieved_requests_per_s"] == pytest.approx(48.0 / 60) and m.values["duration_s"] == 10.0
    assert m.values["ttft_p95_ms"] == 750.0
    assert ("request_output_throughput", "mean", 41.5, "tokens/s") in m.tool_metrics
    assert ("completed_requests_per_min", "value", 48.0, "requests/min") in m.tool_metrics
    assert parsed.note == "results keys not in LLMPerf's key table, not read: results_goodput_per_min"
    assert m.workload == {"model": "m"} and m.merge_up == 0 and parsed.tool_version == "2023-08-31"


def test_aiperf_records_mark_warmup_errors_and_epoch_times():
    (m,) = parse(FIXTURES / "aiperf/rate8/profile_export.jsonl").measurements
    requests = scan_frame(m.requests)  # DuckDB reads the lines; Python never decodes them
    assert requests.height == 19
    assert requests.filter(pl.col("phase") == "warmup").height == 3
    assert requests.filter(pl.col("status") == "error").height == 1
    assert requests.get_column("start_time_unix_s").min() > 1.7e9
    assert requests.get_column("start_offset_s").min() == 0.0  # from the first request, warm-up included


def test_inference_perf_per_request_groups_by_stage():
    parsed = parse(FIXTURES / "inference-perf/per_request/per_request_lifecycle_metrics.json")
    assert [m.merge_key for m in parsed.measurements] == ["stage 0", "stage 1"]
    requests = parsed.measurements[0].requests
    assert requests.height == 12 and requests.filter(pl.col("status") == "error").height == 1
    ok = requests.filter(pl.col("status") == "ok").row(0, named=True)
    assert ok["ttft_ms"] > 0 and ok["e2e_ms"] > ok["ttft_ms"]


@pytest.fixture
def conn(tmp_path):
    connection = duckdb.connect(str(tmp_path / "build.duckdb"))
    yield connection
    connection.close()


def test_the_same_requests_in_four_formats_give_the_same_percentiles(tmp_path, conn):
    reqs = synthetic.requests(n=60, seed=7, rate=5.0, failures=2, warmup=4)
    src = tmp_path / "src"
    (src / "vllm").mkdir(parents=True)
    (src / "vllm" / "result.json").write_text(json.dumps(synthetic.vllm_result(reqs, 5.0)))
    synthetic.write_aiperf(src / "aiperf", reqs, 5.0)
    (src / "generic").mkdir()
    synthetic.write_generic_csv(src / "generic" / "requests.csv", reqs, rate=5.0)
    (src / "inference-perf").mkdir()
    (src / "inference-perf" / "per_request_lifecycle_metrics.json").write_text(
        json.dumps(synthetic.inference_perf_requests([r for r in reqs if r.phase == "measure"]))
    )
    root = dumps_folder(
        tmp_path / "dumps", {name: src / name for name in ("vllm", "aiperf", "generic", "inference-perf")}
    )
    build(conn, collect_all([str(root)]))
    rows = {label: points(conn, label)[0] for label in ("vllm", "aiperf", "generic", "inference-perf")}
    ok = [r for r in reqs if r.phase == "measure" and r.ok]
    assert all(r["percentile_source"] == "per_request" for r in rows.values())
    for column in ("ttft_p95_ms", "tpot_p95_ms", "e2e_p95_ms", "ttft_p50_ms", "tpot_p99_ms"):
        values = [r[column] for r in rows.values()]
        assert values == pytest.approx([values[0]] * 4, rel=1e-9), column
    tpots = sorted((r.e2e_ms - r.ttft_ms) / (r.output_tokens - 1) for r in ok)
    rank = 0.95 * (len(tpots) - 1)  # linear interpolation between closest ranks (type 7)
    low = int(rank)
    assert rows["vllm"]["tpot_p95_ms"] == pytest.approx(tpots[low] + (rank - low) * (tpots[low + 1] - tpots[low]))
    assert rows["aiperf"]["requests_warmup_excluded"] == 4 and rows["vllm"]["requests_warmup_excluded"] == 0
    assert {r["requests_failed"] for r in rows.values()} == {2} and {r["requests_ok"] for r in rows.values()} == {58}


def test_order_statistic_interval_brackets_the_estimate_and_repeats_widen_it(tmp_path, conn):
    root = dumps_folder(tmp_path / "dumps", {"sweep": SLA_TREE.parent.parent})
    build(conn, collect_all([str(root)]))
    rows = points(conn)
    assert [(r["offered_rate_per_s"], r["repeats"]) for r in rows] == [(4.0, 2), (8.0, 2), (12.0, 2)]
    measures = conn.execute(
        "SELECT load_index, value, ci_low, ci_high, interval_method FROM "
        "observed.load_point_measures WHERE measure = 'ttft_p95_ms' ORDER BY 1"
    ).fetchall()
    for _i, value, low, high, method in measures:
        assert low < value < high and "2 repeats" in method
        # 58 requests: X(51) is the 95% lower end of p95; no rank gives a 95% upper end, so it is the largest
        assert "order statistics X(51), X(58) of 58 requests (exact binomial ranks)" in method
        assert "too few requests for a 95% upper end: the largest value" in method
    (ranks,) = conn.execute("SELECT DISTINCT requests_used FROM observed.request_percentiles").fetchall()
    assert ranks == (58,)


def test_the_sql_evaluates_the_probabilities_and_the_exact_limit_request_stats_defines():
    """The percentiles, their bracket ends and EXACT_UP_TO are written into the request pass's SQL as literals
    (a constant list keeps the one scan cheap): they must be the ones assets/request_records/order_stats.py defines, and
    the positions the SQL reads each percentile from must be that percentile's place in the list."""
    probabilities = bracket_probabilities()
    lists = re.findall(r"quantile_cont\(ok_\w+, \[([^\]]+)\]\)", read_sql("observed/request_pass/request_groups.sql"))
    assert len(lists) == 3 and all([float(x) for x in found.split(",")] == probabilities for found in lists)
    positions = [probabilities.index(p) + 1 for p in PERCENTILE_PROBABILITIES]  # DuckDB lists count from 1
    assert f"unnest({positions}) AS at" in read_sql("observed/request_pass/request_percentiles.sql")
    stats = read_sql("observed/request_pass/request_stats.sql")
    for measure, alias in (("ttft", "t"), ("tpot", "p"), ("e2e", "e")):
        for p, at in zip(PERCENTILE_PROBABILITIES, positions):
            assert f"{alias}[{at}] AS {measure}_p{round(p * 100)}_ms" in stats
    assert f"requests_used <= {EXACT_UP_TO} THEN sorted_values" in read_sql("observed/request_pass/request_pooled.sql")


def test_sweep_tree_summaries_are_listed_not_read_twice(tmp_path):
    root = dumps_folder(tmp_path / "dumps", {"sweep": SLA_TREE.parent.parent})
    batch = collect_all([str(root)])
    statuses = {(f.detected_format, f.status): 0 for f in batch.files}
    for f in batch.files:
        statuses[(f.detected_format, f.status)] += 1
    assert statuses[(vllm.RESULT, "read")] == 6 and statuses[(vllm.SWEEP_SUMMARY, "skipped")] == 4
    assert statuses[(vllm.SWEEP_CSV, "skipped")] == 1
    assert len(batch.runs) == 1 and batch.runs[0]["repeats_max"] == 2 and batch.runs[0]["requests"] == 180


def test_a_copied_file_is_read_once(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(FIXTURES / "vllm/openai-4.0qps-Llama-3.1-8B-Instruct-20260901-120000.json", src / "a.json")
    shutil.copy(src / "a.json", src / "copy of a.json")
    batch = collect_all([str(dumps_folder(tmp_path / "dumps", {"r": src}))])
    assert len(batch.measurements) == 1
    assert [f.note for f in batch.files if f.detected_format == "duplicate"] == [
        f"same content as {src}/a.json: read once".replace(str(src), str(tmp_path / "dumps/r/data"))
    ]


def test_generic_levels_exclude_warmup_and_errors(tmp_path, conn):
    build(conn, collect_all([str(dumps_folder(tmp_path / "dumps", {"g": FIXTURES / "generic"}))]))
    rows = points(conn)
    assert [
        (r["offered_rate_per_s"], r["requests_ok"], r["requests_failed"], r["requests_warmup_excluded"]) for r in rows
    ] == [(2.0, 19, 1, 3), (6.0, 19, 1, 3)]
    assert rows[0]["achieved_requests_per_s"] > 0 and rows[1]["ttft_p95_ms"] > rows[0]["ttft_p95_ms"]


# ---- bad inputs ------------------------------------------------------------------------------


def write_run(tmp_path, name, text):
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    (src / name).write_text(text)
    return collect_all([str(dumps_folder(tmp_path / "dumps", {"r": src}))])


def test_vllm_arrays_of_different_lengths_are_quarantined(tmp_path):
    result = json.loads((FIXTURES / "vllm/openai-4.0qps-Llama-3.1-8B-Instruct-20260901-120000.json").read_text())
    result["ttfts"] = result["ttfts"][:-1]
    batch = write_run(tmp_path, "r.json", json.dumps(result))
    assert not batch.measurements and "per-request arrays of different lengths" in batch.rejects[0].reason
    assert batch.rejects[0].source.endswith("r.json")


def test_guidellm_csv_with_a_short_percentile_list_quarantines_that_row(tmp_path):
    text = (FIXTURES / "guidellm/benchmarks.csv").read_text().splitlines(True)
    text[3] = text[3].replace("[21.66008949279785, ", "[", 1)
    batch = write_run(tmp_path, "benchmarks.csv", "".join(text))
    assert len(batch.measurements) == 1 and "holds 10 values, expected 11" in batch.rejects[0].reason
    assert batch.rejects[0].location == "row 4"


def test_generic_csv_row_with_unknown_status_is_quarantined(tmp_path):
    text = (FIXTURES / "generic/requests.csv").read_text().replace(",ok,measure,", ",fine,measure,", 1)
    batch = write_run(tmp_path, "requests.csv", text)
    (reject,) = batch.request_rejects
    line = next(i for i, row in enumerate(text.splitlines(), start=1) if ",fine,measure," in row)
    assert reject.source.endswith("requests.csv") and reject.location == f"line {line}"  # as an editor counts
    assert "status failed isin" in reject.reason and "(value fine)" in reject.reason
    assert sum(s["rows_quarantined"] for s in batch.request_sources) == 1 and batch.measurements


def test_truncated_json_lines_fail_naming_the_file(tmp_path):
    text = (FIXTURES / "aiperf/rate8/profile_export.jsonl").read_text()
    with pytest.raises(IngestError, match=r"profile_export.jsonl: invalid JSON"):
        write_run(tmp_path, "profile_export.jsonl", text[: len(text) // 2])


def test_guidellm_other_report_version_is_quarantined(tmp_path):
    report = json.loads((FIXTURES / "guidellm/benchmarks.json").read_text())
    report["metadata"]["version"] = 3
    batch = write_run(tmp_path, "benchmarks.json", json.dumps(report))
    assert not batch.measurements and "report version 3" in batch.rejects[0].reason


def test_a_generic_csv_duckdb_cannot_read_is_quarantined_and_the_rest_is_read(tmp_path):
    good = (FIXTURES / "generic/requests.csv").read_text()
    broken = good + "1790000999.0,1,2,3,4,ok,measure,,2.0,surplus,columns\n"  # more fields than the header
    src = tmp_path / "src"
    src.mkdir()
    (src / "good.csv").write_text(good.replace("1790000", "1790100"))
    (src / "broken.csv").write_text(broken)
    batch = collect_all([str(dumps_folder(tmp_path / "dumps", {"r": src}))])
    (reject,) = [r for r in batch.rejects if r.source.endswith("broken.csv")]
    assert reject.location == "file" and reject.reason.startswith("cannot read as CSV/Parquet")
    assert {f.status for f in batch.files if f.source.endswith("broken.csv")} == {"quarantined"}
    assert batch.measurements and all(m["source"].endswith("good.csv") for m in batch.measurements)


def test_a_large_json_document_is_read_whole(tmp_path, monkeypatch):
    monkeypatch.setattr("assets.inputs.files.LARGE_FILE_BYTES", 1000)  # the fixture counts as large
    batch = write_run(
        tmp_path, "r.json", (FIXTURES / "vllm/openai-4.0qps-Llama-3.1-8B-Instruct-20260901-120000.json").read_text()
    )
    assert len(batch.measurements) == 1 and batch.measurements[0]["has_requests"]


# ---- the value checks of the JSON formats hold where DuckDB reads the records in place -----------------------------


def generic_rows(copies: int) -> tuple[str, list[str]]:
    """The generic fixture's header and its rows repeated `copies` times (later copies shifted in time)."""
    lines = (FIXTURES / "generic/requests.csv").read_text().splitlines()
    rows = []
    for copy in range(copies):
        for line in lines[1:]:
            start, rest = line.split(",", 1)
            rows.append(f"{float(start) + copy * 30:.6f},{rest}")
    return lines[0], rows


def test_a_word_far_down_a_number_column_quarantines_its_row_and_the_rest_is_read(tmp_path):
    """DuckDB infers the column's type from the first rows; a word past them fails the typed read, so the file is
    read again with every value as text and checked row by row (not quarantined whole, not read as NULL)."""
    header, rows = generic_rows(2000)  # ~44,000 rows, past DuckDB's sample of 20,480
    at = len(rows) - 10
    fields = rows[at].split(",")
    fields[header.split(",").index("ttft_ms")] = "N/A"
    rows[at] = ",".join(fields)
    batch = write_run(tmp_path, "requests.csv", "\n".join([header, *rows]) + "\n")
    (reject,) = batch.request_rejects
    assert (
        reject.location == f"line {at + 2}" and f"ttft_ms of line {at + 2} is not a number (got 'N/A')" in reject.reason
    )
    assert sum(s["requests"] for s in batch.request_sources) == len(rows) - 1
    assert {s["reader"] for s in batch.request_sources} == {"read in place"}


def test_a_generic_csv_in_an_archive_is_read_from_memory_stored_and_checked(tmp_path):
    """An archive member has no place on disk for DuckDB to read: its records are read from a temporary copy,
    stored in the warehouse, and checked by the same rules."""
    import io
    import tarfile

    header, *rows = (FIXTURES / "generic/requests.csv").read_text().splitlines()
    fields = rows[4].split(",")
    fields[header.split(",").index("input_tokens")] = "12.5"
    rows[4] = ",".join(fields)
    data = ("\n".join([header, *rows]) + "\n").encode()
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        info = tarfile.TarInfo("requests.csv")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    src = tmp_path / "src"
    src.mkdir()
    (src / "logs.tar.gz").write_bytes(out.getvalue())
    batch = collect_all([str(dumps_folder(tmp_path / "dumps", {"r": src}))])
    assert {s["reader"] for s in batch.request_sources} == {"stored in observed.stored_requests"}
    assert not batch.scans and batch.frame("stored_requests").height == len(rows) - 1
    (reject,) = batch.request_rejects
    assert reject.source.endswith("logs.tar.gz/requests.csv") and reject.location == "line 6"
    assert "input_tokens of line 6 is not a whole number (got 12.5)" in reject.reason


@pytest.mark.parametrize("store", [False, True], ids=["without --store-texts", "with --store-texts"])
def test_texts_of_a_file_read_in_place_are_stored_only_when_asked(tmp_path, conn, store):
    header, rows = generic_rows(1)
    lines = [header + ",prompt_text,response_text"] + [f'{row},"prompt {i}","answer {i}"' for i, row in enumerate(rows)]
    src = tmp_path / "src"
    src.mkdir()
    (src / "requests.csv").write_text("\n".join(lines) + "\n")
    batch = collect_all([str(dumps_folder(tmp_path / "dumps", {"r": src}))], store_texts=store)
    write_observed(conn, batch)
    texts = conn.execute(
        "SELECT count(*), count(DISTINCT prompt_text), min(response_text) FROM observed.request_texts"
    ).fetchone()
    requests = conn.execute("SELECT count(*) FROM observed.requests").fetchone()[0]
    assert texts == ((requests, requests, "answer 0") if store else (0, 0, None)) and requests == len(rows)
    joined = conn.execute(
        "SELECT count(*) FROM observed.requests JOIN observed.request_texts "
        "USING (run_id, load_index, repeat_index, request_index)"
    ).fetchone()[0]
    assert joined == (requests if store else 0)  # each text sits with its request


def test_a_large_traffic_log_is_read_in_place_with_the_same_shape(monkeypatch):
    """A profile's production log may be as large as any per-request file: DuckDB reads it where it lies."""
    log = str(FIXTURES / "generic/production_log.csv")
    small = read_traffic_log(log)
    monkeypatch.setattr("assets.inputs.files.LARGE_FILE_BYTES", 1000)  # the fixture counts as large
    monkeypatch.setattr("assets.inputs.files.MAX_LOCAL_FILE_BYTES", 1000)  # reading it into memory would now be refused
    large = read_traffic_log(log)
    assert large[0] == small[0] and large[1].equals(small[1]) and large[2] == small[2]
    assert small[0]["requests"] == 600


def test_large_json_lines_cut_short_stop_the_run_naming_the_line(tmp_path, monkeypatch):
    """A file above LARGE_FILE_BYTES is never decoded by Python, yet its error names the line, as for a small one."""
    monkeypatch.setattr("assets.inputs.files.LARGE_FILE_BYTES", 1000)
    src = tmp_path / "src"
    shutil.copytree(FIXTURES / "aiperf/rate8", src)
    records = src / "profile_export.jsonl"
    lines = records.read_bytes().rstrip(b"\n").split(b"\n")
    records.write_bytes(b"\n".join(lines)[:-30])
    with pytest.raises(
        IngestError,
        match=rf"profile_export.jsonl: invalid JSON on line {len(lines)} "
        r"\(the last line, cut short\?\)",
    ):
        collect_all([str(dumps_folder(tmp_path / "dumps", {"r": src}))])


def test_records_of_a_quarantined_repeat_reach_no_percentile(tmp_path, conn):
    """An AIPerf aggregate whose throughput is absurd passes its parser (a finite number) but fails the
    measurement's schema: its repeat is quarantined, and with it the records read in place, their statistics
    and the level's pooled percentiles."""
    src = tmp_path / "src"
    shutil.copytree(FIXTURES / "aiperf/rate8", src)
    aggregate = json.loads((src / "profile_export_aiperf.json").read_text())
    aggregate["request_throughput"]["avg"] = 1e300
    (src / "profile_export_aiperf.json").write_text(json.dumps(aggregate))
    batch = collect_all([str(dumps_folder(tmp_path / "dumps", {"r": src}))])
    assert batch.frame("request_percentiles").height > 0  # computed by the pass, before the schema check
    write_observed(conn, batch)
    counts = conn.execute(
        "SELECT (SELECT count(*) FROM observed.measurements), (SELECT count(*) FROM "
        "observed.requests), (SELECT count(*) FROM observed.request_stats), (SELECT count(*) FROM "
        "observed.request_percentiles)"
    ).fetchone()
    assert counts == (0, 0, 0, 0)
    reasons = [r for (r,) in conn.execute("SELECT reason FROM audit.quarantine").fetchall()]
    assert any("achieved_requests_per_s failed less_than" in r for r in reasons)
    assert any("requests of a repeat" in r for r in reasons) and any("percentiles pooled" in r for r in reasons)
