"""Bounded work on one input, and one bad file costs only itself: a file too large for its reader is refused by its
size before it is parsed (the file and the limit named), a settings file by its size before it is read or hashed;
whatever a reader raises (Python's integer-conversion limit included) quarantines that file with its name; a
trtllm-bench console log is recognised by its content at any size, and a report cut short is left out, said.

The large files are generated here, as small as the limits allow: each limit is patched down for the test."""

import hashlib
import json
import re
from pathlib import Path

import pytest

from assets.config.profiles import read_profiles
from assets.core.errors import IngestError
from assets.formats import size_limits
from assets.formats.dumps import generic_levels, trtllm_bench
from assets.formats.mlperf import registry as mlperf_registry
from assets.formats.quality import lm_eval
from assets.inputs.files import Fetched
from assets.mlperf_rounds import ingest
from assets.runs.collect import collect
from assets.warehouse.fingerprint import _settings_location
from tests.support.data import FIXTURES, WORKED_PROFILES, WORKED_RUN_YAML

TRTLLM = FIXTURES / "trtllm-bench"
SWEEP_LOG = TRTLLM / "console-latency-sweep" / "latency_sweep.log"
REPORT_JSON = TRTLLM / "throughput-streaming" / "report.json"
LEVELS_CSV = FIXTURES / "generic-levels" / "team_sweep_levels.csv"
LOG_LINE = "[12/01/2025-09:10:00] [TRT-LLM] [I] iteration {i}: 64 requests in flight, 7 tokens each\n"


def dumps(tmp_path: Path, files: dict[str, str | bytes]) -> Path:
    """A dumps folder with the worked run.yaml and one folder per file (each its own run)."""
    root = tmp_path / "dumps"
    root.mkdir()
    (root / "run.yaml").write_text(WORKED_RUN_YAML)
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
    return root


def listed(batch, name: str):
    (row,) = [f for f in batch.files if f.source.endswith(name)]
    return row


def test_a_trtllm_report_with_a_100000_digit_integer_is_quarantined_by_name_and_the_rest_is_read(tmp_path):
    report = json.loads(REPORT_JSON.read_text())
    text = json.dumps(report).replace('"num_requests": ', '"num_requests": ' + "9" * 100_000 + ', "was": ', 1)
    root = dumps(tmp_path, {"huge/report.json": text, "good/report.json": REPORT_JSON.read_text()})
    batch = collect(root)  # today: ValueError (integer string conversion) ends the whole run
    huge = listed(batch, "huge/report.json")
    assert (huge.detected_format, huge.status) == (trtllm_bench.REPORT_JSON, "quarantined")
    (reject,) = [r for r in batch.rejects if r.source.endswith("huge/report.json")]
    assert "integer of more than 4,300 digits" in reject.reason and "huge/report.json" in reject.reason
    assert listed(batch, "good/report.json").status == "read"


def test_any_exception_inside_a_reader_quarantines_that_file_with_its_name(tmp_path, monkeypatch):
    def broken(dump, kind):
        raise ZeroDivisionError("a reader bug")

    monkeypatch.setattr(trtllm_bench, "parse", broken)
    root = dumps(tmp_path, {"a/report.json": REPORT_JSON.read_text(), "b/levels.csv": LEVELS_CSV.read_text()})
    batch = collect(root)
    assert listed(batch, "a/report.json").status == "quarantined"
    (reject,) = [r for r in batch.rejects if r.source.endswith("a/report.json")]
    assert reject.reason.endswith("could not be read (ZeroDivisionError: a reader bug)")
    assert listed(batch, "b/levels.csv").status == "read"


@pytest.mark.parametrize("first_line", ["loading the engine\n", ""], ids=["plain text first", "log line first"])
def test_a_console_log_above_the_large_file_size_is_read_from_the_report_at_its_end(tmp_path, monkeypatch, first_line):
    """Past LARGE_FILE_BYTES (patched to 64 KB; 16 MB in use) only the head and tail are held while hashing: the
    report printed at the end is recognised there and read whole, whether the log begins with plain text or with a
    `[TRT-LLM]` line that looks like JSON (today: "not a dump format" and "invalid JSON")."""
    monkeypatch.setattr("assets.inputs.files.LARGE_FILE_BYTES", 64 * 1024)
    noise = "".join(LOG_LINE.format(i=i) for i in range(2_000))
    root = dumps(
        tmp_path, {"big/run.log": first_line + noise + SWEEP_LOG.read_text(), "small/run.log": SWEEP_LOG.read_text()}
    )
    assert (root / "big" / "run.log").stat().st_size > 2 * 64 * 1024
    batch = collect(root)
    big, small = listed(batch, "big/run.log"), listed(batch, "small/run.log")
    assert (big.detected_format, big.status) == (trtllm_bench.CONSOLE, "read") == (small.detected_format, small.status)
    assert len(batch.measurements) == 4  # the two reports of each log


