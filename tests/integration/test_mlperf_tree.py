"""Submission trees: the rows rebuilt from the real v4.1 and v5.1 trees equal the round tables' rows;
the trees' quirks (Interactive logs saying Server, resnet50 folders, measurement file names,
CPU-only systems, power) and broken trees end as quarantined results or clear errors."""

import json
import shutil

import pytest

from assets.core.errors import IngestError
from assets.formats.mlperf import tree_layout
from assets.mlperf_rounds.ingest import read_locations
from tests.support.data import DATA, V41_TABLE, V51_TABLE

TREES = DATA / "mlperf" / "submissions"


@pytest.fixture(scope="module")
def tree_and_table():
    out = {}
    for round_name, table in (("v4.1", V41_TABLE), ("v5.1", V51_TABLE)):
        trees = read_locations([str(TREES / round_name)], [])
        tables = read_locations([str(table)], [])
        out[round_name] = (trees, {r["result_key"]: r for r in tables.rows})
    return out


@pytest.mark.parametrize("round_name,results", [("v4.1", 11), ("v5.1", 16)])
def test_every_tree_result_equals_the_round_tables_row(tree_and_table, round_name, results):
    trees, table = tree_and_table[round_name]
    tree_rows = [r for r in trees.rows if r["source_format"] == "submission_tree"]
    assert len(tree_rows) == results and trees.rejects == []
    for row in tree_rows:
        published = table[row["result_key"]]
        assert row["result_value"] == pytest.approx(published["result_value"], rel=1e-9), row["result_key"]
        assert (row["result_unit"], row["scenario"]) == (published["result_unit"], published["scenario"])
        assert row["precision"] == published["precision"] and row["inferred"] == published["inferred"]
        for key, value in json.loads(row["accuracy_json"] or "{}").items():
            if key in json.loads(published["accuracy_json"] or "{}"):
                assert value == pytest.approx(json.loads(published["accuracy_json"])[key]), key


def test_interactive_folder_with_a_server_log_stays_interactive(tree_and_table):
    trees, _table = tree_and_table["v5.1"]
    rows = {r["result_key"]: r for r in trees.rows}
    row = rows["v5.1/closed/datacenter/AMD/8xMI300X_2xEPYC_9575F/llama2-70b-99/Interactive"]
    assert (row["scenario"], row["inferred"], row["result_field"]) == (
        "Interactive",
        False,
        "result_completed_tokens_per_second",
    )
    conditions = {c["result_key"]: c for c in trees.conditions}[row["result_key"]]
    assert conditions["log_scenario"] == "Server" and conditions["ttft_limit_ms"] == 450.0


def test_resnet50_folder_is_the_resnet_benchmark_and_latencies_are_ms(tree_and_table):
    trees, _table = tree_and_table["v5.1"]
    rows = {r["result_key"]: r for r in trees.rows if r["source_format"] == "submission_tree"}
    single = rows["v5.1/closed/edge/Lenovo/SE100_RTX2000E_Ada_16GBx1_TRT/resnet/SingleStream"]
    assert (single["used_model"], single["mlperf_model"], single["result_value"], single["result_unit"]) == (
        "resnet50",
        "resnet",
        0.513395,
        "ms",
    )
    assert single["result_field"] == "early_stopping_latency_ss"


def test_measurement_json_names_differ_by_submitter(tree_and_table):
    trees, _table = tree_and_table["v5.1"]
    used = {f.source.split("/")[-1] for f in trees.files if f.detected_format.endswith("measurements JSON")}
    assert "8xMI300X_2xEPYC_9575F.json" in used and "SR680a_V3_B200SXMx8_TRT_Offline.json" in used


def test_cpu_only_system_with_string_counts(tree_and_table):
    trees, _table = tree_and_table["v4.1"]
    rows = [r for r in trees.rows if r["platform"] == "1-node-2S-GNR-PyTorch"]
    assert len(rows) == 5 and all(r["is_cpu_only"] and r["accelerator_count"] == 0 for r in rows)
    gptj = [r for r in rows if r["result_key"].endswith("gptj-99/Offline")][0]
    assert (gptj["result_value"], gptj["result_field"]) == (498.316, "result_inferred_tokens_per_second")


def test_power_from_spl_samples_inside_the_window(tree_and_table):
    trees, table = tree_and_table["v5.1"]
    key = "v5.1/closed/datacenter/Lenovo/SR680a_V3_B200SXMx8_TRT/whisper/Offline"
    row = [r for r in read_locations([str(TREES / "v5.1" / "closed" / "Lenovo")], []).rows if r["result_key"] == key][0]
    assert row["power_value"] == pytest.approx(table[key]["power_value"]) and row["power_unit"] == "Watts"
    assert row["result_unit"] == "tokens/s" and table[key]["result_unit_raw"] == "Samples/s"


