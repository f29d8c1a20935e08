"""The prose points at what is there: every repository path and every module path that the Markdown pages, the
docstrings and comments, the SQL comments and the configuration comments name exists; no page cites a document
outside the repository; every Markdown link and anchor resolves; README.md stays short (the rest is in docs/**).
What counts as a path is said in tests/support/references.py. Each failure lists every stale reference as
`file:line: token -> what was expected`, so all can be fixed at once.

The checkers are proven on small made-up repositories below: each kind of staleness is caught."""

from pathlib import Path

import pytest

from tests.support.data import REPO_ROOT
from tests.support.references import (
    Prose,
    Repository,
    Stale,
    anchors,
    broken_links,
    prose_of,
    readme_too_long,
    slug,
    stale_modules,
    stale_paths,
)

README_LIMIT = 250


@pytest.fixture(scope="module")
def repository() -> Repository:
    return Repository.at(REPO_ROOT)


@pytest.fixture(scope="module")
def prose(repository: Repository) -> list[Prose]:
    return prose_of(repository)


def listing(stale: list[Stale], what: str) -> str:
    return f"{len(stale)} {what}:\n" + "\n".join(str(s) for s in stale)


def test_every_repository_path_in_the_prose_exists(repository, prose):
    stale = stale_paths(repository, prose)
    assert not stale, listing(stale, "stale paths (or citations of documents outside the repository)")


def test_every_module_path_in_the_prose_exists(repository, prose):
    stale = stale_modules(repository, prose)
    assert not stale, listing(stale, "stale module paths")


def test_every_markdown_link_resolves(repository):
    stale = broken_links(repository)
    assert not stale, listing(stale, "broken Markdown links")


def test_the_readme_stays_short(repository):
    stale = readme_too_long(repository, README_LIMIT)
    assert not stale, listing(stale, "README.md too long")


def test_the_guard_reads_every_kind_of_prose(repository, prose):
    """Not vacuous: the prose read includes each kind of source (a guard reading nothing would pass)."""
    kinds = {
        "Markdown": lambda p: p.endswith(".md"),
        "Python": lambda p: p.endswith(".py"),
        "SQL": lambda p: p.endswith(".sql"),
        "configuration": lambda p: p in ("pyproject.toml", "Makefile"),
    }
    read = {p.path for p in prose}
    assert {kind for kind, test in kinds.items() if any(test(p) for p in read)} == set(kinds)
    assert {"README.md", "ARCHITECTURE.md", "assets/request_records/order_stats.py"} <= read


# -- the checkers, on made-up repositories ----------------------------------------------------------------------


def made_up(tmp_path: Path, files: dict[str, str]) -> Repository:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return Repository.at(tmp_path)


BASE = {
    ".gitignore": ".venv/\n/warehouse/\n*.egg-info/\n",
    "assets/__init__.py": "",
    "assets/runs/__init__.py": "",
    "assets/runs/collect.py": '"""Collects."""\n\ndef collect():\n    pass\n\nclass Kept:\n    def keep(self):\n'
    "        pass\n",
    "assets/core/faults.py": "POINTS = ()\n",
    "sql/observed/request_pass/request_groups.sql": "-- request_groups: the groups.\nSELECT 1\n",
    "tests/unit/test_x.py": "def test_one():\n    pass\n",
}


def stale_in(tmp_path: Path, files: dict[str, str]) -> list[str]:
    repository = made_up(tmp_path, {**BASE, **files})
    prose = prose_of(repository)
    return [str(s) for s in stale_paths(repository, prose) + stale_modules(repository, prose)]


