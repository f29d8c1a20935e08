"""A BI tool reads the serving file the way Superset does (duckdb-engine through SQLAlchemy, a new
read-only connection per query) while a pipeline run in another process publishes a new one."""

import os
import shutil
import subprocess
import sys
import time

import sqlalchemy as sa
from sqlalchemy.pool import NullPool

from pipelines.resources import DEFAULT_PROFILES
from tests.conftest import REPO_ROOT, V41_TABLE, V51_TABLE

EXTRA_PROFILE = """
  - name: batch-8b
    model: llama3.1-8b
    slo: {e2e_p95_ms: 30000}
    delivered_fraction_prior: [0.6, 0.9]
"""


def superset_engine(serving) -> sa.Engine:
    # Superset: SQLALCHEMY URI duckdb:////path/serving.duckdb, engine parameters
    # {"connect_args": {"read_only": true}}; it uses NullPool for analytics databases.
    return sa.create_engine(f"duckdb:///{serving}", connect_args={"read_only": True}, poolclass=NullPool)


def look(engine) -> dict:
    """What a dashboard refresh does: list the views, reflect their columns, query two of them."""
    inspector = sa.inspect(engine)
    views = sorted(inspector.get_view_names(schema="analytics"))
    columns = {view: inspector.get_columns(view, schema="analytics") for view in views}
    shortlist = sa.Table("shortlist", sa.MetaData(), schema="analytics", autoload_with=engine)
    with engine.connect() as conn:
        profiles = conn.execute(sa.select(sa.func.count(sa.distinct(shortlist.c.profile)))).scalar_one()
        points = conn.execute(sa.text("SELECT count(*) FROM analytics.load_points WHERE run_label = :label"),
                              {"label": "vllm"}).scalar_one()
    return {"views": views, "columns": columns, "profiles": profiles, "points": points}


def test_superset_style_reads_never_fail_while_a_run_publishes(published, tmp_path):
    warehouse = tmp_path / "warehouse"
    warehouse.mkdir()
    for name in ("serving.duckdb", "build.duckdb"):
        shutil.copy(published / name, warehouse / name)
    serving = warehouse / "serving.duckdb"
    profiles = tmp_path / "profiles.yaml"
    profiles.write_text(DEFAULT_PROFILES.read_text() + EXTRA_PROFILE)
    engine = superset_engine(serving)

    before = look(engine)
    assert before["profiles"] == 2 and before["points"] == 7
    assert {"shortlist", "shortlist_sources", "load_points", "mlperf_results", "cost_per_request"} <= set(before["views"])
    shortlist_columns = {c["name"]: c for c in before["columns"]["shortlist"]}
    assert shortlist_columns["cost_per_request_usd_low"]["comment"].startswith("US dollars per request, low end")
    assert all(c["comment"] for cols in before["columns"].values() for c in cols)

    run = subprocess.Popen(
        [sys.executable, "-m", "pipelines.cli", "run", "--mlperf", str(V51_TABLE), "--mlperf", str(V41_TABLE),
         "--dumps", str(published.parent / "dumps"), "--profiles", str(profiles), "--warehouse", str(warehouse)],
        cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    first_inode = os.stat(serving).st_ino
    seen, inodes, deadline = [], set(), time.monotonic() + 240
    try:
        while time.monotonic() < deadline:
            finished = run.poll() is not None
            inodes.add(os.stat(serving).st_ino)
            now = look(engine)
            assert now["views"] == before["views"]
            seen.append(now["profiles"])
            if finished:
                break
    finally:
        if run.poll() is None:
            run.kill()
        _out, err = run.communicate(timeout=60)
    assert run.returncode == 0, err
    print(f"dashboard refreshes during the run: {len(seen)}, profiles seen: {seen}")
    assert len(seen) >= 3 and seen[0] == 2 and seen[-1] == 3 and set(seen) == {2, 3}
    assert first_inode in inodes and len(inodes) == 2  # the file was swapped under the reader
