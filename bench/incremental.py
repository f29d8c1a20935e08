"""Run partitions measured: `python -m bench.incremental [--size 10M] [--added 1M] [--runs 3]`.

On the harness's generated data sets (bench/generate.py), each case in a fresh process (the clock covers the
materialisation of the observed layer: run partitions, observed tables, load points, delivered at SLO), the cases
interleaved run by run:

- cold, in-process: a fresh warehouse, every partition read in one process (the harness's "ours");
- cold, multiprocess: the same, the partitions read by job scan_dump_runs on the multiprocess executor (a process
  per step, at most one per core, forked from a server that imported Dagster and the definitions once), then the
  observed layer in-process finding every partition stored;
- cold, multiprocess, spawn (only when --cases names it): the same with each step process started afresh (Dagster's
  default start method: it imports Dagster and the definitions again);
- nothing changed: the observed layer again on a warehouse holding the --size set (a copy of it);
- add one sweep: the same warehouse, with one new sweep (the h100-vllm sweep of the --added set, under a label of
  its own) added to its dump folders;
- that sweep alone, cold: a fresh warehouse with only that sweep;
- run fingerprint, nothing changed: what `benchbill run` does before it finds nothing changed, with every dump
  file hashed (as before run partitions) and with the checksums the warehouse recorded;
- whole runs (when ../shared holds the real data): the whole `benchbill run` (every layer, the calibrated engine
  models and their held-out validation among them) cold over the --size set, then on a copy of that warehouse with
  one real 7-level sweep added (examples/dumps/vllm: its own config, so its run refits that config alone, which the
  run's output says and the table shows), against that sweep alone in a fresh warehouse.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import generate

REPO_ROOT = Path(__file__).resolve().parent.parent
ADDED_LABEL = "bench-added-sweep"
CASES = (
    "cold, in-process",
    "cold, multiprocess",
    "cold, multiprocess, spawn",
    "nothing changed",
    "add one sweep",
    "that sweep alone, cold",
    "fingerprint, hashing every file",
    "fingerprint, recorded checksums",
    "cold, whole run",
    "add one real sweep, whole run",
    "that real sweep alone, whole run",
)
WHOLE_RUN_CASES = CASES[-3:]
SHARED = REPO_ROOT.parent / "shared"
REAL_SWEEP = REPO_ROOT / "examples" / "dumps" / "vllm"  # one real 7-level sweep (its files link into ../shared)
MLPERF_TABLE = SHARED / "data" / "mlperf" / "summary" / "v5.1" / "summary_results.json"
# `python -m bench` (make bench) leaves out the spawn case: it only shows what the forkserver saves, and costs the
# most; `--cases` names it. It leaves out the whole runs too (minutes at 10M, and the small sets' levels are too
# short for the observed checks to pass); `python -m bench.incremental` runs them by default.
DEFAULT_CASES = tuple(c for c in CASES if c != "cold, multiprocess, spawn" and c not in WHOLE_RUN_CASES)
STANDALONE_CASES = DEFAULT_CASES + WHOLE_RUN_CASES


def added_sweep(data_root: Path, size: int, target: Path) -> Path:
    """A new sweep: the h100-vllm files of the `size` set linked into a folder whose run.yaml gives another label."""
    source = generate.ensure(data_root, size) / "h100-vllm"
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    run_yaml = (source / "run.yaml").read_text().replace("label: bench-h100-vllm", f"label: {ADDED_LABEL}")
    assert ADDED_LABEL in run_yaml, source / "run.yaml"
    (target / "run.yaml").write_text(run_yaml)
    for path in sorted(source.iterdir()):
        if path.name != "run.yaml":
            (target / path.name).symlink_to(path)
    return target


def materialize(
    dumps: list[str], warehouse: Path, profiles: Path, mode: str, start_method: str = "forkserver"
) -> tuple[float, float, list[dict] | None]:
    """(start, end, the partitions index the steps wrote) of the observed layer materialised into `warehouse`; `mode`
    multiprocess reads the partitions by job scan_dump_runs on the multiprocess executor first (its step processes
    started by `start_method`; the assembly after it then finds every partition stored, so the index it writes says
    none was read: the steps' own index, None in-process, is what the table reports)."""
    import dagster as dg

    from assets import observed, requirement, sql_tables
    from assets.resources import Inputs, RunStore, Warehouse
    from bench.contenders import OURS_TABLES

    inputs = Inputs(dumps=dumps, profiles=str(profiles))
    resources = {
        "warehouse": Warehouse(dir=str(warehouse)),
        "run_store": RunStore(dir=str(warehouse)),
        "inputs": inputs,
    }
    tables = [a for a in sql_tables.table_assets if ".".join(a.key.path) in OURS_TABLES]
    assets = [observed.run_partitions, observed.observed_runs, *tables, requirement.profiles]
    instance = dg.DagsterInstance.ephemeral()
    if mode == "multiprocess":  # loaded before the clock, as `benchbill run` has them when it starts the job
        import pipelines.definitions  # noqa: F401
        from pipelines.parallel import scan_in_processes
    start = time.perf_counter()
    by_steps = None
    if mode == "multiprocess":
        assert scan_in_processes(inputs, Warehouse(dir=str(warehouse)), "multiprocess", None, start_method).success
        by_steps = json.loads((warehouse / "runs" / "index.json").read_text())
    assert dg.materialize(assets, resources=resources, instance=instance, raise_on_error=True).success
    end = time.perf_counter()
    return start, end, by_steps


def fingerprint(dumps: list[str], warehouse: Path, recorded: bool) -> tuple[float, float]:
    from assets.inputs.files import Fetched, sha256_file
    from assets.resources import Inputs
    from assets.runs.partition_store import PartitionStore
    from assets.warehouse.fingerprint import code_fingerprint, inputs_fingerprint
    from assets.warehouse.layout import WarehouseLayout

    def no_urls(url: str) -> Fetched:
        raise AssertionError(f"{url}: the bench's inputs name no URL")

    code_fingerprint()  # once per process, as in a run: not what is measured
    start = time.perf_counter()
    checksum = PartitionStore(WarehouseLayout(warehouse)).checksums() if recorded else sha256_file
    inputs_fingerprint(Inputs(dumps=dumps), [], no_urls, checksum)
    return start, time.perf_counter()


def whole_run(dumps: list[str], warehouse: Path, profiles: Path) -> tuple[float, float, float]:
    """(start, end, CPU seconds of this process between them) of a whole `benchbill run` into `warehouse` (its CLI
    loaded before the clock, as the observed cases have Dagster loaded); it prints what it prints (the parent reads
    which configs were refitted)."""
    from pipelines.cli import main as benchbill

    args = ["run", "--warehouse", str(warehouse), "--profiles", str(profiles), "--mlperf", str(MLPERF_TABLE)]
    args += ["--allow-links-into", str(SHARED / "data")] + [a for d in dumps for a in ("--dumps", d)]
    start, cpu = time.perf_counter(), time.process_time()
    code = benchbill(args)
    end, cpu = time.perf_counter(), time.process_time() - cpu
    assert code == 0, f"benchbill {' '.join(args)} exited {code}"
    return start, end, cpu


def refitted_words(output: str) -> str:
    """What a whole run said of its engine models' fits: the calibrated step's summary line (its folded continuation
    lines joined, up to its end: "... stored fits reused" or "... none refitted"), or an empty string."""
    lines = output.splitlines()
    for index, line in enumerate(lines):
        if "engine models:" in line:
            found = line.split("engine models:", 1)[1].strip()
            for more in lines[index + 1 : index + 6]:
                if found.endswith(("stored fits reused", "none refitted")) or not more.startswith("    "):
                    break
                found += " " + more.strip()
            return found
    return ""


def one(case: str, spec: dict) -> dict:
    """One case in this process."""
    warehouse, profiles = Path(spec["warehouse"]), Path(spec["profiles"])
    by_steps, cpu = None, None
    if case in WHOLE_RUN_CASES:
        start, end, cpu = whole_run(spec["dumps"], warehouse, profiles)
    elif case.startswith("fingerprint"):
        start, end = fingerprint(spec["dumps"], warehouse, recorded=case.endswith("recorded checksums"))
    else:
        start, end, by_steps = materialize(
            spec["dumps"], warehouse, profiles, spec.get("mode", "in_process"), spec.get("start_method", "forkserver")
        )
    index = warehouse / "runs" / "index.json"
    partitions = json.loads(index.read_text()) if index.exists() and not case.startswith("fingerprint") else []
    partitions = by_steps if by_steps is not None else partitions
    return {
        "seconds": end - start,
        "cpu_seconds": cpu,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "partitions_read": sum(p["scanned"] for p in partitions),
        "partitions": len(partitions),
        "files_hashed": sum(p["files_hashed"] for p in partitions),
    }


def in_process_of_its_own(case: str, spec: dict) -> dict:
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as handle:
        out = Path(handle.name)
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
        "DAGSTER_HOME": tempfile.mkdtemp(prefix="bench-dagster-"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "bench.incremental", "--one", case, json.dumps(spec), str(out)],
        env=env,
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"bench.incremental: {case} failed:\n{done.stderr[-4000:]}\n{done.stdout[-4000:]}")
    result = json.loads(out.read_text())
    result["refitted"] = refitted_words(done.stderr + "\n" + done.stdout)
    out.unlink()
    return result


