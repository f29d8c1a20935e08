"""A dumps folder of several sweeps made from the repository's small fixtures (copied, so a test may change
them): what run partitions are tried on."""

import shutil
from pathlib import Path

from tests.support.data import WORKED_RUN_YAML

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
VLLM_JSON = FIXTURES / "vllm/openai-4.0qps-Llama-3.1-8B-Instruct-20260901-120000.json"


def sweeps_tree(root: Path) -> Path:
    """A dumps folder as a team files it: the config in a run.yaml at the top, one folder per sweep (each with a
    run.yaml of its own), and a loose file no sweep's run.yaml governs."""
    root.mkdir(parents=True)
    (root / "run.yaml").write_text(WORKED_RUN_YAML)
    for name, source in (("sweep-a", FIXTURES / "generic/requests.csv"), ("sweep-b", VLLM_JSON)):
        (root / name).mkdir()
        (root / name / "run.yaml").write_text(f"label: {name}\n")
        shutil.copy(source, root / name / source.name)
    shutil.copytree(FIXTURES / "aiperf/rate8", root / "sweep-c" / "rate8")
    (root / "sweep-c" / "run.yaml").write_text("label: sweep-c\narrival: poisson\n")
    (root / "notes.txt").write_text("not a dump\n")
    return root


def add_sweep(root: Path, name: str) -> None:
    (root / name).mkdir()
    (root / name / "run.yaml").write_text(f"label: {name}\n")
    shutil.copy(FIXTURES / "generic/requests.csv", root / name / "requests.csv")


def change_file(path: Path) -> None:
    """Another measurement in the same file: one request's TTFT 1 ms later (same size: only the content tells)."""
    text = path.read_text()
    changed = text.replace("48.318", "49.318", 1)
    assert changed != text
    path.write_text(changed)
