"""Bad input end to end: a damaged dump is quarantined while everything else publishes; a file that
cannot be read stops the run and loses nothing published before."""

import duckdb
import pytest

from pipelines.cli import main
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
