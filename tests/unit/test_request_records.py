"""The request pass with the warehouse's records folder: each file read in place is parsed once, copied into the
folder as it is checked, and aggregated from that copy; the observed tables are the same as when the pass reads
the files and the copies are made afterwards, and a second build reuses the copies without parsing again."""

from pathlib import Path

import duckdb
import pyarrow.parquet as pq

from assets.formats.dumps.scan_sql import COPY_REASON
from assets.request_records.request_pass import RequestPass
from assets.runs.collect import collect_all
from assets.runs.store import write_observed
from tests.support.data import WORKED_RUN_YAML

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "generic" / "requests.csv"
OBSERVED = (
    "observed.runs",
    "observed.measurements",
    "observed.request_sources",
    "observed.request_stats",
    "observed.request_percentiles",
    "observed.stored_requests",
    "observed.requests",
    "audit.quarantine",
)


def dumps(root: Path) -> Path:
    """Two runs of the generic fixture: one as recorded, one whose fourth line was written twice (a copy)."""
    lines = FIXTURE.read_text().splitlines(keepends=True)
    for name, text in (("clean", "".join(lines)), ("copied", "".join(lines[:5] + [lines[4]] + lines[5:]))):
        (root / name).mkdir(parents=True)
        (root / name / "run.yaml").write_text(WORKED_RUN_YAML + f"label: {name}\n")
        (root / name / "requests.csv").write_text(text)
    return root


def build(tmp: Path, folder: Path, records: Path, in_pass: bool) -> dict[str, list[str]]:
    """Every observed table (rows as text, sorted) of one build: the records copied by the pass (`in_pass`) or
    after it (write_observed, as before the pass knew the folder)."""
    batch = collect_all([str(folder)], records_dir=records if in_pass else None)
    conn = duckdb.connect(str(tmp / f"build-{in_pass}-{len(list(tmp.iterdir()))}.duckdb"))
    write_observed(conn, batch, records)
    out = {}
    for table in OBSERVED:
        columns = [c for c in conn.sql(f"SELECT * FROM {table}").columns if c not in ("reader", "ingested_at")]
        out[table] = sorted(map(repr, conn.execute(f"SELECT {', '.join(columns)} FROM {table}").fetchall()))
    conn.close()
    return out


def records_rows(records: Path) -> dict[str, list]:
    """Each records file's rows in the order of the file's lines (a file holding copies is written in the order
    of the window that finds them)."""
    return {
        p.name: sorted(pq.read_table(p).to_pylist(), key=lambda row: row["ordinal"])
        for p in sorted(records.glob("*.parquet"))
    }


def test_records_copied_by_the_pass_give_the_same_tables_and_the_same_copies(tmp_path):
    folder = dumps(tmp_path / "dumps")
    before = build(tmp_path, folder, tmp_path / "records-after", in_pass=False)
    now = build(tmp_path, folder, tmp_path / "records-in-pass", in_pass=True)
    assert now == before
    assert records_rows(tmp_path / "records-in-pass") == records_rows(tmp_path / "records-after")
    copies = [
        row
        for rows in records_rows(tmp_path / "records-in-pass").values()
        for row in rows
        if row["problem"] == COPY_REASON
    ]
    assert len(copies) == 1 and copies[0]["ordinal"] == 5  # the fourth data line, written again as the fifth


def test_a_second_build_reuses_the_copies_without_writing_them_again(tmp_path, monkeypatch):
    folder = dumps(tmp_path / "dumps")
    records = tmp_path / "records"
    first = build(tmp_path, folder, records, in_pass=True)
    written = {p.name: p.stat().st_mtime_ns for p in records.glob("*.parquet")}
    assert len(written) == 2

    def parsed_again(self, key, target):
        raise AssertionError(f"{key} parsed and copied again although its records are in the warehouse")

    monkeypatch.setattr(RequestPass, "_write_records", parsed_again)
    second = build(tmp_path, folder, records, in_pass=True)
    assert second == first
    assert {p.name: p.stat().st_mtime_ns for p in records.glob("*.parquet")} == written
    assert any(COPY_REASON in row for row in second["audit.quarantine"])
