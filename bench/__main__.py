"""The benchmark harness: `python -m bench [--sizes 1M,10M] [--runs 3] [--contenders ours,duckdb,pandas]`.

For each size it generates the data set once (bench/generate.py, cached below --data), then runs every
contender --runs times, each run in a fresh process (bench/contenders.py), interleaved so that a slow
moment of the machine hits all of them alike. It reports the median wall time of the computation, the
median process start-up (interpreter and imports, measured from outside), and the median peak resident
memory; checks that the contenders found the same percentiles; and writes the table as markdown
(--output, default bench/results.md) and prints it. It also fits the exponent of ours' cost against size
(time ~ size^b) when there are two sizes or more.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import generate

REPO_ROOT = Path(__file__).resolve().parent.parent
CONTENDER_NAMES = {
    "ours": "benchbill observed layer",
    "duckdb": "reference: one DuckDB query",
    "pandas": "peer: pandas notebook",
}


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    import duckdb
    import polars

    return (
        f"{cpu}, {os.cpu_count()} cores, {memory:.0f} GiB; Python {platform.python_version()}, "
        f"DuckDB {duckdb.__version__}, polars {polars.__version__}"
    )


def run_once(name: str, data: Path, tree: Path = REPO_ROOT) -> dict:
    """One contender of the checkout `tree` (this one by default) in its own process: its own timing, and the
    process's start-up measured from here."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as handle:
        out = Path(handle.name)
    env = {
        **os.environ,
        "PYTHONPATH": str(tree) + os.pathsep + os.environ.get("PYTHONPATH", ""),
        "DAGSTER_HOME": tempfile.mkdtemp(prefix="bench-dagster-"),
    }
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "bench.contenders", name, str(data), str(out)],
        env=env,
        cwd=tree,
        capture_output=True,
        text=True,
    )
    total = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"bench: {name} of {tree} failed on {data}:\n{done.stderr[-4000:]}")
    result = json.loads(out.read_text())
    out.unlink()
    result["process_seconds"] = total
    return result


def agree(results: dict[str, dict]) -> str:
    """Whether every contender found the same successful requests and p95s per load point."""
    keyed = {name: {(p["config"], round(p["level"], 6)): p for p in r["points"]} for name, r in results.items()}
    names = list(keyed)
    base = keyed[names[0]]
    worst = 0.0
    for name in names[1:]:
        if keyed[name].keys() != base.keys():
            return f"no: {name} has other load points than {names[0]}"
        for key, point in base.items():
            other = keyed[name][key]
            if other["requests_ok"] != point["requests_ok"]:
                return f"no: {name} counts {other['requests_ok']} requests at {key}, {names[0]} {point['requests_ok']}"
            for column in ("ttft_p95_ms", "tpot_p95_ms"):
                a, b = point[column], other[column]
                worst = max(worst, abs(a - b) / max(abs(a), 1e-12))
    return f"yes ({len(base)} load points; largest relative difference of a p95: {worst:.1e})"


