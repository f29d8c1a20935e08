"""Shared test fixtures: the real published files under ../shared/data, and temporary warehouses."""

import os
import shutil
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("BENCHBILL_SHARED", REPO_ROOT.parent / "shared")).resolve()
DATA = SHARED / "data"
V51_TABLE = DATA / "mlperf" / "summary" / "v5.1" / "summary_results.json"
V41_TABLE = DATA / "mlperf" / "summary" / "v4.1" / "summary_results.json"
INFERENCE_PERF = DATA / "dumps" / "inference-perf" / "kubecon-na-2025"

if not V51_TABLE.exists():
    raise RuntimeError(
        f"the real data the tests read is missing: {V51_TABLE} (set BENCHBILL_SHARED to the shared folder)"
    )

WORKED_RUN_YAML = """\
accelerator: NVIDIA H100 80GB HBM3
accelerator_count: 1
model: meta-llama/Llama-3.1-8B-Instruct
precision: bf16
runtime: vLLM
runtime_version: 0.11.0
arrival: constant
"""


def make_dumps(root: Path, variants=("vllm", "vllm+batch_size"), run_yaml: str = WORKED_RUN_YAML) -> Path:
    """A dumps tree: one folder per inference-perf variant with a run.yaml, its report linked in."""
    for variant in variants:
        folder = root / variant
        folder.mkdir(parents=True)
        (folder / "run.yaml").write_text(run_yaml)
        (folder / "results").symlink_to(INFERENCE_PERF / variant / "results", target_is_directory=True)
    return root


@pytest.fixture
def dumps_tree(tmp_path: Path) -> Path:
    return make_dumps(tmp_path / "dumps")


@pytest.fixture
def copied_report(tmp_path: Path) -> Path:
    """A writable copy of one real report folder (for tests that damage files); never in the repo."""
    target = tmp_path / "report"
    shutil.copytree(INFERENCE_PERF / "vllm" / "results", target)
    for path in target.iterdir():
        path.chmod(0o644)
    return target


BAD_PRICE_LINE = "H100-SXM,on_demand,not-a-number,Nowhere,made up for a test,2026-01-01\n"


def build_published(root: Path, extra_args: tuple[str, ...] = ()) -> Path:
    """A warehouse published by `benchbill run` from the real v5.1 and v4.1 tables, the two real
    inference-perf sweeps, the bundled profiles and the bundled prices plus one bad price row (so
    the quarantine has something to show). Returns the warehouse folder."""
    from pipelines.cli import main
    from pipelines.resources import DEFAULT_PRICES

    dumps = make_dumps(root / "dumps")
    prices = root / "prices.csv"
    prices.write_text(DEFAULT_PRICES.read_text() + BAD_PRICE_LINE)
    warehouse = root / "warehouse"
    args = ["run", "--mlperf", str(V51_TABLE), "--mlperf", str(V41_TABLE), "--dumps", str(dumps),
            "--prices", str(prices), "--warehouse", str(warehouse), *extra_args]
    assert main(args) == 0
    return warehouse


@pytest.fixture(scope="session")
def published(tmp_path_factory) -> Path:
    """One published warehouse shared by the tests that only read it."""
    return build_published(tmp_path_factory.mktemp("published"))


from tests.smallcase import small_case  # noqa: E402, F401 - the session's small end-to-end case, shared
