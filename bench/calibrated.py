"""The calibrated engine model's speed: `python -m bench.calibrated [--runs 1] [--shared ../shared]`.

In one process, on the observed tables of `make run`'s dumps (examples/dumps: the two inference-perf sweeps) and the
bundled profiles:

- calibration of every config (fits and held-out refits: calibrated.engine_models, calibrated.validation), then our
  traffic through every config (calibrated.latency_curve, calibrated.delivered_at_slo), then the variants of
  calibrated.cost_sensitivity (prompts and answers x0.5 and x2, Poisson arrivals, each one's SLO rate by bisection):
  what the model adds to `make run`, each step timed side by side;
- the cost sensitivity of the real Azure code trace (a log: six variants, Poisson arrivals among them) through the
  first config;
- one replay of 1,000,000 requests of each real Azure LLM inference trace (../shared/data/traffic: conversation
  and code) through the first config's engine model, the log tiled and compressed in time to 70% of the config's
  saturation on its token mix; and of a 3,000,000-request log (the code trace tiled), which past 1,000,000 is
  sampled in windows (project.REPLAY_MAX).

Prints a markdown table (the `make bench` harness appends it to its results).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import duckdb
import numpy as np

from assets.calibrate import project, sensitivity
from assets.calibrate.cost_sensitivity import all_rate_rows
from assets.calibrate.our_traffic import params_of, write_projections
from assets.calibrate.tables import write_calibrated
from assets.calibrate.traffic import scale_trace
from assets.calibrate.workload import write_workload
from assets.config.profiles import read_profiles, write_profiles
from assets.core.paths import DEFAULT_PROFILES
from assets.request_records.traffic_shape import read_traffic_arrivals, write_traffic
from assets.runs.collect import collect_all
from assets.runs.store import write_observed
from assets.warehouse.sqlfiles import run_sql_file
from assets.warehouse.write import write_table
from schemas.observed.load_point_measures import LoadPointMeasures
from schemas.observed.load_points import LoadPoints

REPO_ROOT = Path(__file__).resolve().parent.parent
TRACES = ("conv", "code")


def observed_warehouse(path: Path, shared: Path) -> duckdb.DuckDBPyConnection:
    """The observed tables, profiles and their resolved workloads `make run` builds from examples/dumps, on a DuckDB
    file of its own."""
    batch = collect_all([str(REPO_ROOT / "examples" / "dumps")], links_into=[str(shared / "data")])
    conn = duckdb.connect(str(path))
    write_observed(conn, batch)
    measures = run_sql_file(conn, "observed/load_point_measures.sql")
    write_table(conn, "observed.load_point_measures", measures, LoadPointMeasures)
    write_table(conn, "observed.load_points", run_sql_file(conn, "observed/load_points.sql"), LoadPoints)
    rows, bounds, file = read_profiles(DEFAULT_PROFILES)
    write_profiles(conn, rows, bounds, file)
    write_traffic(conn, lambda _line: None)
    write_workload(conn)
    return conn


def time_make_run_calibration(conn: duckdb.DuckDBPyConnection) -> dict[str, float]:
    start, cpu0 = time.perf_counter(), time.process_time()
    write_calibrated(conn)
    fitted, cpu1 = time.perf_counter(), time.process_time()
    write_projections(conn)
    done, cpu2 = time.perf_counter(), time.process_time()
    all_rate_rows(conn)
    varied, cpu3 = time.perf_counter(), time.process_time()
    configs = conn.sql("SELECT count(*) FROM calibrated.engine_models").fetchone()
    curves = conn.sql("SELECT count(*) FROM calibrated.delivered_at_slo").fetchone()
    return {
        "fit": fitted - start,
        "project": done - fitted,
        "sensitivity": varied - done,
        "total": varied - start,
        "cpu_fit": cpu1 - cpu0,
        "cpu_project": cpu2 - cpu1,
        "cpu_sensitivity": cpu3 - cpu2,
        "configs": float(configs[0] if configs else 0),
        "pairs": float(curves[0] if curves else 0),
    }


def trace_traffic(path: Path) -> project.Traffic:
    log = read_traffic_arrivals(str(path))
    columns = [log.get_column(c).to_numpy() for c in ("start_offset_s", "input_tokens", "output_tokens")]
    return project.from_log(columns[0], columns[1], columns[2], path.name)


def time_replay(p, traffic: project.Traffic, requests: int) -> dict[str, float | str]:
    rate = 0.7 * project.saturation_rate(p, traffic)
    start, cpu = time.perf_counter(), time.process_time()
    summary = project.replay(p, traffic, rate, requests=requests)
    seconds = time.perf_counter() - start
    return {
        "seconds": seconds,
        "cpu": time.process_time() - cpu,
        "rate": rate,
        "ttft_p50": summary["ttft_p50_ms"],
        "ttft_p99": summary["ttft_p99_ms"],
        "achieved": summary["achieved_requests_per_s"],
        "sample": summary["traffic_sample"],
    }


def time_sensitivity(p, traffic: project.Traffic, runs: int, log=print) -> str:
    """The cost sensitivity's variants of a log (its six SLO rates by bisection) through `p`: one table row."""
    bounds = {"ttft_p95_ms": 1000.0, "tpot_p95_ms": 50.0, "error_rate": 0.01}
    seconds, cpu = [], []
    for run in range(runs):
        log(f"cost sensitivity of {traffic.trace.source if traffic.trace else 'a log'}, run {run + 1}/{runs} ...")
        start, cpu0 = time.perf_counter(), time.process_time()
        found = sensitivity.variants(p, traffic, bounds)
        seconds.append(time.perf_counter() - start)
        cpu.append(time.process_time() - cpu0)
    ratios = ", ".join(f"{v.variant} {v.rate_ratio:.2f}" for v in found)
    return (
        f"| cost sensitivity of the Azure code log | {len(found)} variants' SLO rates by bisection "
        f"({sensitivity.BISECTION_STEPS} steps of {sensitivity.SENSITIVITY_REQUESTS:,} requests) | "
        f"{statistics.median(seconds):.2f} s | {_runs(seconds)} | {statistics.median(cpu):.2f} s | "
        f"rate over our mix's: {ratios} |"
    )