def test_llm_server_runs_keep_ttft_tpot_percentiles(tree_and_table):
    trees, _table = tree_and_table["v4.1"]
    conditions = {c["result_key"]: c for c in trees.conditions}
    llama = conditions["v4.1/closed/datacenter/NVIDIA/H200-SXM-141GBx8_TRT/llama2-70b-99/Server"]
    assert (llama["ttft_limit_ms"], llama["tpot_limit_ms"]) == (2000.0, 200.0)
    assert llama["ttft_p99_ms"] == pytest.approx(452.744202) and llama["tpot_p99_ms"] == pytest.approx(146.040006)
    resnet = conditions["v4.1/closed/datacenter/NVIDIA/H200-SXM-141GBx8_TRT/resnet/Server"]
    assert resnet["target_latency_ms"] == 15.0 and resnet["ttft_p99_ms"] is None
    assert len(conditions) == 11


@pytest.fixture
def lenovo_copy(tmp_path):
    """A writable copy of one real v5.1 submitter folder (for tests that damage it); never in the repo."""
    root = tmp_path / "inference_results_v5.1"
    shutil.copytree(TREES / "v5.1" / "closed" / "Lenovo", root / "closed" / "Lenovo")
    return root


def test_v60_layout_measurements_inside_the_result_folder(lenovo_copy):
    system = "SR680a_V3_B200SXMx8_TRT"
    old = lenovo_copy / "closed/Lenovo/measurements" / system / "whisper/Offline" / f"{system}_Offline.json"
    target = lenovo_copy / "closed/Lenovo/results" / system / "whisper/Offline/measurements.json"
    target.write_text(old.read_text().replace('"fp16"', '"fp8"'))
    row = [r for r in read_locations([str(lenovo_copy)], []).rows if r["result_key"].endswith("whisper/Offline")][0]
    assert row["precision"] == "fp8" and row["round"] == "v5.1"


def test_a_single_stream_log_in_an_offline_folder_is_inferred_as_the_checker_does(lenovo_copy):
    results = lenovo_copy / "closed/Lenovo/results/SE100_RTX2000E_Ada_16GBx1_TRT/resnet50"
    shutil.rmtree(results / "Offline" / "performance")
    shutil.copytree(results / "SingleStream" / "performance", results / "Offline" / "performance")
    rows = {r["result_key"]: r for r in read_locations([str(lenovo_copy)], []).rows}
    row = rows["v5.1/closed/edge/Lenovo/SE100_RTX2000E_Ada_16GBx1_TRT/resnet/Offline"]
    assert row["inferred"] and row["result_value"] == 1973.57 and row["result_unit"] == "samples/s"


def test_broken_result_folders_are_quarantined_naming_the_file(lenovo_copy):
    results = lenovo_copy / "closed/Lenovo/results/SE100_RTX2000E_Ada_16GBx1_TRT"
    for name in ("mlperf_log_detail.txt", "mlperf_log_summary.txt"):
        (results / "retinanet/Offline/performance/run_1" / name).unlink()
    detail = results / "resnet50/Offline/performance/run_1/mlperf_log_detail.txt"
    detail.write_text(
        "\n".join(line for line in detail.read_text().splitlines() if "result_samples_per_second" not in line)
    )
    (results / "resnet50/Offline/performance/run_1/mlperf_log_summary.txt").unlink()
    batch = read_locations([str(lenovo_copy)], [])
    reasons = {r.source.split("results/")[-1]: r.reason for r in batch.rejects}
    assert (
        "neither mlperf_log_detail.txt nor mlperf_log_summary.txt"
        in reasons["SE100_RTX2000E_Ada_16GBx1_TRT/retinanet/Offline"]
    )
    assert "lacks result_samples_per_second" in reasons["SE100_RTX2000E_Ada_16GBx1_TRT/resnet50/Offline"]
    assert len(batch.rows) == 11 - 2
    only_on_pages = {d["result_key"].split("/", 5)[-1] for d in batch.disagreements if d["field"] == "presence"}
    assert {"retinanet/Offline", "resnet/Offline"} <= only_on_pages  # the pages are cross-check only


def test_a_missing_system_description_quarantines_that_systems_results(lenovo_copy):
    (lenovo_copy / "closed/Lenovo/systems/SE100_RTX2000E_Ada_16GBx1_TRT.json").unlink()
    batch = read_locations([str(lenovo_copy)], [])
    assert any("systems/SE100_RTX2000E_Ada_16GBx1_TRT.json is missing" in r.reason for r in batch.rejects)
    assert {r["platform"] for r in batch.rows if r["source_format"] == "submission_tree"} == {"SR680a_V3_B200SXMx8_TRT"}


def test_a_tree_whose_round_no_folder_names_is_a_clear_error(tmp_path):
    shutil.copytree(TREES / "v5.1" / "closed" / "AMD", tmp_path / "somewhere" / "closed" / "AMD")
    with pytest.raises(IngestError, match="cannot tell the MLPerf round of this submission tree"):
        read_locations([str(tmp_path / "somewhere")], [])


def test_tree_roots_are_found_above_and_below_a_folder():
    assert tree_layout.find_tree_roots(TREES) == [TREES / "v4.1", TREES / "v5.1"]
    assert tree_layout.find_tree_roots(TREES / "v5.1" / "closed" / "AMD") == [TREES / "v5.1"]
