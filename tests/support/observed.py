"""Building the observed tables of a dumps folder as the assets do, on a DuckDB file of a test's own."""

from pathlib import Path

import duckdb

from assets.formats.dumps import registry
from assets.formats.dumps.exchange import Parsed
from assets.inputs.files import read_local
from assets.runs.batch import ObservedBatch
from assets.runs.store import write_observed
from assets.warehouse.sqlfiles import run_sql_file
from assets.warehouse.write import write_table
from schemas.observed.load_point_measures import LoadPointMeasures
from schemas.observed.load_points import LoadPoints
from tests.support.data import WORKED_RUN_YAML


def parse(path: Path) -> Parsed:
    """What the dump registry reads of one file (it must recognise it)."""
    parsed, _dump = registry.parse_file(read_local(path)[0])
    assert parsed is not None, path
    return parsed


def build(conn: duckdb.DuckDBPyConnection, batch: ObservedBatch) -> duckdb.DuckDBPyConnection:
    """The observed tables of a batch, built like the assets do."""
    write_observed(conn, batch)
    write_table(
        conn, "observed.load_point_measures", run_sql_file(conn, "observed/load_point_measures.sql"), LoadPointMeasures
    )
    write_table(conn, "observed.load_points", run_sql_file(conn, "observed/load_points.sql"), LoadPoints)
    return conn


def dumps_folder(root: Path, sources: dict[str, Path], run_yaml: str = WORKED_RUN_YAML) -> Path:
    """A dumps folder: one subfolder per name, each a run.yaml and a link to the source files."""
    for name, source in sources.items():
        (root / name).mkdir(parents=True)
        (root / name / "run.yaml").write_text(run_yaml)
        (root / name / "data").symlink_to(source, target_is_directory=source.is_dir())
    return root


def points(conn: duckdb.DuckDBPyConnection, label: str | None = None) -> list[dict]:
    """observed.load_points as dicts, in load order (of one run, by its label)."""
    sql = (
        "SELECT lp.* FROM observed.load_points lp JOIN observed.runs r USING (run_id)"
        + (" WHERE r.run_label = ?" if label else "")
        + " ORDER BY load_index"
    )
    cursor = conn.execute(sql, [label] if label else [])
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]
