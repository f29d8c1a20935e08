"""A small end-to-end case for the reliability tests (kills, idempotency, concurrency, texts, hostile
paths), built once per session from the real files: every path lies below a folder whose name is
hostile to SQL (quotes, a semicolon, a comment), so every run of it also proves that no path is
pasted into SQL unquoted.

Inputs (A, then B, then C as a competing run):
- table A: 24 records of the real v5.1 round table, the RedHat H100 worked case among them;
  table B: the same with that Server result corrected (x1.01); table C: x1.02;
- dumps 1: the real inference-perf sweep of vLLM, plus two fixtures whose prompts and responses
  carry a planted string (a vLLM detailed result, inference-perf per-request records), and beside the
  first a damaged copy of it (a TTFT "N/A") that must be quarantined while everything else publishes;
  dumps 2: dumps 1 plus the second real sweep;
- the bundled prices and profiles; for C, one profile more.

`reference`: run A, a copy of the warehouse as it was (`published`), then run B (with --store-texts)
in the same warehouse: what an uninterrupted history gives.
"""

import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import duckdb

from assets.core.paths import DEFAULT_PROFILES
from pipelines.cli import main
from tests.support.data import FIXTURES, V51_TABLE, WORKED_RUN_YAML, make_dumps

HOSTILE = 'o\'brien "q"; DROP TABLE benchmark.mlperf_results; -- $x %s \\ é'
PLANTED = "PLANTED-c0ffee-3141-not-for-storage"
WORKED = dict(Submitter="RedHat", Scenario="Server", Accelerator="NVIDIA H100-SXM-80GB")
EXTRA_PROFILE = """
  - name: batch-8b
    model: llama3.1-8b
    slo: {e2e_p95_ms: 30000}
    delivered_fraction_prior: [0.6, 0.9]
"""
# Volatile by nature: when a round version was ingested. Everything else must match exactly.
VOLATILE = {"audit.mlperf_round_versions": {"ingested_at"}, "audit.run_fingerprint": {"recorded_at"}}

# One statement, so one snapshot: the corrected result, as the results table and as the mart's
# reference; runs; profiles, as the requirement table and as the shortlist. A reader that ever saw
# a mix of two publishes would see the two halves disagree.
SIGNATURE_SQL = """
SELECT (SELECT max(result_value) FROM benchmark.mlperf_results
        WHERE submitter = 'RedHat' AND scenario = 'Server' AND accelerator_id = 'nvidia-h100-sxm-80gb'),
       (SELECT max(mlperf_server_tokens_per_s_per_accel) FROM marts.config_shortlist
        WHERE accelerator_id = 'nvidia-h100-sxm-80gb'),
       (SELECT count(*) FROM observed.runs),
       (SELECT count(*) FROM requirement.profiles),
       (SELECT count(DISTINCT profile) FROM analytics.shortlist)
"""


def table(records: list[dict], factor: float) -> bytes:
    out = []
    for record in records:
        record = dict(record)
        if all(record[k] == v for k, v in WORKED.items()):
            record["Performance_Result"] = round(record["Performance_Result"] * factor, 4)
        out.append(record)
    return json.dumps(out).encode()


def plant(root: Path) -> None:
    """Two dump folders whose texts carry PLANTED: vLLM generated_texts, inference-perf request/response data."""
    vllm = json.loads((FIXTURES / "vllm/openai-4.0qps-Llama-3.1-8B-Instruct-20260901-120000.json").read_text())
    vllm["generated_texts"] = [f"answer {i}: {PLANTED}" for i in range(len(vllm["ttfts"]))]
    (root / "planted-vllm").mkdir(parents=True)
    (root / "planted-vllm" / "result.json").write_text(json.dumps(vllm))
    broken = dict(vllm, ttfts=["N/A", *vllm["ttfts"][1:]], request_rate=8.0)  # quarantined, the rest read
    (root / "planted-vllm" / "broken.json").write_text(json.dumps(broken))
    entries = json.loads((FIXTURES / "inference-perf/per_request/per_request_lifecycle_metrics.json").read_text())
    for i, entry in enumerate(entries):
        entry["request_data"] = json.dumps({"prompt": f"question {i} {PLANTED}"})
        entry["response_data"] = f"reply {i} {PLANTED}"
    (root / "planted-ip").mkdir()
    (root / "planted-ip" / "per_request_lifecycle_metrics.json").write_text(json.dumps(entries))
    shutil.copy(FIXTURES / "inference-perf/per_request/stage_0_lifecycle_metrics.json", root / "planted-ip")
    for folder in ("planted-vllm", "planted-ip"):
        (root / folder / "run.yaml").write_text(WORKED_RUN_YAML + f"label: {folder}\n")


