"""Synthetic per-request benchmark dumps at a given size, in the formats benchbill ingests.

Four configs, each a `run.yaml` folder the way a team files its runs:

| folder | accelerator, runtime | format | load | repeats |
| --- | --- | --- | --- | --- |
| `h100-vllm` | H100, vLLM, bf16 | generic per-request Parquet, one file per load level x repeat | 8 Poisson rates | 2 |
| `h200-sglang` | H200, SGLang, fp8 | generic per-request CSV, one file per repeat, every level | 8 Poisson rates | 2 |
| `mi300x-vllm` | MI300X, vLLM, bf16 | AIPerf `profile_export{.jsonl,_aiperf.json}` per level | 8 Poisson rates | 1 |
| `l40s-vllm` | L40S, vLLM, bf16 | generic per-request Parquet, closed loop | 8 concurrencies | 1 |

Requests: log-normal input (median 512) and output (median 180) token counts; TTFT grows with the
queueing factor rho / (1 - rho) of the load level, TPOT with rho^2, both with log-normal noise;
E2E = TTFT + TPOT x (output - 1); errors become more frequent near saturation; the first 0.5% of
each file is warm-up. Arrivals are Poisson at the offered rate. Every value comes from a hash of
(request, stream, seed), so a size and seed always give the same bytes, and DuckDB writes the files
on all cores without ever holding them as Python objects.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import duckdb

GENERATOR_VERSION = "1"
LOAD_FRACTIONS = (0.2, 0.35, 0.5, 0.62, 0.74, 0.84, 0.92, 0.98)  # of the config's capacity
CONCURRENCIES = (1, 2, 4, 8, 16, 32, 64, 128)
WARMUP_FRACTION = 0.005
BASE_UNIX_S = 1_790_000_000.0


@dataclass(frozen=True)
class Config:
    folder: str
    accelerator: str
    runtime: str
    runtime_version: str
    precision: str
    arrival: str
    layout: str  # parquet | csv | aiperf | parquet-concurrency
    share: float  # of all requests
    repeats: int
    capacity_per_s: float  # the request rate at which the server saturates
    tpot_base_ms: float


CONFIGS = (
    Config("h100-vllm", "NVIDIA H100 80GB HBM3", "vLLM", "0.11.0", "bf16", "poisson", "parquet", 0.35, 2, 100.0, 9.0),
    Config("h200-sglang", "NVIDIA H200", "SGLang", "0.5.3", "fp8", "poisson", "csv", 0.25, 2, 160.0, 7.0),
    Config("mi300x-vllm", "AMD Instinct MI300X", "vLLM", "0.11.0", "bf16", "poisson", "aiperf", 0.20, 1, 120.0, 8.0),
    Config(
        "l40s-vllm", "NVIDIA L40S", "vLLM", "0.11.0", "bf16", "concurrency", "parquet-concurrency", 0.20, 1, 30.0, 22.0
    ),
)
MODEL = "meta-llama/Llama-3.1-8B-Instruct"

# A profile the generated runs are judged against (benchbill's profiles YAML).
PROFILES_YAML = """\
profiles:
  - name: bench-chat-8b
    model: llama3.1-8b
    slo: {ttft_p95_ms: 1000, tpot_p95_ms: 50}
    delivered_fraction_prior: [0.5, 0.8]