def _runs(seconds) -> str:
    return ", ".join(f"{s:.2f}" for s in seconds)


def measure(runs: int, shared: Path, log=print) -> str:
    """Every case `runs` times (medians); the markdown table."""
    lines = [
        "| case | what | wall time (median) | runs (s) | CPU time | result |",
        "| --- | --- | ---: | --- | ---: | --- |",
    ]
    with tempfile.TemporaryDirectory(prefix="bench-calibrated-") as work:
        conn = observed_warehouse(Path(work) / "build.duckdb", shared)
        timings = []
        for run in range(runs):
            log(f"calibration of make run's configs, run {run + 1}/{runs} ...")
            timings.append(time_make_run_calibration(conn))
        t = timings[0]
        lines.append(
            f"| make run's configs | fit + held-out refits, then our traffic through each "
            f"({t['configs']:.0f} configs, {t['pairs']:.0f} profile x config) | "
            f"{statistics.median(x['total'] for x in timings):.2f} s | "
            f"{_runs(x['total'] for x in timings)} | "
            f"{statistics.median(x['cpu_fit'] + x['cpu_project'] + x['cpu_sensitivity'] for x in timings):.2f} s | "
            f"fits {statistics.median(x['fit'] for x in timings):.2f} s, curves and bands "
            f"{statistics.median(x['project'] for x in timings):.2f} s, cost sensitivity "
            f"{statistics.median(x['sensitivity'] for x in timings):.2f} s (CPU "
            f"{statistics.median(x['cpu_fit'] for x in timings):.2f}, "
            f"{statistics.median(x['cpu_project'] for x in timings):.2f} and "
            f"{statistics.median(x['cpu_sensitivity'] for x in timings):.2f} s) |"
        )
        model = conn.sql("SELECT * FROM calibrated.engine_models ORDER BY config_key").pl().row(0, named=True)
        conn.close()
    p = params_of(model)
    for kind in TRACES:
        path = shared / "data" / "traffic" / "azure-llm-inference-2023" / f"AzureLLMInferenceTrace_{kind}.csv"
        traffic = trace_traffic(path)
        cases = [(f"Azure {kind} log, 1M requests", traffic, 1_000_000)]
        if kind == "code":
            big = scale_trace(traffic.trace, traffic.trace.rate, 3_000_000) if traffic.trace is not None else None
            assert big is not None
            long_log = project.from_log(big.t, big.input_tokens, big.output_tokens, f"{path.name} x3M")
            cases.append(("a 3M-request log (the code log tiled)", long_log, 3_000_000))
        if kind == "code":
            lines.append(time_sensitivity(p, traffic, runs, log))
        for name, tr, requests in cases:
            results = []
            for run in range(runs):
                log(f"{name}, run {run + 1}/{runs} ...")
                results.append(time_replay(p, tr, requests))
            r = results[0]
            lines.append(
                f"| {name} | replay through {model['config_label']} ({model['run_labels']}) at "
                f"{r['rate']:.1f} req/s (70% of saturation), inter-arrival CV {tr.interarrival_cv:.1f}; "
                f"{r['sample']} | {statistics.median(float(x['seconds']) for x in results):.2f} s | "
                f"{_runs(float(x['seconds']) for x in results)} | "
                f"{statistics.median(float(x['cpu']) for x in results):.2f} s | p50 / p99 TTFT "
                f"{float(r['ttft_p50']):,.0f} / {float(r['ttft_p99']):,.0f} ms, "
                f"achieved {float(r['achieved']):.1f} req/s |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.calibrated", description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--shared", default=str(REPO_ROOT.parent / "shared"), help="the shared data folder")
    args = parser.parse_args(argv)
    np.seterr(all="ignore")
    print(measure(args.runs, Path(args.shared)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