def dumps_folder(root: Path, variants: tuple[str, ...]) -> Path:
    """The worked case's dumps of these variants, plus the fixtures carrying the planted texts."""
    plant(make_dumps(root, variants))
    return root


@dataclass
class SmallCase:
    root: Path
    args_a: list[str]
    args_b: list[str]
    args_c: list[str]
    published: Path  # the warehouse after run A (copy it, never write it)
    reference: Path  # the warehouse after run A then run B (copy it, never write it)

    def run_args(self, args: list[str], warehouse: Path) -> list[str]:
        return ["run", *args, "--warehouse", str(warehouse)]

    def copy_of(self, warehouse: Path, target: Path) -> Path:
        shutil.copytree(warehouse, target, symlinks=True)
        return target


def build_small_case(base: Path) -> SmallCase:
    root = base / HOSTILE
    root.mkdir(parents=True)
    records = json.loads(V51_TABLE.read_bytes())
    chosen = [r for r in records if r["Submitter"] == "RedHat"] + records[:20]
    for name, factor in (("a", 1.0), ("b", 1.01), ("c", 1.02)):
        (root / name).mkdir()
        (root / name / "summary_results.json").write_bytes(table(chosen, factor))
    dumps1 = dumps_folder(root / "dumps1", ("vllm",))
    dumps2 = dumps_folder(root / "dumps2", ("vllm", "vllm+batch_size"))
    profiles = root / "profiles-extra.yaml"
    profiles.write_text(DEFAULT_PROFILES.read_text() + EXTRA_PROFILE)
    args_a = ["--mlperf", str(root / "a" / "summary_results.json"), "--dumps", str(dumps1)]
    args_b = ["--mlperf", str(root / "b" / "summary_results.json"), "--dumps", str(dumps1), "--store-texts"]
    args_c = [
        "--mlperf",
        str(root / "c" / "summary_results.json"),
        "--dumps",
        str(dumps2),
        "--profiles",
        str(profiles),
        "--store-texts",
    ]
    case = SmallCase(root, args_a, args_b, args_c, root / "published", root / "reference")
    assert main(case.run_args(args_a, case.reference)) == 0
    case.copy_of(case.reference, case.published)
    assert main(case.run_args(args_b, case.reference)) == 0
    return case


# ---- what a warehouse holds --------------------------------------------------------------------------


def relations(conn: duckdb.DuckDBPyConnection) -> list[tuple[str, str, str]]:
    """(schema, name, kind) of every table and view (system views excluded)."""
    return conn.execute(
        "SELECT schema_name, table_name, 'table' FROM duckdb_tables() WHERE NOT internal UNION ALL "
        "SELECT schema_name, view_name, 'view' FROM duckdb_views() WHERE NOT internal ORDER BY ALL"
    ).fetchall()


def content(serving: Path, *, volatile: dict[str, set[str]] | None = None) -> dict[str, str]:
    """Per table and view: the sha256 of its rows (every column but `volatile` ones), in a total order."""
    volatile = VOLATILE if volatile is None else volatile
    conn = duckdb.connect(str(serving), read_only=True)
    try:
        out = {}
        for schema, name, _kind in relations(conn):
            relation = f"{schema}.{name}"
            columns = [
                c
                for (c,) in conn.execute(
                    "SELECT column_name FROM duckdb_columns() WHERE schema_name = ? AND table_name = ? "
                    "ORDER BY column_index",
                    [schema, name],
                ).fetchall()
                if c not in volatile.get(relation, set())
            ]
            select = ", ".join(f'"{c}"' for c in columns)
            rows = conn.execute(f'SELECT {select} FROM "{schema}"."{name}" ORDER BY ALL').fetchall()
            out[relation] = hashlib.sha256(repr((columns, rows)).encode()).hexdigest()
        return out
    finally:
        conn.close()


def file_sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def parquet_snapshot(warehouse: Path) -> dict[str, str]:
    """The export `current` points at, and the sha256 of every file in it."""
    current = warehouse / "parquet" / "current"
    target = current.resolve()
    return {
        "current": os.readlink(current),
        **{p.relative_to(target).as_posix(): file_sha(p) for p in sorted(target.rglob("*")) if p.is_file()},
    }


def signature(conn) -> tuple:
    return tuple(conn.execute(SIGNATURE_SQL).fetchone())


def leftovers(warehouse: Path) -> list[str]:
    """What a finished run must not leave: a half-copied serving file, staging exports or links."""
    found = [p.name for p in warehouse.iterdir() if p.name.startswith(("serving.duckdb.next", "report.html.next"))]
    found += [p.name for p in (warehouse / "parquet").iterdir() if p.name.startswith((".tmp-", ".current-"))]
    exports = list((warehouse / "parquet" / "exports").iterdir())
    return found + ([f"{len(exports)} exports"] if len(exports) > 2 else [])
