"""Bad input end to end: a damaged dump, or a broken run.yaml, is quarantined while everything else publishes; a
file that cannot be read (a round table, the profiles) stops the run and loses nothing published before."""

import json

import duckdb
import pytest

from pipelines.cli import main
from tests.support.data import V51_TABLE, make_dumps
from tests.support.smallcase import file_sha, parquet_snapshot


def test_end_to_end_a_damaged_dump_is_quarantined_while_everything_else_publishes(small_case):
    """Every run of the small case reads a damaged vLLM result beside a good one: the run succeeds,
    the damage is quarantined with its reason, and nothing unrelated is lost."""
    with duckdb.connect(str(small_case.reference / "serving.duckdb"), read_only=True) as conn:
        quarantined = conn.execute(
            "SELECT source, reason FROM analytics.quarantine WHERE source LIKE '%broken.json'"
        ).fetchall()
        counts = conn.execute(
            "SELECT (SELECT count(*) FROM benchmark.mlperf_results), (SELECT count(*) FROM "
            "observed.runs), (SELECT count(*) FROM marts.config_shortlist)"
        ).fetchone()
    assert quarantined and all("ttfts of request 0 is not a number (got 'N/A')" in r for _s, r in quarantined)
    assert counts[0] == 24 and counts[1] == 3 and counts[2] > 0


@pytest.mark.parametrize("damage", ["round table cut short", "profiles nested 100000 deep"])
def test_end_to_end_a_file_that_cannot_be_read_stops_the_run_and_loses_nothing(damage, small_case, tmp_path, capsys):
    warehouse = small_case.copy_of(small_case.published, tmp_path / "warehouse")
    before = (file_sha(warehouse / "serving.duckdb"), parquet_snapshot(warehouse))
    args = list(small_case.args_b)
    if damage == "round table cut short":
        bad = tmp_path / "summary_results.json"
        bad.write_bytes((small_case.root / "b" / "summary_results.json").read_bytes()[:5000])
        args[args.index("--mlperf") + 1] = str(bad)
    else:
        bad = tmp_path / "profiles.yaml"
        bad.write_text("profiles: " + "[" * 100_000)
        args += ["--profiles", str(bad)]
    assert main(small_case.run_args(args, warehouse)) == 1
    err = capsys.readouterr().err
    assert str(bad) in err and ("invalid JSON" in err or "nested more than 100 levels" in err)
    assert (file_sha(warehouse / "serving.duckdb"), parquet_snapshot(warehouse)) == before


def test_end_to_end_a_broken_run_yaml_costs_only_its_runs_and_the_rest_publishes(tmp_path, capsys):
    """Two runs, the second under a run.yaml that is not YAML: the run exits 0, the first run publishes with its
    shortlist rows, and the broken run.yaml is quarantined naming the file (a key of the wrong type, the other
    run.yaml damage: tests/integration/test_dumps_run_yaml.py)."""
    records = [r for r in json.loads(V51_TABLE.read_bytes()) if r["Submitter"] == "RedHat"]
    table = tmp_path / "summary_results.json"
    table.write_text(json.dumps(records))
    dumps = make_dumps(tmp_path / "dumps")
    (dumps / "vllm+batch_size" / "run.yaml").write_text("accelerator: [unclosed\nmodel: x\n")
    warehouse = tmp_path / "warehouse"
    assert main(["run", "--mlperf", str(table), "--dumps", str(dumps), "--warehouse", str(warehouse)]) == 0
    out = capsys.readouterr().out
    sidecar = str(dumps / "vllm+batch_size" / "run.yaml")
    assert f"{sidecar} (run {dumps / 'vllm+batch_size'})" in " ".join(out.split())
    with duckdb.connect(str(warehouse / "serving.duckdb"), read_only=True) as conn:
        runs = conn.execute("SELECT run_label FROM observed.runs").fetchall()
        shortlisted = conn.execute(
            "SELECT DISTINCT run_label FROM marts.config_shortlist WHERE evidence = 'observed'"
        ).fetchall()
        (reason,) = conn.execute("SELECT reason FROM analytics.quarantine WHERE source = ?", [sidecar]).fetchone()
    assert runs == [("vllm",)] and shortlisted == [("vllm",)]
    assert reason.startswith("not a readable YAML file") and "the other runs read on" in reason
