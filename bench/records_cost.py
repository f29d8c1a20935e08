"""What owning the per-request records costs: `python -m bench.records_cost [--size 1M] [--runs 2]`.

On the harness's generated data set (bench/generate.py), in one process and interleaved, the observed tables are
built with the per-request files read in place (the library's default) and with them copied into a warehouse
records folder (what `benchbill run` does, `assets.runs.store.own_records`); prints the wall time of reading the
dumps and of writing the tables, and the size of the copies. Every build starts from an empty records folder: a
build whose files are unchanged reuses the copies and pays none of this."""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import duckdb

from assets.runs.collect import collect_all
from assets.runs.store import write_observed
from bench.generate import dumps_dir, ensure, parse_size, total_bytes

MODES = ("read in place", "owned")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", default="1M", help="requests in the data set (10k, 1M, 10M)")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--data", default=str(Path(tempfile.gettempdir()) / "benchbill-bench"))
    args = parser.parse_args(argv)
    data = ensure(Path(args.data), parse_size(args.size))
    dumps = [str(p) for p in dumps_dir(data)]
    print(f"{args.size} requests, {total_bytes(data) / 2**20:.0f} MB of dumps")
    for run in range(args.runs):
        for mode in MODES:
            start = time.perf_counter()
            batch = collect_all(dumps)
            read = time.perf_counter()
            folder = Path(tempfile.mkdtemp(prefix="bench-records-"))
            with duckdb.connect(str(folder / "build.duckdb")) as conn:
                write_observed(conn, batch, folder / "records" if mode == "owned" else None)
            written = time.perf_counter()
            copies = sum(p.stat().st_size for p in (folder / "records").glob("*.parquet")) / 2**20
            print(
                f"run {run} {mode:13s} read {read - start:6.2f} s  write {written - read:6.2f} s  "
                f"total {written - start:6.2f} s  copies {copies:.0f} MB"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