def copy_warehouse(base: Path, target: Path) -> Path:
    """A warehouse as `base` left it: the build file copied, the stored partitions, records and fits linked (they
    are never changed in place, only replaced)."""
    if target.exists():
        shutil.rmtree(target)
    ignore = shutil.ignore_patterns("*.duckdb*", ".benchbill.lock", "parquet")  # a run exports Parquet afresh
    shutil.copytree(base, target, copy_function=os.link, ignore=ignore)
    for name in ("build.duckdb",):
        if (base / name).exists():
            shutil.copy2(base / name, target / name)
    return target


def measure(
    size: int, added: int, runs: int, data_root: Path, work: Path, log=print, cases: tuple[str, ...] = DEFAULT_CASES
) -> list[dict]:
    """Every case (of `cases`; the cold in-process one always, the others start from its warehouse; a whole run with one
    sweep added starts from the cold whole run's) `runs` times,
    interleaved; per case the median seconds and peak memory, the runs and what the warehouse recorded (partitions
    read, files hashed; for the multiprocess case, by its steps)."""
    chosen = set(cases) | {"cold, in-process"}
    if chosen & set(WHOLE_RUN_CASES):
        if (REAL_SWEEP / "run.yaml").exists() and MLPERF_TABLE.exists():
            chosen.add("cold, whole run")  # the warehouse a sweep is added to
        else:
            log(f"whole runs left out: they need the real files under {SHARED} (the sweep and an MLPerf table)")
            chosen -= set(WHOLE_RUN_CASES)
    cases = tuple(c for c in CASES if c in chosen)
    data = generate.ensure(data_root, size, log=log)
    dumps = [str(p) for p in generate.dumps_dir(data)]
    sweep = added_sweep(data_root, added, work / "added-sweep")
    profiles = data / "profiles.yaml"
    base, whole_base = work / "base", work / "base-whole-run"
    if base.exists():
        shutil.rmtree(base)
    results: dict[str, list[dict]] = {case: [] for case in cases}
    for run in range(runs):
        for case in cases:
            log(f"{generate.size_label(size)} run {run + 1}/{runs}: {case} ...")
            target = work / "warehouse"
            if target.exists():
                shutil.rmtree(target)
            spec: dict = {"dumps": dumps, "profiles": str(profiles), "warehouse": str(target)}
            if case == "cold, in-process":
                spec["warehouse"] = str(base.with_name("base-next"))
            elif case.startswith("cold, multiprocess"):
                spec["mode"] = "multiprocess"
                spec["start_method"] = "spawn" if case.endswith("spawn") else "forkserver"
            elif case in ("nothing changed", "add one sweep") or case.startswith("fingerprint"):
                copy_warehouse(base, target)
                if case == "add one sweep":
                    spec["dumps"] = [*dumps, str(sweep)]
            elif case == "that sweep alone, cold":
                spec["dumps"] = [str(sweep)]
            elif case == "cold, whole run":
                spec["warehouse"] = str(whole_base)
            elif case == "add one real sweep, whole run":
                copy_warehouse(whole_base, target)
                spec["dumps"] = [*dumps, str(REAL_SWEEP)]
            elif case == "that real sweep alone, whole run":
                spec["dumps"] = [str(REAL_SWEEP)]
            if case == "cold, whole run" and whole_base.exists():
                shutil.rmtree(whole_base)
            results[case].append(in_process_of_its_own(case, spec))
            if case == "cold, in-process":  # the warehouse the other cases start from
                if base.exists():
                    shutil.rmtree(base)
                base.with_name("base-next").rename(base)
    rows = []
    for case in cases:
        found = results[case]
        rows.append(
            {
                "case": case,
                "seconds": statistics.median(r["seconds"] for r in found),
                "runs": [round(r["seconds"], 2) for r in found],
                "peak_mb": statistics.median(r["peak_rss_mb"] for r in found),
                "partitions_read": found[-1]["partitions_read"],
                "partitions": found[-1]["partitions"],
                "files_hashed": found[-1]["files_hashed"],
                "refitted": found[-1].get("refitted", ""),
                "cpu_seconds": [round(r["cpu_seconds"], 1) for r in found if r.get("cpu_seconds") is not None],
            }
        )
    return rows


