"""The held-out error table of docs/calibrated-model.md, recomputed from the real sweeps (every run.yaml folder of
examples/dumps and examples/public over ../shared/data/dumps): each figure as printed, so the page cannot drift."""

from pathlib import Path

import duckdb
import pytest

from assets.calibrate.error_table import parse_markdown, table_rows
from assets.calibrate.tables import calibrate_all
from assets.runs.collect import collect_all
from tests.support.data import DATA, REPO_ROOT
from tests.support.observed import build

PAGE = REPO_ROOT / "docs" / "calibrated-model.md"


@pytest.fixture(scope="module")
def recomputed(tmp_path_factory) -> list[list[str]]:
    roots = [str(REPO_ROOT / "examples" / "dumps"), str(REPO_ROOT / "examples" / "public")]
    batch = collect_all(roots, links_into=[str(DATA)])
    path: Path = tmp_path_factory.mktemp("calibrated") / "sweeps.duckdb"
    with duckdb.connect(str(path)) as conn:
        build(conn, batch)
        return table_rows(calibrate_all(conn))


def test_the_error_table_in_the_docs_is_what_the_real_sweeps_give(recomputed):
    printed = parse_markdown(PAGE.read_text(encoding="utf-8"))
    assert [row[:2] for row in printed] == [row[:2] for row in recomputed]  # the same configs, in order
    for shown, again in zip(printed, recomputed):
        assert shown == again, shown[0]


def test_every_real_sweep_of_four_levels_or_more_is_in_the_table(recomputed):
    assert len(recomputed) - 1 >= 10  # the pooled row aside
    assert all(int(row[2]) >= 4 for row in recomputed[:-1])
