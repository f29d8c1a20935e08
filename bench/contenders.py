"""One contender, timed in its own process: `python -m bench.contenders NAME DATA_DIR RESULT_JSON`.

The process imports what it needs first; the clock then covers the computation alone (the start-up of
Python and of the libraries is reported apart, from the parent). Peak memory is the process's maximum
resident set (imports included). The result JSON holds the timing and, per config x load level, the
p95 TTFT and TPOT and the delivered rate, so the harness can check the contenders agree.

- ours: benchbill's observed-layer assets materialised by Dagster into a fresh warehouse (every run partition
  read and stored, then parse, validate, aggregate percentiles and intervals per load point, load points,
  delivered at SLO);
- duckdb: bench/reference.sql, one hand-written query;
- pandas: bench/peer_pandas.py.
"""

from __future__ import annotations

import json
import resource
import sys
import tempfile
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent


def _points(rows: list[dict]) -> list[dict]:
    return [
        {
            "config": r["config"],
            "level": float(r["level"]),
            "requests_ok": int(r["requests_ok"]),
            "ttft_p95_ms": r["ttft_p95_ms"],
            "tpot_p95_ms": r["tpot_p95_ms"],
            "delivered_requests_per_s": r["delivered_requests_per_s"],
        }
        for r in rows
    ]


def run_duckdb(data: Path) -> list[dict]:
    import duckdb

    sql = (BENCH_DIR / "reference.sql").read_text().replace("{data}", str(data))
    start = time.perf_counter()
    cursor = duckdb.connect().execute(sql)
    names = [d[0] for d in cursor.description]
    rows = [dict(zip(names, r)) for r in cursor.fetchall()]
    return start, _points(rows)


def run_pandas(data: Path):
    from bench import peer_pandas

    start = time.perf_counter()
    return start, _points(peer_pandas.compute(str(data)).to_dict("records"))


# The observed layer: the dumps read, then the SQL-built tables over them (and the profiles they are judged by).
OURS_TABLES = ("observed.load_point_measures", "observed.load_points", "observed.delivered_at_slo")


def run_ours(data: Path):
    import dagster as dg
    import duckdb

    from assets import observed, requirement, sql_tables
    from assets.resources import Inputs, RunStore, Warehouse
    from bench.generate import dumps_dir

    warehouse_dir = Path(tempfile.mkdtemp(prefix="bench-warehouse-"))
    instance = dg.DagsterInstance.ephemeral()  # Dagster's own start-up (imports), not the materialisation
    resources = {
        "warehouse": Warehouse(dir=str(warehouse_dir)),
        "run_store": RunStore(dir=str(warehouse_dir)),
        "inputs": Inputs(dumps=[str(p) for p in dumps_dir(data)], profiles=str(data / "profiles.yaml")),
    }
    tables = [a for a in sql_tables.table_assets if ".".join(a.key.path) in OURS_TABLES]
    assets = [observed.run_partitions, observed.observed_runs, *tables, requirement.profiles]
    start = time.perf_counter()
    result = dg.materialize(assets, resources=resources, instance=instance, raise_on_error=True)
    assert result.success
    elapsed = time.perf_counter()
    conn = duckdb.connect(str(warehouse_dir / "build.duckdb"), read_only=True)
    cursor = conn.execute(
        "SELECT substr(r.run_label, 7) AS config, coalesce(lp.offered_rate_per_s, lp.concurrency) AS level, "
        "lp.requests_ok, lp.ttft_p95_ms, lp.tpot_p95_ms, d.delivered_requests_per_s_low AS delivered_requests_per_s "
        "FROM observed.load_points lp JOIN observed.runs r USING (run_id) "
        "LEFT JOIN observed.delivered_at_slo d USING (run_id) ORDER BY 1, 2"
    )
    names = [d[0] for d in cursor.description]
    rows = [dict(zip(names, r)) for r in cursor.fetchall()]
    conn.close()
    return start, _points(rows), elapsed


CONTENDERS = {"ours": run_ours, "duckdb": run_duckdb, "pandas": run_pandas}


def main(argv: list[str]) -> int:
    name, data, out = argv[0], Path(argv[1]), Path(argv[2])
    found = CONTENDERS[name](data)
    end = time.perf_counter()
    start, points = found[0], found[1]
    if len(found) > 2:  # ours: the clock stops when the assets are materialised, before reading them back
        end = found[2]
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out.write_text(json.dumps({"contender": name, "seconds": end - start, "peak_rss_mb": peak_mb, "points": points}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
