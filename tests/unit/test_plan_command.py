"""`benchbill plan --profile NAME [--output DIR]` on a small published warehouse: it prints the profile's plan from
the serving file, copies each plan folder with --output, names the profiles that exist for an unknown one, says why a
profile has no plan, and refuses a serving file published before the plan existed; `benchbill run`'s lines per
profile print nothing for such a file."""

from assets.resources import Warehouse
from pipelines.cli import main
from pipelines.published_output import measure_next_lines
from tests.support.plan_serving import PROFILE, plan_row, plan_warehouse

FIRST, SECOND = "plan-aaaaaaaaaaaa", "plan-bbbbbbbbbbbb"


def published(tmp_path, folders=True):
    """A warehouse with a two-row plan for PROFILE and a profile that states no volume."""
    rows = [plan_row(1, FIRST), plan_row(2, SECOND, predicted=False, reason="decision_at_risk")]
    return plan_warehouse(tmp_path / "warehouse", rows, profiles={PROFILE: True, "batch": False}, folders=folders)


def test_the_plan_is_printed_with_where_its_files_are(tmp_path, capsys):
    warehouse = published(tmp_path)
    assert main(["plan", "--profile", PROFILE, "--warehouse", str(warehouse)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"measurement plan for {PROFILE} (2 rows" in out
    assert f"plan {FIRST}: open since 2026-12-07" in out and f"plan {SECOND}: open since 2026-12-07" in out
    assert f"files: {warehouse.resolve()}/plans/{FIRST}/" in out


def test_output_copies_each_plan_folder_and_says_so(tmp_path, capsys):
    warehouse = published(tmp_path)
    output = tmp_path / "to-run"
    assert main(["plan", "--profile", PROFILE, "--warehouse", str(warehouse), "--output", str(output)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    for plan_id in (FIRST, SECOND):
        assert sorted(p.name for p in (output / plan_id).iterdir()) == ["README.md", "plan.json"]
        assert (output / plan_id / "plan.json").read_text() == (warehouse / "plans" / plan_id / "plan.json").read_text()
        assert f"to {output.resolve()}/{plan_id}/ (2 files)" in out


def test_output_names_a_plan_folder_that_is_missing(tmp_path, capsys):
    warehouse = published(tmp_path, folders=False)
    output = tmp_path / "to-run"
    assert main(["plan", "--profile", PROFILE, "--warehouse", str(warehouse), "--output", str(output)]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert f"2 plan folder(s) not found, not copied: {FIRST} ({warehouse.resolve()}/plans/{FIRST}" in err
    assert not (output / FIRST).exists()


def test_output_inside_the_warehouse_or_onto_a_file_is_refused(tmp_path, capsys):
    warehouse = published(tmp_path)
    assert main(["plan", "--profile", PROFILE, "--warehouse", str(warehouse), "--output", str(warehouse)]) == 1
    assert "refused" in capsys.readouterr().err
    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine")
    assert main(["plan", "--profile", PROFILE, "--warehouse", str(warehouse), "--output", str(a_file)]) == 1
    assert "is a file" in capsys.readouterr().err and a_file.read_text() == "mine"


def test_an_unknown_profile_names_the_profiles_that_exist(tmp_path, capsys):
    warehouse = published(tmp_path)
    assert main(["plan", "--profile", "chat-70b", "--warehouse", str(warehouse)]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert "no profile 'chat-70b'" in err and f"its profiles are: batch, {PROFILE}" in err


def test_a_profile_without_plan_rows_says_why(tmp_path, capsys):
    warehouse = published(tmp_path)
    assert main(["plan", "--profile", "batch", "--warehouse", str(warehouse)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert out.startswith("no measurement plan for batch: no volume stated")


def test_a_serving_file_published_before_the_plan_existed_is_named(tmp_path, capsys):
    warehouse = plan_warehouse(tmp_path / "warehouse", rows=None)
    assert main(["plan", "--profile", PROFILE, "--warehouse", str(warehouse)]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert "holds no marts.measurement_plan" in err and "benchbill run" in err
    assert measure_next_lines(Warehouse(dir=str(warehouse))) == []  # and `benchbill run` prints no plan line


def test_no_serving_file_says_to_run_first(tmp_path, capsys):
    assert main(["plan", "--profile", PROFILE, "--warehouse", str(tmp_path)]) == 1
    assert "no published serving file; run `benchbill run` first" in " ".join(capsys.readouterr().err.split())


def test_run_prints_the_first_row_of_each_profiles_plan_and_where_its_files_are(tmp_path):
    warehouse = published(tmp_path)
    lines = measure_next_lines(Warehouse(dir=str(warehouse)))
    said = " ".join(" ".join(lines).split())
    assert said.startswith(
        f"measurement plan for {PROFILE}, row 1 of 2: llama-3.1-8b-instruct on 1x nvidia-h100-sxm-80gb"
    )
    assert f"files: {warehouse.resolve()}/plans/{FIRST}/ (the whole plan and why: benchbill plan" in said
    assert 2 <= len(lines) <= 8
