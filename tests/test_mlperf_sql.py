"""The MLPerf SQL tables on a small DuckDB: the round-over-round view of the real v4.1 and v5.1 rows."""

import duckdb
import pytest

from assets.mlperf import results_frame
from assets.mlperf_ingest import read_locations
from assets.warehouse import run_sql_file, write_table
from schemas.mlperf_results import MlperfResults
from schemas.mlperf_round_over_round import MlperfRoundOverRound
from tests.conftest import V41_TABLE, V51_TABLE


@pytest.fixture(scope="module")
def round_over_round(tmp_path_factory):
    rows = read_locations([str(V41_TABLE), str(V51_TABLE)], []).rows
    conn = duckdb.connect(str(tmp_path_factory.mktemp("sql") / "w.duckdb"))
    write_table(conn, "benchmark.mlperf_results", results_frame(rows), MlperfResults)
    frame = run_sql_file(conn, "benchmark/mlperf_round_over_round.sql")
    return MlperfRoundOverRound.validate(frame), rows


def test_the_best_per_accelerator_result_per_round_and_its_change(round_over_round):
    frame, rows = round_over_round
    h200 = frame.filter((frame["accelerator_id"] == "nvidia-h200-sxm-141gb")
                        & (frame["mlperf_model"] == "llama2-70b-99") & (frame["scenario"] == "Offline"))
    assert h200["round"].to_list() == ["v4.1", "v5.1"]
    best = {r: max(x["result_per_accelerator"] for x in rows if x["round"] == r and x["division"] == "closed"
                   and x["accelerator_id"] == "nvidia-h200-sxm-141gb" and x["mlperf_model"] == "llama2-70b-99"
                   and x["scenario"] == "Offline" and not x["inferred"]) for r in ("v4.1", "v5.1")}
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
    latest = next(r for r in rows if r["metric_kind"] == "latency" and r["accelerator_id"] and r["division"] == "closed"
                  and not r["inferred"])
    earlier = dict(latest, round="v4.1", round_order=401, result_value=latest["result_value"] * 2,
                   result_key="v4.1/" + latest["result_key"].split("/", 1)[1])
    conn = duckdb.connect(str(tmp_path / "w.duckdb"))
    write_table(conn, "benchmark.mlperf_results", results_frame([earlier, latest]), MlperfResults)
    frame = MlperfRoundOverRound.validate(run_sql_file(conn, "benchmark/mlperf_round_over_round.sql"))
    assert frame["round"].to_list() == ["v4.1", "v5.1"] and frame["value_basis"][0] == "system latency"
    assert frame["speedup_vs_previous"].to_list()[1] == pytest.approx(2.0)
