"""Readers and writers at once: readers holding the serving file (DuckDB, SQLAlchemy/duckdb-engine as
Superset connects, Parquet) keep working through two publishes and never see a mix of two
publishes; two runs started at the same moment on one warehouse are serialised by its lock (one
waits, says so, then runs) and leave it consistent; a run that cannot get the lock refuses clearly."""

import fcntl
import json
import os
import subprocess
import sys
import time

import duckdb

from assets.warehouse.published_set import export_matches
from pipelines.cli import main
from tests.support.data import REPO_ROOT
from tests.support.smallcase import SIGNATURE_SQL, file_sha, parquet_snapshot, signature

READER = r"""
import json, os, sys, time
from pathlib import Path
mode, warehouse, stop, sql = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4]
serving = warehouse / "serving.duckdb"

if mode == "duckdb":
    import duckdb
    def connect():
        return duckdb.connect(str(serving), read_only=True)
    def ask(conn):
        return list(conn.execute(sql).fetchone())
elif mode == "sqlalchemy":  # as Superset does: duckdb-engine, read-only, a new connection per query
    import sqlalchemy as sa
    from sqlalchemy.pool import NullPool
    engine = sa.create_engine(f"duckdb:///{serving}", connect_args={"read_only": True}, poolclass=NullPool)
    views = None
    def connect():
        return engine.connect()
    def ask(conn):
        global views  # a dashboard refresh also reflects the views and their columns
        inspector = sa.inspect(conn)
        found = sorted(inspector.get_view_names(schema="analytics"))
        assert all(c["comment"] for c in inspector.get_columns("shortlist", schema="analytics"))
        assert views in (None, found), (views, found)
        views = found
        return list(conn.execute(sa.text(sql)).fetchone())
else:  # Parquet: resolve `current` once per read, then read only that export
    import duckdb
    from assets.core.sqltext import sql_path_literal
    def connect():
        return None
    def ask(_conn):
        d = os.path.realpath(warehouse / "parquet" / "current")
        text = sql
        for relation in ("benchmark.mlperf_results", "marts.config_shortlist", "observed.runs",
                         "requirement.profiles", "analytics.shortlist"):
            schema, name = relation.split(".")
            path = f"{d}/{schema}/{name}" + ("/*/*.parquet" if relation == "benchmark.mlperf_results" else ".parquet")
            text = text.replace(f"FROM {relation}",
                                f"FROM read_parquet({sql_path_literal(path)}, hive_partitioning = true)")
        return list(duckdb.connect().execute(text).fetchone())

held = connect()  # kept open through both publishes
first_held = ask(held) if held is not None else None
print("ready", flush=True)
seen, errors, n = set(), [], 0
while not stop.exists():
    try:
        conn = connect()
        seen.add(tuple(ask(conn)))
        if conn is not None:
            conn.close()
        n += 1
    except Exception as exc:
        errors.append(f"{type(exc).__name__}: {exc}")
    time.sleep(0.25)
last_held = ask(held) if held is not None else None
print(json.dumps({"n": n, "seen": sorted(seen), "errors": errors[:5], "held": [first_held, last_held]}), flush=True)
"""
READERS = {"duckdb": 2, "sqlalchemy": 2, "parquet": 1}  # processes; all but the Parquet ones also hold a connection
W0 = (5103.99, 5103.99, 3, 2, 2)  # run A: as published before
B = (5155.0299, 5155.0299, 3, 2, 2)  # run B: the corrected round, the same dumps and profiles
C = (5206.0698, 5206.0698, 4, 3, 3)  # run C: the round corrected again, one more sweep, one more profile


