"""A long parse of a dumps folder reports its progress."""

from assets.runs.collect import collect_all


def test_a_long_parse_of_a_dumps_folder_reports_its_progress(dumps_tree, monkeypatch):
    monkeypatch.setattr("assets.runs.collect.PROGRESS_EVERY_FILES", 5)
    monkeypatch.setattr("assets.inputs.files.LARGE_FILE_BYTES", 2048)  # the real stage reports (3.3 KB) count as large
    lines = []
    batch = collect_all([str(dumps_tree)], log=lines.append)
    # read run partition by run partition (a run.yaml folder each): every message names its partition
    files = len([f for f in batch.files if f.source.startswith(f"{dumps_tree}/vllm/")])
    assert lines[0] == f"{dumps_tree}: vllm: {files} files, 0.0 MB"
    assert any(line.startswith("checksums of ") and " large files (" in line for line in lines)
    counts = [line for line in lines if line.startswith(f"{dumps_tree}: vllm: read ")]
    assert counts and counts[0] == f"{dumps_tree}: vllm: read 5 of {files} files"
    assert f"{dumps_tree}: vllm: 1 run, 7 load points" in lines
    assert f"{dumps_tree}: vllm+batch_size: 1 run, 7 load points" in lines
    assert batch.runs and [r["run_label"] for r in batch.runs] == [
        r["run_label"] for r in collect_all([str(dumps_tree)]).runs
    ]
