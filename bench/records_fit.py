"""What per-request records cost the calibration: `python -m bench.records_fit [--records 1000000] [--levels 5]`.

A generated case in an in-memory warehouse: two configs with the same load levels (rates 1-30 req/s, their latencies
simulated by the engine model with known step costs), one with every level's per-request records in
observed.requests (`--records` in all), one with its level summaries only. Prints the wall time of reading the
configs (`read_configs`) and the wall and CPU time of fitting and validating each (`calibrate_config`, one process:
the CPU time is the steadier figure on a shared machine): with the records summarised
before the fit (assets/calibrate/record_lengths.py), the two cost about the same."""

from __future__ import annotations

import argparse
import json
import math
import time

import duckdb
import numpy as np
import polars as pl

from assets.calibrate.engine import EngineParams
from assets.calibrate.fit import simulate_level
from assets.calibrate.levels import Level, read_configs
from assets.calibrate.tables import calibrate_config
from assets.calibrate.traffic import Lengths

TRUTH = EngineParams(6.0, 0.02, 0.1, 0.0006, ttft_overhead_ms=20.0)
RATES = (1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0)


def _run(run_id: str, settings: dict) -> dict:
    """An observed.runs row of one config (its settings tell the two configs apart)."""
    return {
        "run_id": run_id,
        "run_label": run_id,
        "tool": "vllm",
        "accelerator_raw": "H100",
        "accelerator_id": "nvidia-h100-sxm-80gb",
        "accelerator_count": 1,
        "model_raw": "llama",
        "model_id": "llama-3.1-8b",
        "precision": "bf16",
        "runtime": "vLLM",
        "runtime_version": "0.11.0",
        "runtime_settings": json.dumps(settings),
        "workload": json.dumps({"dataset_name": "random"}),
        "arrival": "poisson",
    }


def warehouse(records: int, levels: int) -> duckdb.DuckDBPyConnection:
    """The two configs' runs, load points and (for one) per-request records."""
    per_level = records // levels
    rng = np.random.default_rng(3)
    points, requests = [], []
    for run_id, with_records in (("with-records", True), ("summaries-only", False)):
        for index, rate in enumerate(RATES[:levels]):
            inp, out = rng.integers(100, 400, per_level), rng.integers(20, 200, per_level)
            lv = Level("k", run_id, run_id, "w", index, "rate", rate, None, per_level, 1.0, math.inf,
                       Lengths.fixed(float(inp.mean())), Lengths.fixed(float(out.mean())), {})  # fmt: skip
            simulated = simulate_level(TRUTH, lv)
            point = {f"{m}_p{q}_ms": simulated.get(f"{m}_p{q}_ms") for m in ("ttft", "tpot", "itl", "e2e")
                     for q in (50, 90, 95, 99)}  # fmt: skip
            point.update(run_id=run_id, load_index=index, load_kind="rate", offered_rate_per_s=rate, concurrency=None,
                         repeats=1, requests_sent=per_level, requests_ok=per_level, max_concurrency=None,
                         achieved_requests_per_s=simulated["achieved_requests_per_s"], error_rate=0.0,
                         input_tokens_mean=float(inp.mean()), output_tokens_mean=float(out.mean()))  # fmt: skip
            points.append(point)
            if with_records:
                requests.append(pl.DataFrame({"run_id": run_id, "load_index": index, "input_tokens": inp,
                                              "output_tokens": out, "status": "ok", "phase": "measure"}))  # fmt: skip
    conn = duckdb.connect()
    conn.execute("CREATE SCHEMA observed")
    runs = pl.DataFrame([_run("with-records", {"n": 1}), _run("summaries-only", {"n": 2})])
    load_points = pl.DataFrame(points, infer_schema_length=None)
    request_rows = pl.concat(requests)
    for name, frame in (("runs", runs), ("load_points", load_points), ("requests", request_rows)):
        conn.register("frame", frame)
        conn.execute(f"CREATE TABLE observed.{name} AS SELECT * FROM frame")
        conn.unregister("frame")
    return conn


def main(argv: list[str] | None = None) -> int:
    """Build the case, read its configs and fit each, printing the times."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--levels", type=int, default=5)
    args = parser.parse_args(argv)
    conn = warehouse(args.records, args.levels)
    start = time.perf_counter()
    configs = read_configs(conn)
    print(f"read_configs: {time.perf_counter() - start:.2f} s ({args.records:,} records in {args.levels} levels)")
    for cfg in configs:
        start, cpu = time.perf_counter(), time.process_time()
        result = calibrate_config(cfg)
        fit = result.fit
        said = f"b0 {fit.params.b0_ms:.3g} ms, {fit.sims} simulations in the fit" if fit else "not fitted"
        wall, used = time.perf_counter() - start, time.process_time() - cpu
        print(f"{cfg.run_labels[0]}: {wall:.2f} s wall, {used:.2f} s CPU, {result.status}, {said}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