def test_a_moved_file_is_caught_wherever_it_is_named(tmp_path):
    found = stale_in(
        tmp_path,
        {
            "README.md": "Title\n\nThe groups: `sql/observed/request_groups.sql`.\n",
            "assets/runs/quality.py": '"""Faults at named points (assets/faults.py)."""\n'
            "# read by sql/observed/request_groups.sql\n",
            "sql/observed/other.sql": "-- from `assets/runs/gone.py`\nSELECT 1\n",
            "pyproject.toml": "# see tests/unit/gone.py\n",
        },
    )
    assert found == [
        "README.md:3: sql/observed/request_groups.sql -> sql/observed/request_groups.sql: no such file or folder in "
        "the repository (a file of that name: sql/observed/request_pass/request_groups.sql)",
        "assets/runs/quality.py:1: assets/faults.py -> assets/faults.py: no such file or folder in the repository "
        "(a file of that name: assets/core/faults.py)",
        "assets/runs/quality.py:2: sql/observed/request_groups.sql -> sql/observed/request_groups.sql: no such file "
        "or folder in the repository (a file of that name: sql/observed/request_pass/request_groups.sql)",
        "pyproject.toml:1: tests/unit/gone.py -> tests/unit/gone.py: no such file or folder in the repository",
        "sql/observed/other.sql:1: assets/runs/gone.py -> assets/runs/gone.py: no such file or folder in the "
        "repository",
    ]


def test_paths_that_exist_placeholders_outputs_and_the_published_data_pass(tmp_path):
    text = (
        "`assets/runs/collect.py` `assets/runs/` `assets/runs/collect` `runs/collect.py` `runs/collect.collect` "
        "`assets/runs/collect.Kept` `tests/unit/test_x.py::test_one` `tests/unit/test_x.py::test_*` "
        "`sql/<schema>/<table>.sql` `sql/checks/*.sql` `sql/queries/NAME.sql` `warehouse/serving.duckdb` "
        "`./warehouse` `.venv/bin/python` `../shared/data/dumps/x.json` `results/.../x.json` `tokens/s` "
        "`collect.py` `bench_serving.py` `s3://bucket/prefix` `/usr/bin/chromium` `README.md`\n"
        "and outside backticks: assets/gone.py, gone.py\n"
    )
    assert stale_in(tmp_path, {"README.md": text}) == []


def test_a_path_relative_to_the_page_or_to_the_package_is_checked(tmp_path):
    found = stale_in(
        tmp_path,
        {
            "tests/fixtures/tool/README.md": "Made by `../recording/make.py` from `runs/collected.py`.\n",
            "tests/fixtures/recording/other.py": "",
        },
    )
    assert found == [
        "tests/fixtures/tool/README.md:1: ../recording/make.py -> tests/fixtures/recording/make.py: no such file or "
        "folder in the repository",
        "tests/fixtures/tool/README.md:1: runs/collected.py -> assets/runs/collected.py: no such file or folder in "
        "the repository",
    ]


def test_a_test_named_in_the_prose_must_be_defined(tmp_path):
    found = stale_in(tmp_path, {"README.md": "`tests/unit/test_x.py::test_two` `tests/unit/test_x.py::test_o*`\n"})
    assert found == ["README.md:1: tests/unit/test_x.py::test_two -> tests/unit/test_x.py defines no test_two"]


def test_a_document_outside_the_repository_is_caught(tmp_path):
    found = stale_in(
        tmp_path,
        {
            "ARCHITECTURE.md": "What and why: `../shared/DESIGN.md`; formats: `../shared/reference/formats.md`.\n"
            "Formulas (DESIGN.md).\n",
            "assets/runs/sidecar.py": '"""Fields as in ../shared/reference/peers.md section 1."""\n',
        },
    )
    outside = "a document outside the repository"
    assert [(line.split(" -> ")[0], outside in line) for line in found] == [
        ("ARCHITECTURE.md:1: ../shared/DESIGN.md", True),
        ("ARCHITECTURE.md:1: ../shared/reference/formats.md", True),
        ("ARCHITECTURE.md:2: DESIGN.md", True),
        ("assets/runs/sidecar.py:1: ../shared/reference/peers.md", True),
    ]


