"""End to end through `benchbill run`: the worked case of docs/design.md on the real files."""

import hashlib
import subprocess
import sys
import textwrap

import duckdb
import pytest

from pipelines.cli import main
from tests.support.data import V51_TABLE, WORKED_PROFILES, make_dumps
from tests.support.smallcase import content

PROFILE = WORKED_PROFILES
PRICES = """\
accelerator,price_class,usd_per_accelerator_hour,provider,source,as_of
H100-SXM,on_demand,2.99,Lambda,"cliffcenter.com research note (third-party)",2026-05-18
"""


# Its own warehouse: the worked case's one price row and profile (not the shared inputs), and the second run of the
# nothing-changed test writes into it.
@pytest.fixture(scope="module")
def case(tmp_path_factory):
    root = tmp_path_factory.mktemp("worked")
    dumps = make_dumps(root / "dumps")
    (root / "profiles.yaml").write_text(PROFILE)
    (root / "prices.csv").write_text(PRICES)
    warehouse = root / "warehouse"
    args = [
        "run",
        "--mlperf",
        str(V51_TABLE),
        "--dumps",
        str(dumps),
        "--prices",
        str(root / "prices.csv"),
        "--profiles",
        str(root / "profiles.yaml"),
        "--warehouse",
        str(warehouse),
    ]
    return args, warehouse


@pytest.fixture(scope="module")
def first_run(case):
    args, warehouse = case
    assert main(args) == 0
    return warehouse / "serving.duckdb"


def shortlist(serving):
    with duckdb.connect(str(serving), read_only=True) as conn:
        cursor = conn.execute("SELECT * FROM marts.config_shortlist")
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]


CONTRACT = (
    "profile model_id accelerator_id accelerator_count precision runtime run_label evidence mlperf_round "
    "mlperf_submitter mlperf_system mlperf_precision mlperf_server_tokens_per_s_per_accel "
    "mlperf_offline_tokens_per_s_per_accel measured_requests_per_s_low measured_requests_per_s_high "
    "billed_requests_per_s_low billed_requests_per_s_high billed_output_tokens_per_s_low "
    "billed_output_tokens_per_s_high billed_basis delivered_fraction_low "
    "delivered_fraction_high price_class usd_per_accelerator_hour price_as_of cost_per_request_usd_low "
    "cost_per_request_usd_high cost_per_million_output_tokens_usd_low "
    "cost_per_million_output_tokens_usd_high caveats"
).split()


def test_worked_case_vllm_row(first_run):
    rows = shortlist(first_run)
    assert set(CONTRACT) <= set(rows[0])
    (row,) = [r for r in rows if r["run_label"] == "vllm"]
    assert row["evidence"] == "observed" and row["accelerator_id"] == "nvidia-h100-sxm-80gb"
    assert row["model_id"] == "llama-3.1-8b-instruct" and row["precision"] == "bf16"
    assert (row["mlperf_round"], row["mlperf_submitter"], row["mlperf_precision"]) == ("v5.1", "RedHat", "fp8")
    assert row["mlperf_server_tokens_per_s_per_accel"] == pytest.approx(5103.99)
    assert row["mlperf_offline_tokens_per_s_per_accel"] == pytest.approx(5777.08)
    assert row["measured_requests_per_s_low"] == pytest.approx(91.36, abs=0.005)
    assert 91.36 < row["measured_requests_per_s_high"] <= 101.23
    # billed on the band measured as run: the run's workload matches ours
    assert row["billed_basis"] == "measured"
    assert (row["billed_requests_per_s_low"], row["billed_requests_per_s_high"]) == (
        row["measured_requests_per_s_low"],
        row["measured_requests_per_s_high"],
    )
    assert row["billed_output_tokens_per_s_low"] == pytest.approx(5693.9, abs=0.05)
    assert row["delivered_fraction_low"] == pytest.approx(5693.9 / 5103.99, rel=1e-4)
    assert row["usd_per_accelerator_hour"] == 2.99
    assert row["cost_per_request_usd_high"] == pytest.approx(2.99 / (row["billed_requests_per_s_low"] * 3600))
    assert row["cost_per_request_usd_low"] == pytest.approx(2.99 / (row["billed_requests_per_s_high"] * 3600))
    assert row["cost_per_million_output_tokens_usd_high"] == pytest.approx(
        2.99 / (row["billed_output_tokens_per_s_low"] * 3600) * 1e6
    )
    assert "precision differs: MLPerf fp8, ours bf16" in row["caveats"]
    assert "about 204 input / 62 output tokens per request" in row["caveats"]


def test_cli_prints_the_shortlist(first_run, case, capsys):
    assert main(case[0]) == 0
    out = capsys.readouterr().out
    assert "vllm+batch_size" in out and "91.36-94.28" in out and "5,104" in out  # req/s, MLPerf tok/s per acc.
    assert "0.00881-0.00909" in out  # USD per 1,000 requests at 2.99 USD/h: 2.99 / (94.28 or 91.36 x 3600) x 1000


