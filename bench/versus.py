"""Ours against ours: `python -m bench.versus --other PATH [--sizes 1M,10M] [--runs 2]`.

The observed layer of this checkout against that of another checkout of the repository (e.g. the code before a
change, made with `git worktree add ../before <rev>`), and the DuckDB reference, each run in a fresh process by
bench.contenders and interleaved (other, this, reference), so a slow moment of a shared machine hits all three
alike. Prints per size the median wall times, the ratios to the reference, the peak memory, and whether both
checkouts found identical load points (requests and p95s of every point)."""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from bench import generate
from bench.__main__ import run_once

REPO_ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.versus", description=__doc__.split("\n\n")[0])
    parser.add_argument("--other", required=True, help="another checkout of this repository (its bench/ is used)")
    parser.add_argument("--sizes", default="1M,10M", help="requests per data set, comma-separated")
    parser.add_argument("--runs", type=int, default=2, help="runs of each contender per size (the median is kept)")
    parser.add_argument("--data", default=str(Path(tempfile.gettempdir()) / "benchbill-bench"))
    args = parser.parse_args(argv)
    other = Path(args.other).resolve()
    if not (other / "bench" / "contenders.py").is_file():
        parser.error(f"{other}: not a checkout of this repository (no bench/contenders.py)")
    cases = (("other", other, "ours"), ("this", REPO_ROOT, "ours"), ("reference", REPO_ROOT, "duckdb"))
    for size in [generate.parse_size(s) for s in args.sizes.split(",")]:
        data = generate.ensure(Path(args.data), size, log=lambda m: print(m, file=sys.stderr))
        results: dict[str, list[dict]] = {label: [] for label, _tree, _name in cases}
        for run in range(args.runs):
            for label, tree, name in cases:
                found = run_once(name, data, tree)
                results[label].append(found)
                print(
                    f"{generate.size_label(size)} run {run + 1}: {label} {found['seconds']:.2f} s, "
                    f"{found['peak_rss_mb']:.0f} MB (load {os.getloadavg()[0]:.1f})",
                    file=sys.stderr,
                    flush=True,
                )
        median = {label: statistics.median(r["seconds"] for r in runs) for label, runs in results.items()}
        peak = {label: max(r["peak_rss_mb"] for r in runs) for label, runs in results.items()}
        same = results["other"][-1]["points"] == results["this"][-1]["points"]
        print(f"{generate.size_label(size)} requests ({args.runs} runs, medians):")
        for label, tree, _name in cases:
            print(
                f"  {label:9} {median[label]:8.2f} s  {median[label] / median['reference']:5.2f}x the reference  "
                f"peak {peak[label]:,.0f} MB  ({tree})"
            )
        print(f"  identical load points in both checkouts: {'yes' if same else 'NO'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
