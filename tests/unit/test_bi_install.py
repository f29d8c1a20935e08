"""The BI guide's (docs/bi.md) install line gives Superset a DuckDB 1.x (the serving file's readers) and the driver and
SQLAlchemy versions the BI test runs with (pyproject's dev pins), whatever pip would pick on its own."""

import re
import tomllib
from importlib.metadata import version

from packaging.requirements import Requirement

from tests.support.data import REPO_ROOT

BI_GUIDE = (REPO_ROOT / "docs" / "bi.md").read_text(encoding="utf-8")


def _install_line() -> dict[str, Requirement]:
    (line,) = [line for line in BI_GUIDE.splitlines() if line.startswith("pip install ") and "duckdb-engine" in line]
    return {r.name: r for r in (Requirement(word.strip("'\"")) for word in line.split()[2:])}


def _dev_pins() -> dict[str, Requirement]:
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    found = [Requirement(r) for r in project["dependencies"] + project["optional-dependencies"]["dev"]]
    return {r.name: r for r in found}


def test_the_install_line_pins_duckdb_1_x_and_the_tested_driver_and_sqlalchemy():
    line, pins = _install_line(), _dev_pins()
    assert set(line) == {"duckdb", "duckdb-engine", "sqlalchemy"}
    assert not line["duckdb"].specifier.contains("2.0.0") and not line["duckdb"].specifier.contains("2.1.0")
    assert line["duckdb"].specifier.contains(version("duckdb"))  # the DuckDB that wrote and tested the file
    assert str(line["duckdb-engine"].specifier) == str(pins["duckdb-engine"].specifier) == "==0.17.0"
    sqlalchemy = re.sub(r"^==", "", str(pins["sqlalchemy"].specifier))
    assert line["sqlalchemy"].specifier.contains(sqlalchemy) and not line["sqlalchemy"].specifier.contains("2.0.45")
    assert line["sqlalchemy"].specifier.contains("1.4.54")  # Superset's own pin (sqlalchemy<2) fits too


def test_the_versions_installed_here_are_the_ones_the_line_names():
    line = _install_line()
    for name in line:
        assert line[name].specifier.contains(version(name)), name
