"""`benchbill sql`: named queries and plain SQL on the serving file, read-only, parameters bound."""

import csv
import io
import json
import re

import duckdb
import pytest

from assets.warehouse import sqldoc
from pipelines.cli import main
from tests.support.data import REPO_ROOT

SAMPLE_PARAMS = {"profile": "chat-8b-interactive", "accelerator": "h100", "model": "llama", "run": "vllm"}


def sql(published, *args):
    return main(["sql", *args, "--warehouse", str(published)])


def test_without_a_query_it_lists_the_named_queries_and_their_parameters(published, capsys):
    assert sql(published) == 0
    out = capsys.readouterr().out
    for name, doc in sqldoc.query_docs().items():
        assert name in out and doc.description in out
    assert "--param profile=..." in out


@pytest.mark.parametrize("name", sorted(sqldoc.query_docs()))
def test_every_named_query_runs_with_its_parameters(published, name, capsys):
    doc = sqldoc.query_docs()[name]
    params = [f"--param={p}={SAMPLE_PARAMS[p]}" for p in doc.params]
    assert sql(published, name, *params, "--format", "json") == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows, f"{name} returned no rows on the real data"  # the quarantine holds the fixture's bad price row


def test_the_shortlist_query_returns_the_profile_rows_of_the_shortlist(published, capsys):
    assert sql(published, "shortlist", "--param", "profile=chat-8b-interactive", "--format", "json") == 0
    rows = json.loads(capsys.readouterr().out)
    with duckdb.connect(str(published / "serving.duckdb"), read_only=True) as conn:
        expected = conn.execute(
            "SELECT cost_per_request_usd_high, billed_requests_per_s_low, measured_requests_per_s_low, billed_basis "
            "FROM marts.config_shortlist WHERE profile = 'chat-8b-interactive' ORDER BY rank_in_profile"
        ).fetchall()
    assert [r["rank_in_profile"] for r in rows] == list(range(1, len(expected) + 1))
    # in the terminal's and the report's unit, named in the column: USD per 1,000 requests
    assert [r["cost_per_thousand_requests_usd_high"] for r in rows] == [
        pytest.approx(e[0] * 1000, rel=1e-12) if e[0] is not None else None for e in expected
    ]
    # two bands under two names: the one the cost is priced on, and the one measured as run
    bands = [(r["billed_requests_per_s_low"], r["measured_requests_per_s_low"], r["billed_basis"]) for r in rows]
    assert bands == [e[1:] for e in expected]
    assert {basis for _b, _m, basis in bands} >= {"measured", "projected"}
    assert all(measured is None for _b, measured, basis in bands if basis == "projected")  # no run of ours


def test_the_reference_gap_divides_by_the_reference_the_shortlist_divides_by(published, capsys):
    """reference_gap's MLPerf number is the profile's reference scenario (Interactive or Server), so its delivered
    fraction is the shortlist's, config by config."""
    assert sql(published, "reference_gap", "--format", "json") == 0
    rows = [r for r in json.loads(capsys.readouterr().out) if r["delivered_fraction_low"] is not None]
    assert rows
    with duckdb.connect(str(published / "serving.duckdb"), read_only=True) as conn:
        shortlist = {  # our runs, by profile and run label
            (profile, run_label): (scenario, fraction)
            for profile, run_label, scenario, fraction in conn.execute(
                "SELECT DISTINCT profile, run_label, coalesce(mlperf_reference_scenario, 'Server'), "
                "delivered_fraction_low FROM marts.config_shortlist "
                "WHERE evidence = 'observed' AND delivered_fraction_low IS NOT NULL"
            ).fetchall()
        }
    compared = 0
    for row in rows:
        scenario = row["mlperf_reference_scenario"]
        expected = row[f"mlperf_{'interactive' if scenario == 'Interactive' else 'server'}_tokens_per_s_per_accel"]
        assert row["mlperf_reference_tokens_per_s_per_accel"] == expected
        key = (row["profile"], row["run_label"])
        if row["evidence"] == "observed" and key in shortlist:
            compared += 1
            assert shortlist[key][0] == scenario
            assert row["delivered_fraction_low"] == pytest.approx(shortlist[key][1], rel=1e-9)
    assert compared


def test_parameters_are_bound_never_pasted_into_the_sql(published, capsys):
    hostile = "profile=x' OR '1'='1"
    plain = "SELECT profile FROM analytics.shortlist WHERE profile = $profile"
    assert sql(published, plain, "--param", hostile, "--format", "json") == 0
    assert json.loads(capsys.readouterr().out) == []
    assert sql(published, "shortlist", "--param", hostile, "--format", "json") == 1  # a named query checks it first
    assert "--param profile=\"x' OR '1'='1\" is not one of the 2 values" in capsys.readouterr().err


