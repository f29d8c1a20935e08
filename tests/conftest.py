"""The test tiers and the fixtures they share.

Tests live in three tiers, one folder each, marked by the folder (`--strict-markers`):
- `unit/`: no ../shared, no whole run; parsers on the repository's own fixtures, schemas, SQL on a small DuckDB,
  the import graph, the definitions. Proven independent of the shared data (tests/unit/conftest.py).
- `integration/`: the real published files under ../shared/data (parsers, ingestion, SQL on real rows).
- `e2e/`: whole `benchbill run`s and what surrounds them: kills, concurrency, the CLI, BI, the report in a
  browser, the wheel installed outside the repository.
"""

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import pytest

from assets.resources import Inputs, Warehouse
from pipelines.definitions import build_definitions
from tests.support.data import FIXTURES, INFERENCE_PERF, SHARED, build_make_run_published, build_published, make_dumps
from tests.support.once import built_once, kept_unchanged
from tests.support.smallcase import SmallCase, build_small_case

TIERS = ("unit", "integration", "e2e")

# The tests' dump folders link into the shared data and the repository's fixtures (never copied): every
# `benchbill run` they start, in process or not, may follow those links (pipelines/settings.py).
os.environ.setdefault("BENCHBILL_ALLOW_LINKS_INTO", f"{SHARED},{FIXTURES}")


# `benchbill` folds its messages and fits its tables to the terminal's width, COLUMNS first. The suite's tests match
# phrases of messages and cells of tables whole, so they read them as on a terminal too wide to fold anything; the
# tests of the width set COLUMNS themselves (tests/unit/test_terminal_width.py, tests/e2e/test_terminal.py).
@pytest.hookimpl(trylast=True)  # after pytest's terminal reporter has read the width of the terminal it runs in
def pytest_configure(config: pytest.Config) -> None:
    """The suite's benchbill reads COLUMNS 10000; pytest's own report keeps the width it found."""
    if config.pluginmanager.has_plugin("terminalreporter"):  # none in a worker process that reports nothing itself
        writer = config.get_terminal_writer()
        writer.fullwidth = writer.fullwidth  # fixed now: it would otherwise read COLUMNS each time
    os.environ["COLUMNS"] = "10000"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with the tier of the folder it is in; a test outside the tiers is an error."""
    root = Path(__file__).parent
    for item in items:
        tier = Path(str(item.fspath)).relative_to(root).parts[0]
        if tier not in TIERS:
            raise pytest.UsageError(f"{item.nodeid}: tests live in tests/unit, tests/integration or tests/e2e")
        item.add_marker(getattr(pytest.mark, tier))


@pytest.fixture
def dumps_tree(tmp_path: Path) -> Path:
    """The worked case's dumps: the two real inference-perf sweeps of vLLM, each below its run.yaml."""
    return make_dumps(tmp_path / "dumps")


@pytest.fixture
def copied_report(tmp_path: Path) -> Path:
    """A writable copy of one real report folder (for tests that damage files); never in the repo."""
    target = tmp_path / "report"
    shutil.copytree(INFERENCE_PERF / "vllm" / "results", target)
    for path in target.iterdir():
        path.chmod(0o644)
    return target


@pytest.fixture
def round_setup(tmp_path: Path) -> Iterator[tuple[dg.Definitions, dg.DagsterInstance, Warehouse, Inputs, Path]]:
    """Definitions over an empty sources file and a warehouse of the test's own, in a persistent Dagster
    instance (schedule and sensor contexts need one): where MLPerf round partitions are tried."""
    sources = tmp_path / "sources.yaml"
    sources.write_text("allowed_hosts: ['127.0.0.1']\nrounds: []\n")
    inputs = Inputs(sources_file=str(sources))
    warehouse = Warehouse(dir=str(tmp_path / "warehouse"))
    definitions = build_definitions(inputs, warehouse)
    with dg.instance_for_test() as instance:
        yield definitions, instance, warehouse, inputs, sources


@pytest.fixture(scope="session")
def published(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One published warehouse, built once per test run (once across xdist workers) and shared by the tests that
    only read it; a test that must write copies it (shutil.copytree)."""
    warehouse = built_once(tmp_path_factory, "published", build_published)
    with kept_unchanged(warehouse):
        yield warehouse


@pytest.fixture(scope="session")
def make_run_published(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The published warehouse of `make run`'s profiles (tests/support/data.py), built once per test run and
    shared read-only like `published`: the report, the ranking on every surface."""
    warehouse = built_once(tmp_path_factory, "make-run", build_make_run_published)
    with kept_unchanged(warehouse):
        yield warehouse


@pytest.fixture(scope="session")
def small_case(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SmallCase]:
    """The session's small end-to-end case (tests/support/smallcase.py), built once per test run; its warehouses
    are copied by the tests that run on them, never written."""
    case = built_once(tmp_path_factory, "small", build_small_case)
    with kept_unchanged(case.published, case.reference):
        yield case