def test_second_run_with_nothing_changed_gives_byte_identical_results_over_every_table_and_view(
    first_run, case, capsys
):
    # Every column, ingestion times included; only the time the (equal) fingerprint was recorded moves.
    before = content(first_run, volatile=RECORDED)
    capsys.readouterr()
    assert main([*case[0], "--force"]) == 0  # without --force, nothing changed only shows the publish
    assert "benchbill: building" in capsys.readouterr().err
    after = content(first_run, volatile=RECORDED)
    assert after == before and len(after) >= 39
    with duckdb.connect(str(first_run), read_only=True) as conn:  # re-ingested: replaced, not duplicated
        counts = conn.execute(
            "SELECT (SELECT count(*) FROM benchmark.mlperf_results), "
            "(SELECT count(*) FROM observed.load_points), "
            "(SELECT count(*) FROM audit.mlperf_round_versions)"
        ).fetchone()
    assert counts == (1448, 14, 1)


RECORDED = {"audit.run_fingerprint": {"recorded_at"}}
READER = textwrap.dedent("""
    import sys, duckdb
    conn = duckdb.connect(sys.argv[1], read_only=True)
    print(conn.execute("SELECT count(*) FROM marts.config_shortlist").fetchone()[0], flush=True)
    sys.stdin.readline()
    print(conn.execute("SELECT count(*) FROM marts.config_shortlist").fetchone()[0], flush=True)
""")


def test_a_reader_holding_the_serving_file_neither_fails_nor_blocks_a_run(first_run, case):
    reader = subprocess.Popen(
        [sys.executable, "-c", READER, str(first_run)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        before = int(reader.stdout.readline())
        assert main(case[0]) == 0
        reader.stdin.write("\n")
        reader.stdin.flush()
        assert int(reader.stdout.readline()) == before
    finally:
        reader.communicate(timeout=30)
    assert reader.returncode == 0


def test_a_failed_run_leaves_the_published_file_untouched(first_run, case, tmp_path, capsys):
    digest = hashlib.sha256(first_run.read_bytes()).hexdigest()
    broken = tmp_path / "summary_results.json"
    broken.write_text('[{"Submitter": ')
    args = list(case[0])
    args[args.index("--mlperf") + 1] = str(broken)
    assert main(args) == 1
    err = capsys.readouterr().err
    assert f"finding the MLPerf rounds failed: {broken}: invalid JSON" in err  # in words, not a step key
    assert "benchmark__mlperf_results" not in err
    assert hashlib.sha256(first_run.read_bytes()).hexdigest() == digest


def test_quarantine_and_provenance_are_published(first_run):
    with duckdb.connect(str(first_run), read_only=True) as conn:
        files = conn.execute("SELECT table_name, status, count(*) FROM audit.source_files GROUP BY ALL").fetchall()
        sha = conn.execute("SELECT DISTINCT source_sha256 FROM benchmark.mlperf_results").fetchall()
    assert ("benchmark.mlperf_results", "read", 1) in files
    assert ("observed.measurements", "skipped", 16) in files  # the Prometheus files, listed, not dropped
    assert sha == [(hashlib.sha256(V51_TABLE.read_bytes()).hexdigest(),)]


def test_the_calibrated_engine_models_and_their_validation_are_published(first_run):
    with duckdb.connect(str(first_run), read_only=True) as conn:
        models = conn.execute(
            "SELECT status, load_levels, step_b0_ms, heldout_rel_error_median FROM analytics.engine_models"
        ).fetchall()
        validated = conn.execute(
            "SELECT count(*), count(DISTINCT config_key), min(relative_error) FROM calibrated.validation"
        ).fetchone()
    assert models and all(status != "too_few_levels" for status, *_ in models)
    assert all(levels >= 4 and b0 > 0 and error is not None for _status, levels, b0, error in models)
    assert validated is not None and validated[0] > 0 and validated[1] == len(models) and validated[2] >= 0


def test_a_profile_without_a_token_mix_is_said_on_its_calibrated_row_and_the_rest_builds(first_run):
    """The worked profile states no workload: our traffic cannot be run through the engine model, said in words;
    the shortlist is built all the same."""
    with duckdb.connect(str(first_run), read_only=True) as conn:
        delivered = conn.execute("SELECT status, bills, status_reason FROM analytics.calibrated_delivered").fetchall()
        curves = conn.execute("SELECT count(*) FROM analytics.calibrated_curve").fetchone()
        shortlisted = conn.execute("SELECT count(*) FROM analytics.shortlist").fetchone()
        priced = conn.execute("SELECT variant, status, status_reason FROM analytics.cost_sensitivity").fetchall()
    assert delivered and all(status == "no_traffic" and not bills for status, bills, _ in delivered)
    # nothing to price either: one row per profile x config saying why
    assert len(priced) == len(delivered) and all(v == "our_mix" and s == "not_priced" for v, s, _ in priced)
    assert all("no token mix" in reason for *_, reason in priced)
    assert all("no token mix" in reason for *_, reason in delivered)
    assert curves == (0,) and shortlisted is not None and shortlisted[0] > 0
