"""MLPerf plausibility on small records: a count the system name contradicts, a per-accelerator value far from its
peers, unofficial sources, CPU-only spelled "None", one spelling per suite set; and the SQL tables leave flagged
rows out (the real files are in tests/integration/test_mlperf_plausibility_real_tables.py)."""

import duckdb
import pytest

from assets.formats.mlperf import plausibility
from assets.formats.mlperf.plausibility import (
    CORROBORATION_FACTOR,
    MIN_PEERS,
    PEER_OUTLIER_FACTOR,
    flag_peer_outliers,
    stated_counts,
)
from assets.formats.mlperf.rows import SUITE_ORDER, Origin, RowProblem, normalise_suite, record_to_row
from assets.mlperf_rounds.rounds import results_frame
from assets.warehouse.sqlfiles import run_sql_file
from assets.warehouse.write import write_table
from schemas.benchmark.mlperf_reference import MlperfReference
from schemas.benchmark.mlperf_results import SUITES, MlperfResults
from schemas.benchmark.mlperf_round_over_round import MlperfRoundOverRound

ORIGIN = Origin("results/summary_results.json", "0" * 64, None, "summary_results_json")


def record(**changes):
    """A final-report record of a closed Offline gptj-99 result on one H100 (made up, shaped like v3.1's)."""
    base = {
        "ID": "3.1-0001",
        "Submitter": "Acme",
        "Category": "closed",
        "Suite": "edge",
        "Platform": "box",
        "System": "Acme box (1x NVIDIA H100 80GB HBM3, TensorRT)",
        "Model": "gptj-99",
        "Scenario": "Offline",
        "Performance_Result": 13.0,
        "Performance_Units": "Samples/s",
        "Nodes": 1,
        "Accelerator": "NVIDIA H100 80GB HBM3",
        "a#": 1,
        "version": "v3.1",
        "Details": "https://github.com/mlcommons/inference_results_v3.1/tree/main/closed/Acme/results/box",
    }
    return base | changes


def row(origin=ORIGIN, **changes):
    return record_to_row(record(**changes), origin=origin, index=0)


# --- the accelerator count the system name states ------------------------------------------------------------


@pytest.mark.parametrize(
    ("system_name", "accelerator", "counts"),
    [
        ("Dell PowerEdge XE8640 (4x NVIDIA H100 80GB HBM3, TensorRT)", "NVIDIA H100 80GB HBM3", [4]),
        ("ASUSTeK ESC4000A-E12 (4xH100-NVL-94GB)", "NVIDIA H100-NVL-94GB", [4]),
        ("8xMI300X_2xEPYC_9575F", "AMD Instinct MI300X", [8]),  # 2xEPYC: host processors, not counted
        ("4x8xH100-SXM-80GB", "NVIDIA H100-SXM-80GB", [32]),  # nodes x per node
        ("Dell PowerEdge R760 (2x Intel Xeon Platinum 8592+)", "NVIDIA L4", []),  # a CPU count
        ("GX2560M7_H100_SXM_80GBx4", "NVIDIA H100-SXM-80GB", []),  # suffix form: not read
        ("GATE Overflow Intel Sapphire Rapids (2x RTX 4090)", "NVIDIA GeForce RTX 4090", [2]),
    ],
)
def test_the_counts_a_system_name_states_of_its_accelerator(system_name, accelerator, counts):
    assert stated_counts(system_name, accelerator) == counts


def test_a_declared_count_the_system_name_contradicts_is_implausible_with_the_reason():
    flagged = row(System="Dell PowerEdge XE8640 (4x NVIDIA H100 80GB HBM3, TensorRT)", Performance_Result=51.7954)
    assert flagged["plausible"] is False
    assert (
        "states 4" in flagged["implausible_reason"]
        and "declares 1 per node x 1 node(s) = 1" in (flagged["implausible_reason"])
    )
    # the row keeps its numbers: flagged, not changed nor dropped
    assert flagged["result_per_accelerator"] == pytest.approx(51.7954) and flagged["accelerator_count"] == 1


@pytest.mark.parametrize(
    "changes",
    [
        {"System": "Acme box (4x NVIDIA H100 80GB HBM3)", "a#": 4},  # per node
        {"System": "Acme cluster (8x NVIDIA H100 80GB HBM3)", "a#": 4, "Nodes": 2},  # the whole system
        {"System": "Acme (2x8x NVIDIA H100 80GB HBM3, 1x8x NVIDIA H100 80GB HBM3)", "a#": 8, "Nodes": 3},  # sum
        {"System": "Acme box", "a#": 1},  # no count stated
    ],
)
def test_a_count_the_name_agrees_with_or_does_not_state_is_plausible(changes):
    assert row(**changes)["plausible"] is True and row(**changes)["implausible_reason"] is None


# --- a per-accelerator value far from its peers ---------------------------------------------------------------


def peers(*values, division="closed"):
    rows = []
    for i, value in enumerate(values):
        one = row(Platform=f"box{i}", Category=division, Performance_Result=value)
        rows.append(one)
    return rows


