"""The generic per-level summary format on hand-written files (tests/fixtures/generic-levels, README beside them):
recognised by its header, every number equal to the CSV read with the csv module, a percentile the file lacks NULL,
and every bad row quarantined with its line and reason."""

import csv

import duckdb
import polars as pl
import pytest

from assets.formats.dumps import generic, generic_levels, registry
from assets.formats.dumps.decode import decode
from assets.inputs.files import read_local
from assets.runs.collect import collect_all
from assets.warehouse.sqlfiles import run_sql_file
from assets.warehouse.write import write_table
from schemas.observed.delivered_at_slo import DeliveredAtSlo
from tests.support.data import FIXTURES, WORKED_RUN_YAML
from tests.support.observed import build, dumps_folder, points
from tests.unit.test_load_generator_axis import _profile

LEVELS = FIXTURES / "generic-levels"
SWEEP = LEVELS / "team_sweep_levels.csv"
BAD = LEVELS / "bad_rows_levels.csv"
PERCENTILES = [f"{m}_{p}_ms" for m in ("ttft", "tpot", "itl", "e2e") for p in ("p50", "p90", "p95", "p99")]


def read(path):
    parsed, _ = registry.parse_file(read_local(path)[0], str(path))
    return parsed


@pytest.mark.parametrize("path", [SWEEP, BAD], ids=lambda p: p.name)
def test_recognised_by_its_header_by_exactly_one_reader(path):
    dump = decode(read_local(path)[0])
    answers = [k for k in (m.recognise(dump) for m in registry.READERS) if k]
    assert answers == [generic_levels.LEVELS_CSV]


def test_a_per_request_file_is_not_a_per_level_summary():
    dump = decode(read_local(FIXTURES / "generic" / "requests.csv")[0])
    assert generic_levels.recognise(dump) is None and generic.recognise(dump) == generic.MEASUREMENT_CSV


def test_every_number_equals_the_csv_and_what_the_file_lacks_stays_null():
    parsed = read(SWEEP)
    assert not parsed.problems and parsed.note == "columns not read: notes"
    rows = list(csv.DictReader(SWEEP.read_text().splitlines()))
    assert len(parsed.measurements) == len(rows) == 4
    for m, row, line in zip(parsed.measurements, rows, range(2, 6)):
        assert (m.location, m.load_kind, m.offered_rate_per_s) == (
            f"line {line}",
            "rate",
            float(row["offered_rate_per_s"]),
        )
        v = m.values
        assert v["achieved_requests_per_s"] == float(row["achieved_requests_per_s"])
        assert v["duration_s"] == float(row["duration_s"])
        assert (v["requests_ok"], v["requests_failed"]) == (int(row["requests_ok"]), int(row["requests_failed"]))
        assert v["requests_sent"] == int(row["requests_ok"]) + int(row["requests_failed"])
        assert (v["input_tokens_mean"], v["output_tokens_mean"]) == (
            float(row["input_tokens_mean"]),
            float(row["output_tokens_mean"]),
        )
        for column in PERCENTILES:
            assert v[column] == (float(row[column]) if column in row else None), column
        assert v["ttft_p90_ms"] is None and v["itl_p50_ms"] is None  # not in the file: NULL, never 0


def test_a_parquet_summary_reads_the_same_numbered_by_row(tmp_path):
    path = tmp_path / "levels.parquet"
    pl.read_csv(SWEEP).write_parquet(path)
    parsed = read(path)
    assert parsed.kind == generic_levels.LEVELS_PARQUET and not parsed.problems
    csv_read = read(SWEEP).measurements
    assert [m.location for m in parsed.measurements] == ["row 1", "row 2", "row 3", "row 4"]
    assert [m.values for m in parsed.measurements] == [m.values for m in csv_read]


