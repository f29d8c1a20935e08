"""Where the real published files are (`../shared/data`, or BENCHBILL_SHARED), and the worked case's dumps.

Nothing is read at import: the unit tier runs without the shared folder; the integration and end-to-end
tiers check for it before they start (`missing_shared_data`).
"""

import os
from pathlib import Path

from assets.core.paths import DEFAULT_PRICES
from assets.resources import Warehouse
from pipelines.cli import main

REPO_ROOT = Path(__file__).resolve().parent.parent.parent
FIXTURES = REPO_ROOT / "tests" / "fixtures"
SHARED = Path(os.environ.get("BENCHBILL_SHARED", REPO_ROOT.parent / "shared")).resolve()
DATA = SHARED / "data"
V51_TABLE = DATA / "mlperf" / "summary" / "v5.1" / "summary_results.json"
V41_TABLE = DATA / "mlperf" / "summary" / "v4.1" / "summary_results.json"
INFERENCE_PERF = DATA / "dumps" / "inference-perf" / "kubecon-na-2025"
# `make run`'s profiles (the Makefile's RUN_ARGS): chat-8b-interactive on the real Azure trace, chat-70b stated.
RUN_PROFILES = REPO_ROOT / "examples" / "run-profiles.yaml"

WORKED_RUN_YAML = """\
accelerator: NVIDIA H100 80GB HBM3
accelerator_count: 1
model: meta-llama/Llama-3.1-8B-Instruct
precision: bf16
runtime: vLLM
runtime_version: 0.11.0
arrival: constant
"""

# The worked case's profile (docs/design.md): llama3.1-8b, p95 TTFT <= 1000 ms and p95 TPOT <= 50 ms.
WORKED_PROFILES = """\
profiles:
  - name: llama3.1-8b-chat
    model: llama3.1-8b
    slo: {ttft_p95_ms: 1000, tpot_p95_ms: 50}
    delivered_fraction_prior: [0.5, 0.8]
"""
# A `vllm bench sweep serve_sla` tree of the repository's fixtures (tests/fixtures/vllm/README.md).
SLA_TREE = FIXTURES / "vllm" / "serve_sla" / "20260901_120000" / "SERVE--max_num_seqs=128-BENCH--"

BAD_PRICE_LINE = "H100-SXM,on_demand,not-a-number,Nowhere,made up for a test,2026-01-01\n"


def missing_shared_data() -> str | None:
    """Why the real data the integration and end-to-end tiers read is not there, or None."""
    if V51_TABLE.exists():
        return None
    return (
        f"the real data the integration and end-to-end tests read is missing: {V51_TABLE} (set BENCHBILL_SHARED "
        "to the shared folder, or run only the unit tier: make test-unit)"
    )


def make_dumps(root: Path, variants=("vllm", "vllm+batch_size"), run_yaml: str = WORKED_RUN_YAML) -> Path:
    """A dumps tree: one folder per inference-perf variant with a run.yaml, its report linked in."""
    for variant in variants:
        folder = root / variant
        folder.mkdir(parents=True)
        (folder / "run.yaml").write_text(run_yaml)
        (folder / "results").symlink_to(INFERENCE_PERF / variant / "results", target_is_directory=True)
    return root


def built_warehouse(root: Path) -> Warehouse:
    """A warehouse folder as its first build leaves it (a serving file published; empty here): what the drop-folder
    sensor waits for."""
    warehouse = Warehouse(dir=str(root / "built-warehouse"))
    warehouse.serving_path.parent.mkdir(parents=True, exist_ok=True)
    warehouse.serving_path.touch()
    return warehouse


def build_published(root: Path, extra_args: tuple[str, ...] = ()) -> Path:
    """A warehouse published by `benchbill run` from the real v5.1 and v4.1 tables, the two real
    inference-perf sweeps, the bundled profiles and the bundled prices plus one bad price row (so
    the quarantine has something to show). Returns the warehouse folder."""

    dumps = make_dumps(root / "dumps")
    prices = root / "prices.csv"
    prices.write_text(DEFAULT_PRICES.read_text() + BAD_PRICE_LINE)
    warehouse = root / "warehouse"
    args = [
        "run",
        "--mlperf",
        str(V51_TABLE),
        "--mlperf",
        str(V41_TABLE),
        "--dumps",
        str(dumps),
        "--prices",
        str(prices),
        "--warehouse",
        str(warehouse),
        *extra_args,
    ]
    assert main(args) == 0
    return warehouse


def build_make_run_published(root: Path) -> Path:
    """The tests' published warehouse (build_published) with `make run`'s profiles instead of the bundled ones: the
    report draws the real trace against capacity and the autoscaled bill. Returns the warehouse folder."""
    return build_published(root, ("--profiles", str(RUN_PROFILES)))