def test_a_value_more_than_the_factor_from_the_median_of_enough_peers_is_flagged():
    rows = peers(100.0, 110.0, 95.0, 105.0, 100.0 * PEER_OUTLIER_FACTOR * 1.2)
    assert flag_peer_outliers(rows) == 1
    assert [r["plausible"] for r in rows] == [True, True, True, True, False]
    assert f"more than {PEER_OUTLIER_FACTOR:g}x" in rows[-1]["implausible_reason"]
    low = peers(100.0, 110.0, 95.0, 105.0, 100.0 / PEER_OUTLIER_FACTOR / 1.2)
    assert flag_peer_outliers(low) == 1 and low[-1]["plausible"] is False


def test_a_far_value_another_result_corroborates_is_not_flagged():
    # two tuned results among untuned ones (v4.0 RTX 4090 resnet): neither is an outlier
    rows = peers(3900.0, 3600.0, 2300.0, 4000.0, 44567.0, 44567.0 * CORROBORATION_FACTOR * 0.9)
    assert flag_peer_outliers(rows) == 0


def test_too_few_peers_the_open_division_and_latency_results_are_not_judged():
    assert flag_peer_outliers(peers(*[100.0] * MIN_PEERS)[: MIN_PEERS - 1] + peers(1000.0)) == 0
    assert flag_peer_outliers(peers(100.0, 100.0, 100.0, 100.0, 1000.0, division="open")) == 0
    latency = [
        row(Platform=f"b{i}", Scenario="SingleStream", Performance_Result=v, Performance_Units="Latency (ms)")
        for i, v in enumerate([1, 1, 1, 9])
    ]
    assert flag_peer_outliers(latency) == 0


def test_flagged_and_unofficial_rows_are_not_peers():
    rows = peers(100.0, 100.0, 100.0, 600.0)
    rows[0]["official"] = False
    assert flag_peer_outliers(rows) == 0  # two trusted peers left for the 600: too few


# --- unofficial sources ---------------------------------------------------------------------------------------


def test_a_row_from_an_unofficial_submissions_source_is_not_official():
    origin = Origin("data/mlperf/summary/v5.0/unofficial_submissions/summary.csv", "0" * 64, None, "checker_csv")
    unofficial = row(origin=origin)
    assert unofficial["official"] is False and "unofficial_submissions" in unofficial["unofficial_reason"]


def test_a_details_link_into_another_round_s_repository_is_not_official():
    link = "https://github.com/mlcommons/submissions_inference_4.1/tree/main/closed/MLCommons/results/RTX4090x1"
    unofficial = row(version="v5.0", ID="5.0-0001", Details=link)
    assert unofficial["official"] is False and "round v4.1's repository" in unofficial["unofficial_reason"]
    fork = "https://github.com/gateoverflow/inference_results_v4.1/tree/main/closed/Acme/results/box"
    assert row(version="v4.1", ID="4.1-0001", Details=fork)["official"] is True


# --- CPU-only and the suite ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["None", "none", "N/A", "", "-", "NULL"])
def test_an_accelerator_named_none_with_no_count_is_cpu_only(name):
    cpu = row(Accelerator=name, **{"a#": 0})
    assert cpu["is_cpu_only"] is True and cpu["accelerator_count"] == 0 and cpu["result_per_accelerator"] is None
    assert cpu["accelerator_id"] is None and cpu["plausible"] is True


@pytest.mark.parametrize(
    ("raw", "suite"),
    [
        ("edge,datacenter", "datacenter,edge"),
        ("datacenter,edge", "datacenter,edge"),
        ("Datacenter, Edge", "datacenter,edge"),
        ("Datacenter", "datacenter"),
        ("edge", "edge"),
    ],
)
def test_a_suite_set_has_one_spelling(raw, suite):
    assert normalise_suite(raw) == suite and suite in SUITES


def test_both_spellings_of_a_suite_set_make_one_result_key():
    assert row(Suite="edge,datacenter")["result_key"] == row(Suite="datacenter,edge")["result_key"]


def test_an_unknown_suite_is_a_problem_naming_it():
    with pytest.raises(RowProblem, match="'mobile'"):
        normalise_suite("mobile")


def test_the_model_s_suites_are_every_set_normalise_suite_writes():
    assert set(SUITES) == {"datacenter", "edge", ",".join(SUITE_ORDER)}


def test_the_plausible_column_states_the_rule_s_constants():
    description = MlperfResults.to_schema().columns["plausible"].description
    assert f"{PEER_OUTLIER_FACTOR:g}x from the median of at least {MIN_PEERS} peers" in description
    assert f"none within {CORROBORATION_FACTOR:g}x" in description
    assert plausibility.__doc__ and "PEER_OUTLIER_FACTOR" in plausibility.__doc__


def test_the_precision_column_says_it_holds_a_list_widest_first():
    description = MlperfResults.to_schema().columns["precision"].description
    assert "comma list widest first" in description and "narrowest of a list" not in description
    assert row(weight_data_types="int8,fp16,fp8")["precision"] == "fp16,fp8,int8"