RATIOS = (
    ("add one sweep", "that sweep alone, cold", "add one sweep to the warehouse / that sweep alone, cold"),
    (
        "add one real sweep, whole run",
        "that real sweep alone, whole run",
        "whole run: add one real sweep to the warehouse / that sweep alone, cold",
    ),
    ("nothing changed", "cold, in-process", "nothing changed / cold"),
    ("cold, multiprocess", "cold, in-process", "multiprocess / in-process, cold"),
    ("cold, multiprocess, spawn", "cold, in-process", "multiprocess with spawned step processes / in-process, cold"),
    (
        "fingerprint, recorded checksums",
        "fingerprint, hashing every file",
        "fingerprint: recorded / hashing every file",
    ),
)


def render(rows: list[dict], size: int, added: int) -> str:
    by_case = {r["case"]: r for r in rows}
    lines = [
        f"Run partitions: the observed layer over the {generate.size_label(size)} set (+ one sweep of the "
        f"{generate.size_label(added)} set's h100-vllm); whole runs: `benchbill run` over the same set (+ one real "
        "sweep, examples/dumps/vllm)",
        "",
        "| case | wall time (median) | runs (s) | peak memory | partitions read | files hashed |",
        "| --- | ---: | --- | ---: | ---: | ---: |",
    ]
    for row in rows:
        read = f"{row['partitions_read']} of {row['partitions']}" if row["partitions"] else ""
        hashed = str(row["files_hashed"]) if row["partitions"] else ""
        lines.append(
            f"| {row['case']} | {row['seconds']:.2f} s | {', '.join(map(str, row['runs']))} | "
            f"{row['peak_mb']:,.0f} MB | {read} | {hashed} |"
        )
    lines.append("")
    for row in rows:
        if row.get("cpu_seconds"):  # a whole run: its CPU time (a loaded machine stretches the wall time)
            cpu = ", ".join(f"{c:.1f}" for c in row["cpu_seconds"])
            lines.append(f"- {row['case']}: {cpu} s CPU; engine models: {row['refitted'] or 'not said'}")
    for numerator, denominator, label in RATIOS:
        if numerator in by_case and denominator in by_case:
            lines.append(f"- {label}: {by_case[numerator]['seconds'] / by_case[denominator]['seconds']:.2f}x")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--one":
        Path(argv[3]).write_text(json.dumps(one(argv[1], json.loads(argv[2]))))
        return 0
    parser = argparse.ArgumentParser(prog="python -m bench.incremental", description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="10M", help="requests in the warehouse's data set")
    parser.add_argument("--added", default="1M", help="the data set whose h100-vllm sweep is added")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cases", default=";".join(STANDALONE_CASES), help="which cases, separated by ';'")
    parser.add_argument("--data", default=str(Path(tempfile.gettempdir()) / "benchbill-bench"))
    args = parser.parse_args(argv)
    size, added = generate.parse_size(args.size), generate.parse_size(args.added)
    with tempfile.TemporaryDirectory(prefix="bench-incremental-") as work:
        cases = tuple(c.strip() for c in args.cases.split(";"))
        unknown = [c for c in cases if c not in CASES]
        if unknown:
            parser.error(f"unknown cases {unknown}; choose from {list(CASES)}")
        rows = measure(
            size, added, args.runs, Path(args.data), Path(work), log=lambda m: print(m, file=sys.stderr), cases=cases
        )
    print(render(rows, size, added))
    return 0


if __name__ == "__main__":
    sys.exit(main())
