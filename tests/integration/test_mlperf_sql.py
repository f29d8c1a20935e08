"""The MLPerf SQL tables on a small DuckDB: the round-over-round view of the real v4.1 and v5.1 rows."""

import duckdb
import pytest

from assets.mlperf_rounds.ingest import read_locations
from assets.mlperf_rounds.rounds import results_frame
from assets.warehouse.sqlfiles import run_sql_file
from assets.warehouse.write import write_table
from schemas.benchmark.mlperf_reference import MlperfReference
from schemas.benchmark.mlperf_results import MlperfResults
from schemas.benchmark.mlperf_round_over_round import MlperfRoundOverRound
from tests.support.data import V41_TABLE, V51_TABLE


@pytest.fixture(scope="module")
def round_over_round(tmp_path_factory):
    rows = read_locations([str(V41_TABLE), str(V51_TABLE)], []).rows
    conn = duckdb.connect(str(tmp_path_factory.mktemp("sql") / "w.duckdb"))
    write_table(conn, "benchmark.mlperf_results", results_frame(rows), MlperfResults)
    frame = run_sql_file(conn, "benchmark/mlperf_round_over_round.sql")
    return MlperfRoundOverRound.validate(frame), rows


def test_the_best_per_accelerator_result_per_round_and_its_change(round_over_round):
    frame, rows = round_over_round
    h200 = frame.filter(
        (frame["accelerator_id"] == "nvidia-h200-sxm-141gb")
        & (frame["mlperf_model"] == "llama2-70b-99")
        & (frame["scenario"] == "Offline")
    )
    assert h200["round"].to_list() == ["v4.1", "v5.1"]
    best = {
        r: max(
            x["result_per_accelerator"]
            for x in rows
            if x["round"] == r
            and x["division"] == "closed"
            and x["accelerator_id"] == "nvidia-h200-sxm-141gb"
            and x["mlperf_model"] == "llama2-70b-99"
            and x["scenario"] == "Offline"
            and not x["inferred"]
        )
        for r in ("v4.1", "v5.1")
    }
    assert h200["best_value"].to_list() == pytest.approx([best["v4.1"], best["v5.1"]])
    second = h200.row(1, named=True)
    assert second["previous_round"] == "v4.1"
    assert second["speedup_vs_previous"] == pytest.approx(best["v5.1"] / best["v4.1"])
    assert second["speedup_vs_first"] == pytest.approx(second["speedup_vs_previous"])


def test_one_row_per_accelerator_benchmark_scenario_unit_and_round(round_over_round):
    frame, _rows = round_over_round
    keys = frame.group_by("accelerator_id", "mlperf_model", "scenario", "result_unit", "round").len()
    assert keys["len"].max() == 1


def test_a_latency_improves_when_it_falls(tmp_path):
    rows = read_locations([str(V51_TABLE)], []).rows
    latest = next(
        r
        for r in rows
        if r["metric_kind"] == "latency" and r["accelerator_id"] and r["division"] == "closed" and not r["inferred"]
    )
    earlier = dict(
        latest,
        round="v4.1",
        round_order=401,
        result_value=latest["result_value"] * 2,
        result_key="v4.1/" + latest["result_key"].split("/", 1)[1],
    )
    conn = duckdb.connect(str(tmp_path / "w.duckdb"))
    write_table(conn, "benchmark.mlperf_results", results_frame([earlier, latest]), MlperfResults)
    frame = MlperfRoundOverRound.validate(run_sql_file(conn, "benchmark/mlperf_round_over_round.sql"))
    assert frame["round"].to_list() == ["v4.1", "v5.1"] and frame["value_basis"][0] == "system latency"
    assert frame["speedup_vs_previous"].to_list()[1] == pytest.approx(2.0)


# --- benchmark.mlperf_reference: which MLPerf result a config is compared with --------------------------------

WORKED = "v5.1/closed/datacenter/RedHat/XE8640_4xH100_vLLM/llama3.1-8b/{}"


def variant(row, *, round_name=None, submitter=None, total=None, value=None, **changes):
    """A copy of a real result as another result: its key follows its identity, the per-accelerator numbers
    follow its value and accelerator count."""
    out = dict(row, **changes)
    if round_name is not None:
        out.update(round=round_name, round_order=int(round_name[1]) * 100 + int(round_name[3]))
    if submitter is not None:
        out.update(submitter=submitter, platform=f"{submitter}-box")
    if total is not None:
        out.update(nodes=1, accelerators_per_node=total, accelerator_count=total)
    if value is not None:
        out["result_value"] = value
    per_accel = out["result_value"] / out["accelerator_count"]
    out.update(
        result_per_accelerator=per_accel,
        tokens_per_s=out["result_value"],
        tokens_per_s_per_accel=per_accel,
        result_key="/".join(
            [
                out["round"],
                out["division"],
                out["suite"],
                out["submitter"],
                out["platform"],
                out["mlperf_model"],
                out["scenario"],
            ]
        ),
    )
    return out


def reference(tmp_path, rows):
    conn = duckdb.connect(str(tmp_path / "w.duckdb"))
    write_table(conn, "benchmark.mlperf_results", results_frame(rows), MlperfResults)
    frame = MlperfReference.validate(run_sql_file(conn, "benchmark/mlperf_reference.sql"))
    return {(r["accelerator_id"], r["model_id"]): r for r in frame.iter_rows(named=True)}


@pytest.fixture(scope="module")
def worked_results():
    rows = {r["result_key"]: r for r in read_locations([str(V51_TABLE)], []).rows}
    return rows[WORKED.format("Server")], rows[WORKED.format("Offline")]


def test_the_reference_is_the_newest_round_that_has_a_server_result_even_when_an_older_one_is_higher(
    worked_results, tmp_path
):
    server, offline = worked_results
    older = variant(server, round_name="v4.1", value=server["result_value"] * 2)
    (ref,) = reference(tmp_path, [older, server, offline]).values()
    assert (ref["round"], ref["submitter"]) == ("v5.1", "RedHat")
    assert ref["server_tokens_per_s_per_accel"] == pytest.approx(5103.99)
    assert ref["offline_tokens_per_s_per_accel"] == pytest.approx(5777.08)  # the same system's, an upper bound


def test_the_reference_is_the_highest_per_accelerator_closed_measured_server_result_of_that_round(
    worked_results, tmp_path
):
    server, offline = worked_results
    best = variant(server, submitter="Best", total=8, value=8 * 5500.0)  # 5500 per accelerator: chosen
    bigger = variant(server, submitter="Bigger", total=16, value=16 * 5200.0)  # more in all, less per accelerator
    rows = [
        server,
        offline,
        best,
        bigger,
        variant(server, submitter="Open", division="open", value=9000.0),  # open division: not comparable
        variant(server, submitter="Guess", inferred=True, value=9500.0),  # inferred, not measured
        variant(offline, submitter="Batch", value=9900.0),
    ]  # Offline only: never the reference
    (ref,) = reference(tmp_path, rows).values()
    assert (ref["submitter"], ref["accelerator_count"]) == ("Best", 8)
    assert ref["server_tokens_per_s_per_accel"] == pytest.approx(5500.0)
    assert ref["offline_tokens_per_s_per_accel"] is None  # no Offline of that system: none borrowed from another