# --- the SQL tables leave flagged rows out ---------------------------------------------------------------------


def tables(tmp_path, rows):
    conn = duckdb.connect(str(tmp_path / "w.duckdb"))
    write_table(conn, "benchmark.mlperf_results", results_frame(rows), MlperfResults)
    return conn


def test_round_over_round_leaves_out_a_contradicted_count(tmp_path):
    v31 = [
        row(Platform="dgx", System="DGX (8x NVIDIA H100 80GB HBM3)", Performance_Result=8 * 13.4, **{"a#": 8}),
        row(
            Platform="xe8640",
            System="Dell PowerEdge XE8640 (4x NVIDIA H100 80GB HBM3, TensorRT)",
            **{"Performance_Result": 51.7954},
        ),
    ]
    v40 = [row(Platform="dgx", version="v4.0", ID="4.0-0001", Performance_Result=31.07, Details=None)]
    conn = tables(tmp_path, v31 + v40)
    frame = MlperfRoundOverRound.validate(run_sql_file(conn, "benchmark/mlperf_round_over_round.sql"))
    assert frame["best_value"].to_list() == pytest.approx([13.4, 31.07])  # not 51.8, then a false regression
    assert frame["speedup_vs_previous"].to_list()[1] == pytest.approx(31.07 / 13.4)
    assert conn.execute("SELECT count(*) FROM benchmark.mlperf_results WHERE NOT plausible").fetchone() == (1,)


def server(platform, tokens_per_s, **changes):
    return row(
        Platform=platform,
        Suite="datacenter",
        Model="llama2-70b-99",
        Scenario="Server",
        Performance_Result=tokens_per_s,
        Performance_Units="Tokens/s",
        version="v5.1",
        ID="5.1-0001",
        Details=None,
        **changes,
    )


def test_the_reference_is_never_an_implausible_or_unofficial_result(tmp_path):
    unofficial = Origin("unofficial_submissions/summary_results.json", "1" * 64, None, "summary_results_json")
    rows = [
        server("honest", 3000.0),
        server("named-4x", 12000.0, System="Acme (4x NVIDIA H100 80GB HBM3)"),
        server("test-run", 9000.0) | {"source": unofficial.source},
    ]
    rows[2] |= plausibility.row_flags(rows[2])
    conn = tables(tmp_path, rows)
    (reference,) = MlperfReference.validate(run_sql_file(conn, "benchmark/mlperf_reference.sql")).iter_rows(named=True)
    assert reference["platform"] == "honest" and reference["server_tokens_per_s_per_accel"] == pytest.approx(3000.0)


def test_v5_0_interactive_benchmarks_are_interactive_beside_the_server_reference_never_it(tmp_path):
    """v5.0 published Interactive as separate benchmarks (llama2-70b-interactive-99) under Server; v5.1 as a
    scenario. Either is the Interactive beside the same system's Server result, never a Server reference."""

    def llama(platform, tokens_per_s, **changes):
        fields = dict(Platform=platform, Suite="datacenter", Model="llama2-70b-99", Scenario="Server")
        fields |= dict(Performance_Units="Tokens/s", version="v5.1", ID="5.1-0001", Details=None)
        return row(**(fields | {"Performance_Result": tokens_per_s} | changes))

    v50 = dict(version="v5.0", ID="5.0-0001")
    rows = [
        llama("sys", 3000.0, **v50),
        llama("sys", 9000.0, Model="llama2-70b-interactive-99", **v50),  # higher, but Interactive
        llama("new", 3500.0),
        llama("new", 2500.0, Scenario="Interactive"),
    ]
    conn = tables(tmp_path, rows)
    scenarios = conn.execute(
        "SELECT mlperf_model, scenario FROM benchmark.mlperf_results ORDER BY round, mlperf_model, scenario"
    ).fetchall()
    assert scenarios == [
        ("llama2-70b-99", "Server"),
        ("llama2-70b-interactive-99", "Server"),
        ("llama2-70b-99", "Interactive"),
        ("llama2-70b-99", "Server"),
    ]
    reference = MlperfReference.validate(run_sql_file(conn, "benchmark/mlperf_reference.sql")).to_dicts()
    (newest,) = reference  # one per accelerator and model: the newest round's Server
    assert (newest["round"], newest["server_tokens_per_s_per_accel"]) == ("v5.1", pytest.approx(3500.0))
    assert newest["interactive_tokens_per_s_per_accel"] == pytest.approx(2500.0)
    conn.execute("DELETE FROM benchmark.mlperf_results WHERE round = 'v5.1'")
    (older,) = MlperfReference.validate(run_sql_file(conn, "benchmark/mlperf_reference.sql")).to_dicts()
    assert older["server_tokens_per_s_per_accel"] == pytest.approx(3000.0)
    assert older["interactive_tokens_per_s_per_accel"] == pytest.approx(9000.0)
    assert older["interactive_result_key"].endswith("llama2-70b-interactive-99/Server")