"""
SLO = {"ttft_p95_ms": 1000.0, "tpot_p95_ms": 50.0}


def parse_size(text: str) -> int:
    """'10k', '1M', '10M' or a plain number of requests."""
    text = text.strip().upper()
    scale = {"K": 1_000, "M": 1_000_000}.get(text[-1:], 1)
    return int(float(text[:-1] if scale > 1 else text) * scale)


def size_label(requests: int) -> str:
    for scale, suffix in ((1_000_000, "M"), (1_000, "k")):
        if requests >= scale and requests % scale == 0:
            return f"{requests // scale}{suffix}"
    return str(requests)


def _uniform(stream: int, seed: int) -> str:
    """A uniform (0, 1) value per request `i` from a hash: deterministic on any number of threads."""
    return f"((hash(i, {stream}, {seed}) % 4294967291) + 0.5) / 4294967291.0"


def _normal(stream: int, seed: int) -> str:
    return f"(sqrt(-2 * ln({_uniform(stream, seed)})) * cos(2 * pi() * {_uniform(stream + 1, seed)}))"


def _requests_sql(n: int, rate_per_s: float, rho: float, tpot_base_ms: float, seed: int, level: str) -> str:
    """One file's requests as SQL: start time, tokens, TTFT, E2E, status, phase (generic columns)."""
    rho = min(rho, 0.985)
    queueing = rho / (1 - rho)
    warmup = max(1, int(n * WARMUP_FRACTION))
    return f"""
    WITH base AS (
        SELECT i,
               -ln({_uniform(1, seed)}) / {rate_per_s} AS gap_s,
               greatest(1, least(32768, round(exp(ln(512) + 0.7 * {_normal(2, seed)}))))::BIGINT AS input_tokens,
               greatest(1, least(4096, round(exp(ln(180) + 0.8 * {_normal(4, seed)}))))::BIGINT AS output_tokens,
               exp(0.25 * {_normal(6, seed)}) AS ttft_noise,
               exp(0.15 * {_normal(8, seed)}) AS tpot_noise,
               {_uniform(10, seed)} AS error_draw
        FROM range({n}) AS t(i)
    ),
    timed AS (
        SELECT *, (20 + 0.05 * input_tokens) * (1 + 2.5 * {queueing}) * ttft_noise AS ttft,
               {tpot_base_ms} * (1 + 1.5 * {rho} * {rho}) * tpot_noise AS tpot,
               error_draw < 0.002 + 0.05 * greatest(0, {rho} - 0.9) AS failed
        FROM base
    )
    SELECT {BASE_UNIX_S} + sum(gap_s) OVER (ORDER BY i ROWS UNBOUNDED PRECEDING) AS start_time_unix_s,
           input_tokens, output_tokens,
           CASE WHEN failed THEN NULL ELSE round(ttft, 3) END AS ttft_ms,
           CASE WHEN failed THEN NULL ELSE round(ttft + tpot * (output_tokens - 1), 3) END AS e2e_ms,
           CASE WHEN failed THEN 'error' ELSE 'ok' END AS status,
           CASE WHEN i < {warmup} THEN 'warmup' ELSE 'measure' END AS phase,
           CASE WHEN failed THEN 'HTTP 503: server overloaded' END AS error,
           {level}
    FROM timed
    ORDER BY i
    """


def _write_run_yaml(folder: Path, config: Config) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "run.yaml").write_text(
        f"# synthetic benchmark run (bench/generate.py): not a measurement\n"
        f"accelerator: {config.accelerator}\naccelerator_count: 1\nmodel: {MODEL}\nprecision: {config.precision}\n"
        f"runtime: {config.runtime}\nruntime_version: {config.runtime_version}\narrival: {config.arrival}\n"
        f"label: bench-{config.folder}\n"
    )