def test_each_bad_row_is_quarantined_with_its_line_and_reason():
    parsed = read(BAD)
    assert [(m.location, m.load_kind, m.concurrency) for m in parsed.measurements] == [
        ("line 2", "concurrency", 1.0),
        ("line 11", "concurrency", 64.0),
    ]
    reasons = dict(parsed.problems)
    assert list(reasons) == [f"line {n}" for n in (3, 4, 5, 6, 7, 8, 9, 10, 12)]
    assert reasons["line 3"] == "achieved_requests_per_s is not a number (got 'abc')"
    assert reasons["line 4"] == "requests_ok is not a whole count (got '100.5')"
    assert reasons["line 5"] == "achieved_requests_per_s is empty (required)"
    assert reasons["line 6"] == "ttft_p99_ms (120) is below ttft_p50_ms (300)"
    assert reasons["line 7"] == "states no load level (offered_rate_per_s and concurrency are empty)"
    assert reasons["line 8"] == "has 8 cells, the header has 7"
    assert reasons["line 9"] == "a copy of line 2: read once"
    assert reasons["line 10"].startswith("achieved_requests_per_s is outside the plausible range")
    assert reasons["line 12"].startswith("the file does not end with a newline")


@pytest.mark.parametrize(
    ("drop", "said"),
    [
        (
            "offered_rate_per_s",
            "without its level column (offered_rate_per_s or concurrency: the rate or concurrency of each row)",
        ),
        ("achieved_requests_per_s", "without its column achieved_requests_per_s (successful requests completed"),
    ],
)
def test_a_summary_without_a_required_column_is_listed_naming_the_column_and_the_format(tmp_path, drop, said):
    """Not "not a dump format": the listing says which format it otherwise is and which column it lacks."""
    with SWEEP.open(newline="") as handle:
        rows = [{k: v for k, v in row.items() if k != drop} for row in csv.DictReader(handle)]
    folder = tmp_path / "dumps"
    (folder / "team").mkdir(parents=True)
    (folder / "team" / "run.yaml").write_text(WORKED_RUN_YAML)
    with (folder / "team" / "levels.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    batch = collect_all([str(folder)])
    [listed] = [f for f in batch.files if f.source.endswith("levels.csv")]
    assert listed.status == "skipped"
    assert listed.note.startswith(f"a {generic_levels.LEVELS_CSV} without ") and listed.note.endswith(": not read")
    assert said in listed.note
    assert not batch.measurements


def test_a_row_stating_both_a_rate_and_a_concurrency_is_refused(tmp_path):
    path = tmp_path / "both.csv"
    path.write_text("offered_rate_per_s,concurrency,achieved_requests_per_s\n2,16,1.9\n")
    parsed = read(path)
    assert not parsed.measurements
    assert parsed.problems == [("line 2", "states both offered_rate_per_s and concurrency: give one (the level)")]


def test_a_sweep_summary_is_one_run_and_a_bounded_percentile_it_lacks_is_said_on_the_band(tmp_path):
    """The team's spreadsheet: one run, a load point per row; the worked profile bounds p95 TPOT, which the file does
    not state, so every point fails it and the band says so (unmeasured_bounds, method) instead of merely failing."""
    batch = collect_all([str(dumps_folder(tmp_path / "dumps", {"team": SWEEP}))])
    (run,) = batch.runs
    rows = list(csv.DictReader(SWEEP.read_text().splitlines()))
    with duckdb.connect(str(tmp_path / "build.duckdb")) as conn:
        build(conn, batch)
        levels = points(conn, run["run_label"])
        assert [(p["offered_rate_per_s"], p["achieved_requests_per_s"]) for p in levels] == [
            (float(r["offered_rate_per_s"]), float(r["achieved_requests_per_s"])) for r in rows
        ]
        _profile(conn, ttft_p95_ms=1000.0, tpot_p95_ms=50.0)
        frame = run_sql_file(conn, "observed/delivered_at_slo.sql")
        write_table(conn, "observed.delivered_at_slo", frame, DeliveredAtSlo)
    (band,) = [b for b in frame.iter_rows(named=True) if b["run_id"] == run["run_id"]]
    assert not band["feasible"] and band["unmeasured_bounds"] == "tpot_p95_ms"
    assert "not in the run's files, so failing at every point: tpot_p95_ms" in band["method"]
