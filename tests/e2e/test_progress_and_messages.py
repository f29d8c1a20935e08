"""A failed run names the file and says what to do."""

from pipelines.cli import main


def test_a_failed_run_names_the_file_and_what_to_do(tmp_path, capsys):
    missing = tmp_path / "nowhere" / "summary_results.json"
    assert main(["run", "--mlperf", str(missing), "--warehouse", str(tmp_path / "warehouse")]) == 1
    err = capsys.readouterr().err
    assert f"{missing}: no such file or folder" in err and "What to do:" in err