def _per_file(total: int, config: Config, files: int) -> int:
    return max(20, int(total * config.share) // files)


def _aiperf_aggregate(conn: duckdb.DuckDBPyConnection, jsonl: Path, rate: float) -> dict:
    """The small `profile_export_aiperf.json` AIPerf writes beside its records (averages only)."""
    row = conn.execute(
        "SELECT count(*) FILTER (WHERE error IS NULL), count(*) FILTER (WHERE error IS NOT NULL), "
        "avg(metrics.time_to_first_token.value), avg(metrics.request_latency.value), "
        "(max(metadata.request_end_ns) - min(metadata.request_start_ns)) / 1e9 "
        "FROM read_ndjson(?) WHERE metadata.benchmark_phase = 'profiling'",
        [str(jsonl)],
    ).fetchone()
    ok, failed, ttft, e2e, duration = row
    return {
        "schema_version": "1.0",
        "aiperf_version": "0.13.0",
        "request_throughput": {"unit": "requests/sec", "avg": ok / duration},
        "request_count": {"unit": "requests", "avg": ok},
        "error_request_count": {"unit": "requests", "avg": failed},
        "benchmark_duration": {"unit": "sec", "avg": duration},
        "time_to_first_token": {"unit": "ms", "avg": ttft},
        "request_latency": {"unit": "ms", "avg": e2e},
        "input_config": {"phases": [{"name": "profiling", "kind": "profiling", "type": "poisson", "rate": rate}]},
    }


def _aiperf_sql(requests_sql: str) -> str:
    """The generic columns as AIPerf `profile_export.jsonl` lines (metadata + metrics with units)."""
    return f"""
    SELECT {{'session_num': row_number() OVER () - 1,
             'x_request_id': 'req-' || (row_number() OVER () - 1),
             'request_start_ns': (start_time_unix_s * 1e9)::BIGINT,
             'request_end_ns': ((start_time_unix_s + coalesce(e2e_ms, 50.0) / 1000) * 1e9)::BIGINT,
             'worker_id': 'worker_0',
             'benchmark_phase': CASE WHEN phase = 'warmup' THEN 'warmup' ELSE 'profiling' END,
             'was_cancelled': false}} AS metadata,
           CASE WHEN status = 'ok' THEN
               {{'time_to_first_token': {{'value': ttft_ms, 'unit': 'ms'}},
                 'request_latency': {{'value': e2e_ms, 'unit': 'ms'}},
                 'input_sequence_length': {{'value': input_tokens, 'unit': 'tokens'}},
                 'output_sequence_length': {{'value': output_tokens, 'unit': 'tokens'}}}}
           END AS metrics,
           CASE WHEN status <> 'ok' THEN {{'code': 503, 'type': 'Service Unavailable', 'message': error}} END AS error
    FROM ({requests_sql})
    """


def generate(out: Path, requests: int, seed: int = 7) -> Path:
    """Write the four configs' dumps for `requests` requests below `out` (replaced); returns `out`."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    conn = duckdb.connect()
    try:
        for c_index, config in enumerate(CONFIGS):
            folder = out / config.folder
            _write_run_yaml(folder, config)
            file_seed = seed * 1000 + c_index * 100
            if config.layout == "parquet":
                n = _per_file(requests, config, len(LOAD_FRACTIONS) * config.repeats)
                for level, fraction in enumerate(LOAD_FRACTIONS):
                    rate = round(config.capacity_per_s * fraction, 1)
                    for repeat in range(config.repeats):
                        sql = _requests_sql(
                            n,
                            rate,
                            fraction,
                            config.tpot_base_ms,
                            file_seed + level * 10 + repeat,
                            f"{rate}::DOUBLE AS offered_rate_per_s",
                        )
                        conn.execute(
                            f"COPY ({sql}) TO '{folder / f'rate-{rate}-run{repeat + 1}.parquet'}' (FORMAT parquet)"
                        )
            elif config.layout == "csv":
                n = _per_file(requests, config, len(LOAD_FRACTIONS) * config.repeats)
                for repeat in range(config.repeats):
                    parts = []
                    for level, fraction in enumerate(LOAD_FRACTIONS):
                        rate = round(config.capacity_per_s * fraction, 1)
                        sql = _requests_sql(
                            n,
                            rate,
                            fraction,
                            config.tpot_base_ms,
                            file_seed + level * 10 + repeat,
                            f"{rate}::DOUBLE AS offered_rate_per_s",
                        )
                        parts.append(f"({sql})")
                    conn.execute(
                        f"COPY ({' UNION ALL '.join(parts)}) TO '{folder / f'sweep-run{repeat + 1}.csv'}' "
                        "(FORMAT csv, HEADER)"
                    )
            elif config.layout == "aiperf":
                n = _per_file(requests, config, len(LOAD_FRACTIONS))
                for level, fraction in enumerate(LOAD_FRACTIONS):
                    rate = round(config.capacity_per_s * fraction, 1)
                    level_dir = folder / f"rate-{rate}"
                    level_dir.mkdir()
                    sql = _requests_sql(
                        n, rate, fraction, config.tpot_base_ms, file_seed + level * 10, "NULL AS unused"
                    )
                    jsonl = level_dir / "profile_export.jsonl"
                    conn.execute(f"COPY ({_aiperf_sql(sql)}) TO '{jsonl}' (FORMAT json)")
                    (level_dir / "profile_export_aiperf.json").write_text(
                        json.dumps(_aiperf_aggregate(conn, jsonl, rate), indent=2)
                    )
            else:  # closed loop: each concurrency keeps c requests in flight
                n = _per_file(requests, config, len(CONCURRENCIES))
                for level, concurrency in enumerate(CONCURRENCIES):
                    rho = concurrency / (concurrency + 24.0)
                    rate = config.capacity_per_s * rho
                    sql = _requests_sql(
                        n,
                        rate,
                        rho,
                        config.tpot_base_ms,
                        file_seed + level * 10,
                        f"{concurrency}::DOUBLE AS concurrency",
                    )
                    conn.execute(f"COPY ({sql}) TO '{folder / f'concurrency-{concurrency}.parquet'}' (FORMAT parquet)")
        (out / "profiles.yaml").write_text(PROFILES_YAML)
        (out / "GENERATED").write_text(
            json.dumps({"generator_version": GENERATOR_VERSION, "requests": requests, "seed": seed})
        )
    finally:
        conn.close()
    return out


def dumps_dir(data: Path) -> list[Path]:
    """The run folders of a generated data set."""
    return [data / c.folder for c in CONFIGS]


def ensure(data_root: Path, requests: int, seed: int = 7, log=print) -> Path:
    """The data set for `requests` below `data_root`, generated unless an identical one is there."""
    target = data_root / f"requests-{size_label(requests)}-seed{seed}"
    stamp = target / "GENERATED"
    wanted = {"generator_version": GENERATOR_VERSION, "requests": requests, "seed": seed}
    if stamp.exists() and json.loads(stamp.read_text()) == wanted:
        return target
    log(f"generating {size_label(requests)} requests in {target} ...")
    return generate(target, requests, seed)


def total_bytes(data: Path) -> int:
    return sum(p.stat().st_size for p in data.rglob("*") if p.is_file())
