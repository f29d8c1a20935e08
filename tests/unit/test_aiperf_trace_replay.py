"""An AIPerf trace replay (`--fixed-schedule`, a `fixed_schedule` phase): an open-loop rate level whose offered rate
the export does not state, taken from the send times of its own per-request records and said where it came from."""

import json
import shutil
from pathlib import Path

import duckdb
import pytest

from assets.formats.dumps import aiperf, registry
from assets.formats.dumps.exchange import Parsed
from assets.inputs.files import read_local
from assets.runs.collect import collect_all
from assets.runs.store import write_observed
from tests.support.data import FIXTURES, WORKED_RUN_YAML
from tests.support.observed import dumps_folder

REPLAY = FIXTURES / "aiperf/fixed_schedule"


def parse_on_disk(path: Path) -> Parsed:
    """The registry's reading of a file where it lies (as a run reads a dumps folder: the files beside it count)."""
    parsed, _dump = registry.parse_file(read_local(path)[0], str(path))
    assert parsed is not None, path
    return parsed


def send_rate(records: Path, column: str) -> float:
    """Independent recomputation from the raw lines: measured requests sent, (n - 1) / span of `column`."""
    lines = [json.loads(line) for line in records.read_text().splitlines()]
    times = sorted(r["metadata"][column] for r in lines if r["metadata"]["benchmark_phase"] != "warmup")
    return (len(times) - 1) / ((times[-1] - times[0]) / 1e9)


def test_the_recorded_export_echoes_the_phase_and_input_file_but_not_the_schedule():
    config = json.loads((REPLAY / "profile_export_aiperf.json").read_text())["input_config"]
    assert config["phases"] == [{"name": "profiling", "kind": "profiling", "type": "fixed_schedule", "requests": 12}]
    assert config["datasets"][0]["format"] == "mooncake_trace" and "timestamp" not in json.dumps(config)
    assert aiperf.trace_replay(config) and aiperf.load_level(config) == ("rate", None, None)


def test_a_fixed_schedule_level_is_offered_the_rate_its_records_were_issued_at():
    parsed = parse_on_disk(REPLAY / "profile_export_aiperf.json")
    (m,) = parsed.measurements
    expected = send_rate(REPLAY / "profile_export.jsonl", "credit_issued_ns")
    assert (m.load_kind, m.concurrency) == ("rate", None)
    assert m.offered_rate_per_s == pytest.approx(expected, rel=1e-12)
    assert "credit_issued_ns in profile_export.jsonl (12 measured requests" in parsed.note
    # the schedule itself: 12 requests over 2200 ms of trace.jsonl's timestamps, 5 requests/s
    trace = [json.loads(line)["timestamp"] for line in (REPLAY / "trace.jsonl").read_text().splitlines()]
    assert m.offered_rate_per_s == pytest.approx((len(trace) - 1) / ((trace[-1] - trace[0]) / 1000), rel=0.01)


def test_without_credit_times_the_request_start_times_give_the_rate_and_warmup_is_not_counted(tmp_path):
    """Records written without `credit_issued_ns` (or with it on only some lines) fall back to `request_start_ns`;
    a warm-up request, sent a minute before, is not part of the replayed schedule."""
    shutil.copy(REPLAY / "profile_export_aiperf.json", tmp_path)
    lines = [json.loads(line) for line in (REPLAY / "profile_export.jsonl").read_text().splitlines()]
    warmup = json.loads(json.dumps(lines[0]))
    warmup["metadata"].update(
        benchmark_phase="warmup", request_start_ns=lines[0]["metadata"]["request_start_ns"] - 60e9
    )
    for line in lines[1:]:
        del line["metadata"]["credit_issued_ns"]
    records = tmp_path / "profile_export.jsonl"
    records.write_text("".join(json.dumps(line) + "\n" for line in [warmup, *lines]))
    parsed = parse_on_disk(tmp_path / "profile_export_aiperf.json")
    assert parsed.measurements[0].offered_rate_per_s == pytest.approx(send_rate(records, "request_start_ns"), rel=1e-12)
    assert "request_start_ns" in parsed.note


def test_an_aggregate_alone_keeps_its_rate_unknown_and_says_why(tmp_path):
    shutil.copy(REPLAY / "profile_export_aiperf.json", tmp_path)
    parsed = parse_on_disk(tmp_path / "profile_export_aiperf.json")
    assert (parsed.measurements[0].load_kind, parsed.measurements[0].offered_rate_per_s) == ("rate", None)
    assert "offered rate unknown, no profile_export.jsonl beside it" in parsed.note


def test_before_phases_an_input_fixed_schedule_is_a_trace_replay_not_its_default_concurrency():
    config = {"loadgen": {"concurrency": 1, "request_count": 12}, "input": {"fixed_schedule": True}}
    assert aiperf.load_level(config) == ("rate", None, None)
    assert aiperf.records_beside("run1.json") == "run1.jsonl"  # --profile-export-prefix run1
    assert aiperf.records_beside("profile_export_aiperf.json") == "profile_export.jsonl"


def test_a_trace_replay_level_is_stored_with_its_rate_and_the_rate_s_provenance(tmp_path):
    """The folder as a plan's results come back (`results/aiperf/level-N`, run.yaml `arrival: trace`)."""
    run_yaml = WORKED_RUN_YAML.replace("arrival: constant", "arrival: trace")
    batch = collect_all([str(dumps_folder(tmp_path / "dumps", {"level-1": REPLAY}, run_yaml))])
    conn = duckdb.connect()
    write_observed(conn, batch)
    ((kind, rate, concurrency),) = conn.execute(  # one level: the aggregate and its records merged
        "SELECT load_kind, offered_rate_per_s, concurrency FROM observed.measurements"
    ).fetchall()
    assert (kind, concurrency) == ("rate", None)
    assert rate == pytest.approx(send_rate(REPLAY / "profile_export.jsonl", "credit_issued_ns"), rel=1e-9)
    (note,) = conn.execute(
        "SELECT note FROM audit.source_files WHERE source LIKE '%profile_export_aiperf.json'"
    ).fetchone()
    assert note.startswith("fixed-schedule trace replay") and "credit_issued_ns" in note
