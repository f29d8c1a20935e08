"""The Makefile's variables do what its comment and docs/command.md say: SHARED decides what `make run` reads, RUN_ARGS
replaces it whole, WAREHOUSE is where it goes."""

import re
import subprocess

import pytest

from tests.support.data import REPO_ROOT

MAKEFILE = (REPO_ROOT / "Makefile").read_text(encoding="utf-8")
COMMAND_PAGE = (REPO_ROOT / "docs" / "command.md").read_text(encoding="utf-8")


def _run_command(*assignments: str) -> str:
    """The `benchbill run` line `make run` would execute (make -n prints it, runs nothing)."""
    out = subprocess.run(
        ["make", "-n", "-s", "run", "STAMP=Makefile", *assignments],  # STAMP: the set-up counts as done
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return next(line for line in out.splitlines() if "benchbill run" in line)


@pytest.mark.parametrize("variable", ["SHARED", "RUN_ARGS", "WAREHOUSE", "DEV_INPUTS"])
def test_each_variable_is_documented_in_the_makefile_and_the_command_page(variable):
    assert re.search(rf"^#\s+{variable}\b", MAKEFILE, re.MULTILINE), variable
    start = COMMAND_PAGE.index("## `make run` and its variables")
    command = COMMAND_PAGE[start : COMMAND_PAGE.index("\n## ", start)]
    assert f"| `{variable}` |" in command


def test_with_the_shared_data_make_run_reads_its_rounds_and_the_example_dumps(tmp_path):
    shared = tmp_path / "shared"
    table = shared / "data" / "mlperf" / "summary" / "v5.1" / "summary_results.json"
    table.parent.mkdir(parents=True)
    table.write_text("[]")
    line = _run_command(f"SHARED={shared}")
    assert f"--mlperf {shared}/data/mlperf/summary/v5.1/summary_results.json" in line
    assert f"--mlperf {shared}/data/mlperf/summary/v4.1/summary_results.json" in line
    assert "--dumps examples/dumps" in line and f"--allow-links-into {shared}/data" in line
    assert "--profiles examples/run-profiles.yaml" in line  # chat-8b on the real trace: the bill autoscaled


def test_without_it_make_run_reads_the_sources_file_and_run_args_replaces_the_default(tmp_path):
    assert _run_command(f"SHARED={tmp_path}/nowhere").split() == [
        ".venv/bin/benchbill",
        "run",
        "--warehouse",
        "warehouse",
    ]
    line = _run_command("RUN_ARGS=--force --mlperf r.json", f"WAREHOUSE={tmp_path}/w")
    assert line.split() == [
        ".venv/bin/benchbill",
        "run",
        "--warehouse",
        f"{tmp_path}/w",
        "--force",
        "--mlperf",
        "r.json",
    ]
