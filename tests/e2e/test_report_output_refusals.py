"""`benchbill report --output` never writes into the warehouse's published set (the serving file, the publish
record, the Parquet export, ...: refused by name, nothing changed), and a report is written only from the serving
file that is still the published one: a run that publishes while the report reads the one before has it written
again from the new one."""

from pathlib import Path

import pytest

from assets.report import report as report_module
from assets.warehouse.layout import WarehouseLayout
from assets.warehouse.published_set import publish_serving, read_record
from pipelines.cli import main
from tests.e2e.test_run_partitions_incremental_run import run
from tests.support.data import WORKED_PROFILES as PROFILES
from tests.support.sweeps import sweeps_tree

MEMBERS = [
    "serving.duckdb",
    "published.json",
    "parquet/current",
    "parquet",
    "build.duckdb",
    "records/new.html",
    "runs/index.json",
    "serving.duckdb.next",
    ".",
]


# Its own warehouse: the run-partition tests' sweeps (a small build); the tests write reports beside and into it.
@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    """A warehouse published by `benchbill run` from the sweeps of the run-partition tests."""
    root = tmp_path_factory.mktemp("report-output")
    sweeps_tree(root / "dumps")
    (root / "profiles.yaml").write_text(PROFILES)
    run(root, root / "warehouse")
    return root / "warehouse"


def snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every file and link below the warehouse folder, by its content (a link: its target)."""
    found: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            found[str(path.relative_to(folder))] = str(path.readlink())
        elif path.is_file():
            found[str(path.relative_to(folder))] = path.read_bytes()
    return found


@pytest.mark.parametrize("member", MEMBERS)
def test_report_output_inside_the_published_set_is_refused_and_nothing_changes(warehouse, member, capsys):
    before = snapshot(warehouse)
    assert main(["report", "--warehouse", str(warehouse), "--output", str(warehouse / member)]) == 1
    err = capsys.readouterr().err
    assert "refused" in err and "inside the warehouse folder" in err and "write the report elsewhere" in err
    assert snapshot(warehouse) == before


def test_report_output_through_a_link_to_the_serving_file_is_refused(warehouse, tmp_path, capsys):
    link = tmp_path / "report.html"
    link.symlink_to(warehouse / "serving.duckdb")
    before = snapshot(warehouse)
    assert main(["report", "--warehouse", str(warehouse), "--output", str(link)]) == 1
    assert "is the serving file" in capsys.readouterr().err
    assert snapshot(warehouse) == before


def test_a_report_read_before_a_publish_is_written_again_from_the_new_serving_file(
    warehouse, tmp_path, capsys, monkeypatch
):
    layout = WarehouseLayout(warehouse)
    real = report_module.write_report
    reads: list[str | None] = []

    def publish_meanwhile(serving: Path, output: Path, serving_name: Path | None = None) -> int:
        """The report read, then a run publishes (the first time only)."""
        size = real(serving, output, serving_name)
        record = read_record(layout)
        reads.append(record.published_at if record else None)
        if len(reads) == 1:
            monkeypatch.setattr(report_module, "write_report", real)  # the publish writes its own report
            publish_serving(layout.build_path, layout, real)
            monkeypatch.setattr(report_module, "write_report", publish_meanwhile)
        return size

    monkeypatch.setattr(report_module, "write_report", publish_meanwhile)
    target = tmp_path / "decision.html"
    assert main(["report", "--warehouse", str(warehouse), "--output", str(target)]) == 0
    out, err = capsys.readouterr()
    assert "published the serving file again" in err and "written again from the new one" in err
    assert len(reads) == 2  # read again from the file the run published
    assert f"report: {target}" in out and 'class="shortlist-row"' in target.read_text()


def test_a_report_whose_serving_file_is_published_again_at_every_read_is_refused(
    warehouse, tmp_path, capsys, monkeypatch
):
    layout = WarehouseLayout(warehouse)
    real = report_module.write_report

    def publish_every_time(serving: Path, output: Path, serving_name: Path | None = None) -> int:
        size = real(serving, output, serving_name)
        monkeypatch.setattr(report_module, "write_report", real)
        publish_serving(layout.build_path, layout, real)
        monkeypatch.setattr(report_module, "write_report", publish_every_time)
        return size

    monkeypatch.setattr(report_module, "write_report", publish_every_time)
    target = tmp_path / "decision.html"
    target.write_text("the last report")
    assert main(["report", "--warehouse", str(warehouse), "--output", str(target)]) == 1
    assert "refused: runs published the serving file again 3 times" in capsys.readouterr().err
    assert target.read_text() == "the last report" and sorted(tmp_path.iterdir()) == [target]


def test_report_output_naming_a_folder_is_refused_by_the_command_and_leaves_nothing(warehouse, tmp_path, capsys):
    folder = tmp_path / "reports"
    folder.mkdir()
    (folder / "older.html").write_text("an older report")
    for _attempt in range(2):  # each time: nothing left behind, beside it or in it
        assert main(["report", "--warehouse", str(warehouse), "--output", str(folder)]) == 1
        err = capsys.readouterr().err
        assert err == (
            f"benchbill report: refused: {folder} is a folder; --output takes the report's file name "
            f"(e.g. {folder / 'report.html'})\n"
        )
        assert sorted(p.name for p in tmp_path.iterdir()) == ["reports"]
        assert [p.name for p in folder.iterdir()] == ["older.html"]


def test_a_report_whose_output_cannot_be_replaced_leaves_no_staging_file(warehouse, tmp_path, capsys, monkeypatch):
    """The output made a folder while the report was read (the check before passed): refused, the staging file
    removed."""
    target = tmp_path / "decision.html"
    real = report_module.write_report

    def folder_meanwhile(serving: Path, output: Path, serving_name: Path | None = None) -> int:
        size = real(serving, output, serving_name)
        target.mkdir()
        return size

    monkeypatch.setattr(report_module, "write_report", folder_meanwhile)
    assert main(["report", "--warehouse", str(warehouse), "--output", str(target)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"benchbill report: refused: cannot write {target} (") and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["decision.html"] and target.is_dir()