def test_plain_sql_as_csv_and_as_a_table(published, capsys):
    assert (
        sql(
            published,
            "SELECT round, count(*) AS results FROM analytics.mlperf_results GROUP BY 1 ORDER BY 1",
            "--format",
            "csv",
        )
        == 0
    )
    assert list(csv.reader(io.StringIO(capsys.readouterr().out))) == [
        ["round", "results"],
        ["v4.1", "937"],
        ["v5.1", "1448"],
    ]
    assert sql(published, "SELECT $p AS echoed, NULL AS nothing", "--param", "p=it's") == 0
    assert capsys.readouterr().out.splitlines() == ["echoed  nothing", "------  -------", "it's    NULL", "(1 row)"]


def test_the_serving_file_is_opened_read_only(published, capsys):
    assert sql(published, "DELETE FROM marts.config_shortlist") == 1
    assert "read-only" in capsys.readouterr().err
    with duckdb.connect(str(published / "serving.duckdb"), read_only=True) as conn:
        assert conn.execute("SELECT count(*) FROM marts.config_shortlist").fetchone()[0] > 0


def test_mistakes_say_what_to_do(published, tmp_path, capsys):
    assert sql(published, "shortlist") == 1
    assert "needs --param profile=..." in capsys.readouterr().err
    assert sql(published, "shortlist", "--param", "profile=a", "--param", "colour=red") == 1
    assert "takes no parameter ['colour']" in capsys.readouterr().err
    assert sql(published, "shortlsit") == 1
    assert "named queries: accelerator_rounds" in capsys.readouterr().err
    assert sql(published, "shortlist", "--param", "profile") == 1
    assert "expected NAME=VALUE" in capsys.readouterr().err
    assert main(["sql", "SELECT 1", "--warehouse", str(tmp_path)]) == 1
    assert "run `benchbill run` first" in capsys.readouterr().err


def test_benchbill_shell_is_duckdbs_prompt_on_the_serving_file_read_only(published):
    import subprocess
    import sys

    session = subprocess.run(
        [sys.executable, "-m", "pipelines.cli", "shell", "--warehouse", str(published)],
        cwd=REPO_ROOT,
        input="SELECT count(*) AS configs FROM analytics.shortlist;\nCREATE TABLE scratch AS SELECT 1;\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "49" in session.stdout
    assert "read-only" in session.stdout + session.stderr


def test_the_table_format_writes_costs_plainly_never_in_scientific_notation(published, capsys):
    """Costs per request are around 1e-5 USD: the table shows them as 0.0000xxx to 6 significant digits."""
    query = (
        "SELECT rank_in_profile, cost_per_request_usd_low, cost_per_request_usd_high, usd_per_accelerator_hour "
        "FROM analytics.shortlist WHERE profile = 'chat-8b-interactive' AND cost_per_request_usd_low IS NOT NULL "
        "ORDER BY 1"
    )
    assert sql(published, query) == 0
    lines = capsys.readouterr().out.splitlines()
    assert not re.search(r"\b\d+(\.\d+)?[eE][-+]\d+", "\n".join(lines))
    assert lines[-1] == (
        "(cost_per_request_usd_low, cost_per_request_usd_high: USD per request; the terminal and the report show them "
        "x 1,000, in USD per 1,000 requests)"
    )
    shown = [[float(cell.replace(",", "")) for cell in line.split()] for line in lines[2:-2]]
    with duckdb.connect(str(published / "serving.duckdb"), read_only=True) as conn:
        expected = conn.execute(query).fetchall()
    assert len(shown) == len(expected) > 0
    for row, values in zip(shown, expected):
        assert row == pytest.approx(list(values), rel=1e-5)
        assert 0 < row[1] < 1e-3  # costs per request, in USD


@pytest.mark.parametrize("profile", ["nope", "chat-8b"])
def test_an_unknown_profile_is_refused_listing_the_valid_ones(published, capsys, profile):
    assert main(["sql", "shortlist", "--param", f"profile={profile}", "--warehouse", str(published)]) == 1
    err = capsys.readouterr().err
    assert f"--param profile={profile!r} is not one of the 2 values of analytics.profiles.profile" in err
    assert "chat-70b-interactive, chat-8b-interactive" in err


def test_an_accelerator_no_result_names_is_refused_and_a_part_of_one_is_not(published, capsys):
    args = ["sql", "accelerator_rounds", "--warehouse", str(published), "--param"]
    assert main([*args, "accelerator=h1000"]) == 1
    assert "--param accelerator='h1000' is part of none of the" in capsys.readouterr().err
    assert main([*args, "accelerator=H100", "--format", "csv"]) == 0
    assert "nvidia-h100-sxm-80gb" in capsys.readouterr().out