def start_reader(mode, warehouse, stop):
    reader = subprocess.Popen(
        [sys.executable, "-c", READER, mode, str(warehouse), str(stop), SIGNATURE_SQL],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert reader.stdout.readline().strip() == "ready", reader.stderr.read()
    return reader


def test_readers_never_fail_nor_see_a_mix_while_two_runs_started_at_once_publish(small_case, tmp_path):
    warehouse = small_case.copy_of(small_case.published, tmp_path / "warehouse")
    with duckdb.connect(str(warehouse / "serving.duckdb"), read_only=True) as conn:
        assert signature(conn) == W0
    stop = tmp_path / "stop"
    readers = {
        f"{mode} {i}": start_reader(mode, warehouse, stop) for mode, count in READERS.items() for i in range(count)
    }
    # the second run waits for the whole of the first (the lock is held from ingestion to publish): on a loaded
    # machine that is longer than the default 30 s wait, after which it would refuse, as it should
    patient = {**os.environ, "BENCHBILL_LOCK_TIMEOUT_S": "600"}
    logs = {name: tmp_path / f"run-{name}.err" for name in ("B", "C")}  # files: a full pipe would stall a run
    errs = {name: path.open("w") for name, path in logs.items()}
    runs = {
        name: subprocess.Popen(
            [sys.executable, "-m", "pipelines.cli", *small_case.run_args(args, warehouse)],
            cwd=REPO_ROOT,
            stdout=subprocess.DEVNULL,
            stderr=errs[name],
            env=patient,
        )
        for name, args in (("B", small_case.args_b), ("C", small_case.args_c))
    }
    codes = {name: run.wait(timeout=900) for name, run in runs.items()}
    for err in errs.values():
        err.close()
    finished = {name: (codes[name], logs[name].read_text()) for name in runs}
    stop.touch()
    # the report is a reader's last line: on a loaded machine DuckDB may print its progress bar before it
    reports = {name: json.loads(reader.communicate(timeout=60)[0].splitlines()[-1]) for name, reader in readers.items()}

    # Both runs completed, one after the other: the second said it waited for the first.
    for name, (code, err) in finished.items():
        assert code == 0, f"run {name} exited {code}:\n{err}"
    waited = [name for name, (_code, err) in finished.items() if "is being written by another run" in err]
    assert len(waited) == 1, finished
    last = {"B": B, "C": C}[waited[0]]
    with duckdb.connect(str(warehouse / "serving.duckdb"), read_only=True) as conn:
        assert signature(conn) == last
    manifest = json.loads((warehouse / "parquet" / "current" / "manifest.json").read_text())
    assert export_matches(warehouse / "serving.duckdb", manifest)

    # Every reader kept working, saw only whole publishes, and a held connection kept its snapshot.
    for name, report in reports.items():
        assert report["errors"] == [], (name, report["errors"])
        assert report["n"] >= 5 and {tuple(s) for s in report["seen"]} <= {W0, B, C}, (name, report)
        if not name.startswith("parquet"):
            assert report["held"] == [list(W0), list(W0)], (name, report["held"])
    assert set().union(*({tuple(s) for s in r["seen"]} for r in reports.values())) >= {W0, last}


def test_a_run_that_cannot_get_the_lock_refuses_with_a_clear_message(small_case, tmp_path, monkeypatch, capsys):
    warehouse = small_case.copy_of(small_case.published, tmp_path / "warehouse")
    before = (file_sha(warehouse / "serving.duckdb"), parquet_snapshot(warehouse))
    monkeypatch.setenv("BENCHBILL_LOCK_TIMEOUT_S", "0.5")
    with open(warehouse / ".benchbill.lock", "a+") as other:  # another run holds the lock
        fcntl.flock(other, fcntl.LOCK_EX)
        other.write(f"pid {os.getpid()} since now")
        other.flush()
        started = time.monotonic()
        assert main(small_case.run_args(small_case.args_b, warehouse)) == 1
        assert time.monotonic() - started < 20
    err = capsys.readouterr().err
    assert "another benchbill run is writing this warehouse" in err and "waited 0.5 s" in err
    assert f"pid {os.getpid()}" in err
    assert (file_sha(warehouse / "serving.duckdb"), parquet_snapshot(warehouse)) == before