def test_a_console_report_cut_short_is_left_out_with_a_note_not_read_as_one_more_level(tmp_path):
    text = SWEEP_LOG.read_text()
    cut_in_overview = text[: text.rindex("Total Latency (ms)")]
    cut_in_breakdown = text[: text.rindex("[Latency] P99")]
    cut_mid_value = text[: text.rindex("[Latency] AVERAGE") + len("[Latency] AVERAGE: 75")]
    root = dumps(tmp_path, {"a/run.log": cut_in_overview, "b/run.log": cut_in_breakdown, "c/run.log": cut_mid_value})
    batch = collect(root)
    for name, why in (
        ("a/run.log", "its performance overview ends before `Total Latency (ms)`"),
        ("b/run.log", "its request_latency_percentiles_ms breakdown stops after 3 of 7 statistics"),
        ("c/run.log", "the log ends mid-line ('[Latency] AVERAGE: 75')"),
    ):
        row = listed(batch, name)
        assert row.status == "read" and f"report 2: cut short ({why}): left out, not a load level" in row.note
    assert len(batch.measurements) == 3  # the first, whole report of each log; never the one cut short


def test_a_per_level_csv_above_its_limit_is_refused_before_parsing_naming_the_file_and_the_limit(tmp_path, monkeypatch):
    """The limit (64 MB in use) patched to 2 KB: the file is quarantined with its size and the limit; the other
    file of the folder is read (today a 0.76 GB one ran out of memory and stopped the run, the file not named)."""
    monkeypatch.setitem(size_limits.WHOLE_READ_LIMIT_BYTES, generic_levels.LEVELS_CSV, 2048)
    rows = LEVELS_CSV.read_text().splitlines(keepends=True)
    large = "".join(rows + rows[1:] * 40)
    root = dumps(tmp_path, {"a/levels.csv": large, "b/levels.csv": LEVELS_CSV.read_text()})
    batch = collect(root)
    (reject,) = [r for r in batch.rejects if r.source.endswith("a/levels.csv")]
    assert (
        f"{len(large.encode()):,} bytes, above the 2,048-byte limit for a {generic_levels.LEVELS_CSV}" in reject.reason
    )
    assert listed(batch, "a/levels.csv").status == "quarantined" and listed(batch, "b/levels.csv").status == "read"


def test_a_large_lm_eval_results_file_above_its_limit_is_refused_before_it_is_read_whole(tmp_path, monkeypatch):
    """Large (past LARGE_FILE_BYTES and its head, patched to 4 KB and 1 KB) and above its limit (64 MB in use, patched
    to 8 KB): refused with the limit, never read whole (today a 207 MB one was still reading after 400 s)."""
    monkeypatch.setattr("assets.inputs.files.LARGE_FILE_BYTES", 4096)
    monkeypatch.setattr("assets.inputs.files.HEAD_BYTES", 1024)
    monkeypatch.setitem(size_limits.WHOLE_READ_LIMIT_BYTES, lm_eval.HARNESS, 8192)
    tasks = {f"task_{i}": {"alias": f"task_{i}", "acc,none": 0.5, "acc_stderr,none": 0.01} for i in range(400)}
    document = {"results": tasks, "config": {"model": "hf", "model_args": "pretrained=Qwen/Qwen3-0.6B,dtype=bfloat16"}}
    root = dumps(tmp_path, {"eval/results.json": json.dumps(document)})
    batch = collect(root)
    (reject,) = [r for r in batch.rejects if r.source.endswith("eval/results.json")]
    assert "above the 8,192-byte limit for a lm-evaluation-harness read whole" in reject.reason
    assert batch.quality == []


def test_a_settings_file_above_its_limit_is_refused_by_its_size_before_it_is_read_or_hashed(tmp_path, monkeypatch):
    monkeypatch.setattr("assets.inputs.files.MAX_SETTINGS_FILE_BYTES", 1024)
    profiles = tmp_path / "profiles.yaml"
    profiles.write_text(WORKED_PROFILES + "#" * 2000 + "\n")

    def never(*_args):
        raise AssertionError("hashed or read whole before its size was checked")

    monkeypatch.setattr("assets.inputs.files.read_whole", never)
    monkeypatch.setattr("assets.warehouse.fingerprint.sha256_file", never)
    with pytest.raises(
        IngestError, match=r"profiles\.yaml: [\d,]+ bytes, too large for a settings file \(limit 1,024\)"
    ):
        read_profiles(profiles)
    [(name, checksum)] = _settings_location(str(profiles), fetch=never)
    assert name == str(profiles.resolve()) and checksum.startswith("too large")
    assert checksum != hashlib.sha256(profiles.read_bytes()).hexdigest()


def test_an_mlperf_reader_that_raises_gives_the_error_naming_the_file_not_a_traceback(monkeypatch):
    def broken(*_args):
        raise ZeroDivisionError("a reader bug")

    said = "summary_results.json: could not be read (ZeroDivisionError: a reader bug)"
    monkeypatch.setattr(mlperf_registry, "parse_file", broken)
    monkeypatch.setattr(mlperf_registry, "detect", lambda _file: mlperf_registry.Detected("round table", None))
    _detected, parsed = ingest._parsed(Fetched("summary_results.json", b"[]", "0" * 64))
    assert isinstance(parsed, IngestError) and str(parsed) == said  # kept: the caller decides whether it stops
    monkeypatch.setattr(mlperf_registry, "detect", broken)
    with pytest.raises(IngestError, match=re.escape(said)):
        ingest._parsed(Fetched("summary_results.json", b"[]", "0" * 64))