def fit_exponent(sizes: list[int], seconds: list[float]) -> float | None:
    """b in time = a * size^b, least squares on logs."""
    if len(sizes) < 2:
        return None
    xs, ys = [math.log(s) for s in sizes], [math.log(t) for t in seconds]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1M,10M", help="requests per data set, comma-separated (10k, 1M, 10M)")
    parser.add_argument("--runs", type=int, default=3, help="runs of each contender per size (the median is kept)")
    parser.add_argument("--contenders", default="ours,duckdb,pandas", help="which contenders, comma-separated")
    parser.add_argument(
        "--data",
        default=str(Path(tempfile.gettempdir()) / "benchbill-bench"),
        help="where generated data sets are kept (reused while the generator is unchanged)",
    )
    parser.add_argument("--output", default=str(REPO_ROOT / "bench" / "results.md"), help="markdown table to write")
    parser.add_argument(
        "--partitions",
        default="auto",
        metavar="SIZE[+ADDED]",
        help="the run-partition rows (bench/incremental.py): a warehouse of SIZE requests, one sweep of the ADDED "
        "set added; auto: the largest and the smallest of --sizes (one tenth of it if only one); none: skip",
    )
    parser.add_argument(
        "--calibrated",
        default="auto",
        choices=["auto", "none"],
        help="the calibrated engine model's rows (bench/calibrated.py): make run's configs calibrated, 1M-request "
        "replays of the shared Azure traces; auto: when ../shared holds them; none: skip",
    )
    args = parser.parse_args(argv)
    sizes = [generate.parse_size(s) for s in args.sizes.split(",")]
    names = [n.strip() for n in args.contenders.split(",")]
    unknown = [n for n in names if n not in CONTENDER_NAMES]
    if unknown:
        parser.error(f"unknown contenders {unknown}; choose from {list(CONTENDER_NAMES)}")

    rows, checks, ours_medians = [], [], []
    for size in sizes:
        data = generate.ensure(Path(args.data), size, log=lambda m: print(m, file=sys.stderr))
        megabytes = generate.total_bytes(data) / 1e6
        runs: dict[str, list[dict]] = {n: [] for n in names}
        for run in range(args.runs):
            for name in names:
                print(f"{generate.size_label(size)} run {run + 1}/{args.runs}: {name} ...", file=sys.stderr, flush=True)
                runs[name].append(run_once(name, data))
        medians = {n: statistics.median(r["seconds"] for r in runs[n]) for n in names}
        for name in names:
            rows.append(
                {
                    "size": generate.size_label(size),
                    "requests": size,
                    "megabytes": megabytes,
                    "contender": name,
                    "seconds": medians[name],
                    "startup": statistics.median(r["process_seconds"] - r["seconds"] for r in runs[name]),
                    "peak_mb": statistics.median(r["peak_rss_mb"] for r in runs[name]),
                    "runs": [round(r["seconds"], 3) for r in runs[name]],
                }
            )
        checks.append(
            f"{generate.size_label(size)}: contenders agree on requests and p95s: "
            + agree({n: runs[n][0] for n in names})
        )
        if "ours" in names:
            ours_medians.append(medians["ours"])
    table = render(rows, names)
    exponent = fit_exponent(sizes, ours_medians) if "ours" in names else None
    notes = [
        f"Machine: {machine()}.",
        f"Command: `python -m bench --sizes {args.sizes} --runs {args.runs} --contenders {','.join(names)}`.",
        *checks,
    ]
    if exponent is not None:
        notes.append(
            f"Ours' cost against size: time ~ size^{exponent:.2f} ({', '.join(generate.size_label(s) for s in sizes)})."
        )
        if len(sizes) >= 3 and sizes[0] <= 100_000:  # the smallest size measures the fixed cost
            variable = fit_exponent(sizes[1:], [t - ours_medians[0] for t in ours_medians[1:]])
            notes.append(
                f"Ours' cost beyond its fixed cost (its time at {generate.size_label(sizes[0])}, "
                f"{ours_medians[0]:.2f} s): ~ size^{variable:.2f} "
                f"({', '.join(generate.size_label(s) for s in sizes[1:])})."
            )
    text = table + "\n\n" + "\n".join(f"- {n}" for n in notes) + "\n"
    if args.partitions != "none":
        from bench import incremental

        if args.partitions == "auto":
            size, added = max(sizes), (min(sizes) if len(sizes) > 1 else max(1000, max(sizes) // 10))
        else:
            size_text, _, added_text = args.partitions.partition("+")
            size = generate.parse_size(size_text)
            added = generate.parse_size(added_text) if added_text else max(1000, size // 10)
        with tempfile.TemporaryDirectory(prefix="bench-incremental-") as work:
            partition_rows = incremental.measure(
                size, added, args.runs, Path(args.data), Path(work), log=lambda m: print(m, file=sys.stderr)
            )
        text += "\n" + incremental.render(partition_rows, size, added) + "\n"
    if args.calibrated == "auto":
        from bench import calibrated

        shared = REPO_ROOT.parent / "shared"
        if (shared / "data" / "traffic").is_dir():
            text += "\n" + calibrated.measure(args.runs, shared, log=lambda m: print(m, file=sys.stderr)) + "\n"
        else:
            text += f"\nThe calibrated engine model's rows need the shared data ({shared}/data): skipped.\n"
    Path(args.output).write_text(text)
    print(text)
    return 0


def render(rows: list[dict], names: list[str]) -> str:
    """The markdown table: per size and contender, median wall and memory, and ratios to the reference."""
    lines = [
        "| requests | data | contender | wall time (median) | runs (s) | start-up | peak memory | "
        "vs DuckDB reference | vs pandas peer |",
        "| ---: | ---: | --- | ---: | --- | ---: | ---: | ---: | ---: |",
    ]
    by_size: dict[str, dict[str, dict]] = {}
    for row in rows:
        by_size.setdefault(row["size"], {})[row["contender"]] = row
    for size, found in by_size.items():
        for name in names:
            row = found[name]
            ref, peer = found.get("duckdb"), found.get("pandas")
            vs_ref = f"{row['seconds'] / ref['seconds']:.2f}x" if ref else ""
            vs_peer = f"{peer['seconds'] / row['seconds']:.1f}x faster" if peer and name != "pandas" else ""
            lines.append(
                f"| {size} | {row['megabytes']:,.0f} MB | {CONTENDER_NAMES[name]} | {row['seconds']:.2f} s | "
                f"{', '.join(map(str, row['runs']))} | {row['startup']:.1f} s | "
                f"{row['peak_mb']:,.0f} MB | {vs_ref} | {vs_peer} |"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
