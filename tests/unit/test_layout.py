"""The layout's rules, read from the import graph: one direction (pipelines -> assets -> schemas), Dagster only
in the definitions (the top-level `assets/*.py` and `pipelines/`), plain library subpackages beneath them that
never reach Dagster, errors and provenance records at the bottom, no cycle between subpackages; and every SQL
file, reader and table where the layout says it is; no Python file over the size limit."""

import ast
import subprocess
import sys
from pathlib import Path

from assets.formats.dumps import registry as dump_registry
from assets.formats.mlperf import registry as mlperf_registry
from assets.warehouse.sqlfiles import TABLE_SCHEMAS, check_sql_files, table_sql_files
from schemas import model_for
from tests.support.data import REPO_ROOT

PACKAGES = ("assets", "pipelines", "schemas")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO_ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """The modules a file imports (`from a.b import c` counts a.b and, when it is a module, a.b.c)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


GRAPH = {module_name(p): imports_of(p) for package in PACKAGES for p in (REPO_ROOT / package).rglob("*.py")}


def project_imports(module: str) -> set[str]:
    return {m for m in GRAPH[module] if m in GRAPH}


def closure(module: str) -> set[str]:
    seen, todo = set(), [module]
    while todo:
        for found in project_imports(todo.pop()):
            if found not in seen:
                seen.add(found)
                todo.append(found)
    return seen


def is_library(module: str) -> bool:
    """A module of a subpackage of assets (assets/<subpackage>/...), not a Dagster definition."""
    return (
        module.startswith("assets.")
        and module.count(".") >= 2
        or module in {f"assets.{p.name}" for p in (REPO_ROOT / "assets").iterdir() if (p / "__init__.py").exists()}
    )


def test_imports_run_one_way_pipelines_assets_schemas():
    upward = [
        f"{m} imports {i}"
        for m in GRAPH
        for i in project_imports(m)
        if (m.startswith("assets") and i.startswith("pipelines"))
        or (m.startswith("schemas") and i.split(".")[0] in ("assets", "pipelines"))
    ]
    assert upward == []


def test_library_subpackages_never_reach_dagster_nor_the_definitions():
    """Parsing, storage and arithmetic live in assets/<subpackage>/: plain Python, testable without Dagster."""
    offending = []
    for module in sorted(m for m in GRAPH if is_library(m)):
        reached = {module} | closure(module)
        dagster = sorted(m for m in reached if any(i == "dagster" or i.startswith("dagster.") for i in GRAPH[m]))
        definitions = sorted(m for m in reached if m.startswith("assets.") and not is_library(m))
        if dagster or definitions:
            offending.append(f"{module} reaches {dagster + definitions}")
    assert offending == []


def test_importing_every_library_module_loads_no_dagster():
    library = sorted(m for m in GRAPH if is_library(m))
    code = (
        "import importlib, sys\n"
        f"for name in {library!r}:\n    importlib.import_module(name)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dagster', 'pipelines')))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_errors_and_records_sit_at_the_bottom():
    core = {m for m in GRAPH if m.startswith("assets.core")}
    assert {f"{m} imports {i}" for m in core for i in project_imports(m) if i not in core} == set()


def test_subpackages_depend_on_each_other_without_a_cycle():
    def package(module: str) -> str:
        return ".".join(module.split(".")[:2])

    edges = {
        (package(m), package(i))
        for m in GRAPH
        if is_library(m)
        for i in project_imports(m)
        if is_library(i) and package(i) != package(m)
    }
    packages = {p for edge in edges for p in edge}
    order: list[str] = []
    while packages:
        leaves = sorted(p for p in packages if not any(a == p and b in packages for a, b in edges))
        assert leaves, f"a cycle among {sorted(packages)}: {sorted(e for e in edges if set(e) <= packages)}"
        order += leaves
        packages -= set(leaves)


def test_every_sql_table_has_its_model_and_every_check_its_table():
    tables = table_sql_files()
    assert {t.table.split(".")[0] for t in tables} <= set(TABLE_SCHEMAS)
    for spec in tables:
        assert model_for(spec.table).__module__ == f"schemas.{spec.table}", spec.path
        assert spec.reads, f"{spec.path}: reads no table"
    built = {t.table for t in tables}
    for check in check_sql_files():
        assert check.table in built or model_for(check.table), check.path


def test_each_format_is_registered_once_and_names_its_formats_once():
    for readers in (dump_registry.READERS, mlperf_registry.READERS):
        assert len({id(r) for r in readers}) == len(readers)
        names = [kind for reader in readers for kind in reader.FORMATS]
        assert len(names) == len(set(names))
        for reader in readers:
            assert set(reader.SKIPPED) <= set(reader.FORMATS), reader


def test_no_source_file_is_hidden_from_git():
    """A .gitignore pattern meant for a folder at the top (warehouse/, build/) must not hide a package of the same
    name: a clean checkout would lack it. (Only in a git checkout; a wheel or a copy has nothing to check.)"""
    if not (REPO_ROOT / ".git").exists():
        return
    listed = subprocess.run(
        ["git", "ls-files", "--others", "--ignored", "--exclude-standard", "--", *PACKAGES, "sql", "tests"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert [p for p in listed if "__pycache__" not in p and not p.endswith(".pyc")] == []


MAX_LINES = 420  # "no file over about 400 lines": a file past this is split by meaning, not cut in half
SIZED = ("assets", "pipelines", "schemas", "bench")


def python_files_over(limit: int, root: Path = REPO_ROOT) -> list[str]:
    """Every Python file under the sized folders of `root` with more than `limit` lines, with its length."""
    files = sorted(p for folder in SIZED for p in (root / folder).rglob("*.py"))
    return [
        f"{p.relative_to(root)}: {n} lines"
        for p in files
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > limit
    ]


def test_no_python_file_is_over_the_size_limit():
    assert python_files_over(MAX_LINES) == []


def test_the_size_limit_lists_every_file_over_it(tmp_path):
    (tmp_path / "assets" / "sub").mkdir(parents=True)
    (tmp_path / "bench").mkdir()
    (tmp_path / "assets" / "sub" / "long.py").write_text("x = 1\n" * 6)
    (tmp_path / "bench" / "longer.py").write_text("x = 1\n" * 7)
    (tmp_path / "assets" / "short.py").write_text("x = 1\n" * 5)
    (tmp_path / "assets" / "notes.txt").write_text("x\n" * 50)
    assert python_files_over(5, tmp_path) == ["assets/sub/long.py: 6 lines", "bench/longer.py: 7 lines"]
