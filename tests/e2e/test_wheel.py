"""The project as others install it: a wheel, installed (not editable) into a fresh virtual environment, runs the
worked case from outside the repository, its SQL, reference tables and defaults found as package data."""

import json
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.support.data import REPO_ROOT, V51_TABLE, make_dumps

SHIPPED = [
    "sql/__init__.py",
    "sql/marts/config_shortlist.sql",
    "sql/observed/request_pass/request_groups.sql",
    "sql/checks/benchmark/mlperf_results__one_row_per_result.sql",
    "sql/analytics/shortlist.sql",
    "sql/queries/shortlist.sql",
    "assets/reference/accelerator_aliases.csv",
    "assets/reference/mlperf_units.csv",
    "assets/defaults/prices.csv",
    "assets/defaults/profiles.yaml",
    "assets/defaults/mlperf_sources.yaml",
    "schemas/marts/config_shortlist.py",
    "pipelines/dagster.yaml",
]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the wheel, the fresh environment's python): the wheel built from this checkout without build isolation
    (no download), installed into a new virtual environment without its dependencies, which come from this
    test's own environment, on the path after the wheel's packages."""
    root = tmp_path_factory.mktemp("wheel")
    source = root / "source"  # a copy: building writes build/ and *.egg-info/ beside the sources
    top = {".git", ".venv", "warehouse", "build", "test-artifacts"}  # ignored at the top only: assets/warehouse stays

    def ignored(folder: str, names: list[str]) -> set[str]:
        skip = {n for n in names if n == "__pycache__" or n.endswith((".egg-info", "_cache"))}
        return skip | (top & set(names) if Path(folder) == REPO_ROOT else set())

    shutil.copytree(REPO_ROOT, source, ignore=ignored)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--wheel-dir",
            str(root / "dist"),
            str(source),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    (wheel,) = (root / "dist").glob("benchbill-*.whl")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps", str(wheel)],
        check=True,
        capture_output=True,
        text=True,
    )
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # The dependencies (dagster, duckdb, polars...) of this environment; its own editable benchbill is not on
    # this path (that needs its .pth files processed, which a path listed here never has).
    (Path(purelib) / "benchbill-test-dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    return wheel, python


def test_the_wheel_ships_the_sql_the_reference_tables_and_the_defaults(installed):
    wheel, _python = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    assert [name for name in SHIPPED if name not in names] == []
    assert len([n for n in names if n.startswith("sql/") and n.endswith(".sql")]) == len(
        list((REPO_ROOT / "sql").rglob("*.sql"))
    )
    assert not [n for n in names if n.startswith(("tests/", "bench/", "examples/"))]
    modules = {
        p.relative_to(REPO_ROOT).as_posix()
        for package in ("assets", "pipelines", "schemas", "sql")
        for p in (REPO_ROOT / package).rglob("*.py")
        if "__pycache__" not in p.parts
    }
    assert sorted(modules - names) == []


def test_the_installed_wheel_runs_the_worked_case_outside_the_repository(installed, tmp_path):
    _wheel, python = installed
    where = subprocess.run(
        [
            str(python),
            "-c",
            "import json, assets, sql, pipelines; from assets.core import paths; "
            "print(json.dumps([assets.__file__, str(paths.SQL_DIR), str(paths.DEFAULT_PRICES)]))",
        ],
        cwd=tmp_path,
        check=True,
        capture_output=True,
        text=True,
    )
    for found in json.loads(where.stdout):
        assert str(python.parent.parent) in found and str(REPO_ROOT) not in found, found
    dumps = make_dumps(tmp_path / "dumps", variants=("vllm",))
    run = subprocess.run(
        [
            str(python.parent / "benchbill"),
            "run",
            "--mlperf",
            str(V51_TABLE),
            "--dumps",
            str(dumps),
            "--warehouse",
            str(tmp_path / "warehouse"),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    # one terminal row per config: the vllm run on one H100, against MLPerf Server 5,103.99 tokens/s per accelerator
    worked = [line for line in run.stdout.splitlines() if "1x nvidia-h100-sxm-80gb" in line and "  vllm  " in line]
    assert len(worked) == 1 and "  5,104  " in worked[0], run.stdout
    assert (tmp_path / "warehouse" / "serving.duckdb").exists() and (tmp_path / "warehouse" / "report.html").exists()
