"""Where benchbill's own files are: the SQL files, the reference tables, the bundled defaults and the code
the run fingerprint covers. Found through the installed packages, so a wheel installed anywhere finds them
as an editable checkout does."""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path


def package_dir(name: str) -> Path:
    """The folder of an installed top-level package (found without importing it)."""
    spec = find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"benchbill's package {name!r} is not installed (pip install the project)")
    return Path(next(iter(spec.submodule_search_locations))).resolve()


ASSETS_DIR = Path(__file__).resolve().parent.parent
SQL_DIR = package_dir("sql")
REFERENCE_DIR = ASSETS_DIR / "reference"
DEFAULTS_DIR = ASSETS_DIR / "defaults"
DEFAULT_SOURCES = DEFAULTS_DIR / "mlperf_sources.yaml"
DEFAULT_PRICES = DEFAULTS_DIR / "prices.csv"
DEFAULT_PROFILES = DEFAULTS_DIR / "profiles.yaml"
# The packages whose files make a build what it is (code, SQL, reference tables): the run fingerprint covers them.
CODE_PACKAGES = ("assets", "pipelines", "schemas", "sql")