def test_a_stale_module_path_is_caught(tmp_path):
    found = stale_in(
        tmp_path,
        {
            "README.md": "`assets.runs.collect` `assets.runs.collect.collect` `assets.runs.collect:collect` "
            "`assets.runs.collect.Kept.keep` `assets.runs` `assets.core.faults.POINTS` "
            "`assets.runs.gone` `assets.runs.collect.gone` `assets.runs.collect.Kept.gone` `assets.runs.collect:gone`"
            "\n",
            "sql/observed/x.sql": "-- every check of schemas.requests passes\nSELECT 1\n",
        },
    )
    assert found == [
        "README.md:1: assets.runs.collect.Kept.gone -> assets/runs/collect.py defines Kept, but Kept has no gone",
        "README.md:1: assets.runs.collect.gone -> no module assets.runs.collect.gone in the repository, and "
        "assets/runs/collect.py defines no gone",
        "README.md:1: assets.runs.collect:gone -> no module assets.runs.collect.gone in the repository, and "
        "assets/runs/collect.py defines no gone",
        "README.md:1: assets.runs.gone -> no module assets.runs.gone in the repository, and "
        "assets/runs/__init__.py defines no gone",
        "sql/observed/x.sql:1: schemas.requests -> no module schemas.requests in the repository",
    ]


def test_a_broken_link_or_anchor_is_caught(tmp_path):
    repository = made_up(
        tmp_path,
        {
            "README.md": "# Benchbill\n\nSee [the guide](docs/guide.md#the-command-benchbill-run), "
            "[gone](docs/gone.md), [no such heading](docs/guide.md#nothing), [here](#benchbill), "
            "[not here](#gone), [web](https://example.com/x#y), `[in code](gone.md)`.\n\n[ref]: docs/old.md\n",
            "docs/guide.md": "# Guide\n\n## The command: `benchbill run`\n\nBack to [the top](../README.md#benchbill)"
            " and [out](../../outside.md).\n",
        },
    )
    assert [str(s) for s in broken_links(repository)] == [
        "README.md:3: docs/gone.md -> docs/gone.md: no such file or folder in the repository",
        "README.md:3: docs/guide.md#nothing -> docs/guide.md has no heading with the anchor #nothing",
        "README.md:3: #gone -> README.md has no heading with the anchor #gone",
        "README.md:5: docs/old.md -> docs/old.md: no such file or folder in the repository",
        "docs/guide.md:5: ../../outside.md -> ../outside.md: outside the repository (link a page of the repository)",
    ]


def test_anchors_follow_githubs_slugs():
    assert slug("Quick start (two commands)") == "quick-start-two-commands"
    assert slug("Tables (`warehouse/serving.duckdb`)") == "tables-warehouseservingduckdb"
    assert slug("Run partitions on S3 or GCS: BENCHBILL_RUN_STORE") == "run-partitions-on-s3-or-gcs-benchbill_run_store"
    assert slug("See [the map](ARCHITECTURE.md) **now**") == "see-the-map-now"
    assert anchors('# A\n\n```\n# not a heading\n```\n## A\n<a name="x"></a>\n') == {"a", "a-1", "x"}


def test_a_long_readme_is_caught(tmp_path):
    repository = made_up(tmp_path, {"README.md": "line\n" * 251})
    assert [str(s) for s in readme_too_long(repository, 250)] == [
        "README.md:251: 251 lines -> at most 250: the rest belongs in docs/"
    ]
    assert readme_too_long(made_up(tmp_path, {"README.md": "line\n" * 250}), 250) == []


DOCS_PAGE_LIMIT = 300


def test_each_docs_page_stays_one_readable_topic():
    """A page of docs/ holds one reader's topic: past 300 lines it is split, never grown."""
    long = {
        str(page.relative_to(REPO_ROOT)): n
        for page in sorted((REPO_ROOT / "docs").rglob("*.md"))
        if (n := len(page.read_text(encoding="utf-8").splitlines())) > DOCS_PAGE_LIMIT
    }
    assert not long, f"docs pages over {DOCS_PAGE_LIMIT} lines (split them by topic): {long}"
