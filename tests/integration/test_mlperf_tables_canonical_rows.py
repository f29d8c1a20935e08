"""MLPerf round tables: the real v5.1 and v4.1 files become canonical rows; bad records are quarantined."""

import json

import pytest

from assets.core.errors import IngestError
from assets.formats.mlperf.exchange import MlperfFile
from assets.formats.mlperf.registry import detect
from assets.formats.mlperf.summary_json import SUMMARY_RESULTS_JSON
from assets.inputs.files import Fetched, read_local, sha256_bytes
from assets.mlperf_rounds.ingest import read_locations
from tests.support.data import V41_TABLE, V51_TABLE
from tests.support.records import parse_summary_results


def parse(path):
    file = MlperfFile(read_local(path)[0])
    assert detect(file).format == SUMMARY_RESULTS_JSON
    return parse_summary_results(file.json, file.fetched)


@pytest.fixture(scope="module")
def v51():
    rows, rejects = parse(V51_TABLE)
    return {r["result_key"]: r for r in rows}, rejects


def test_every_v51_record_becomes_a_row(v51):
    rows, rejects = v51
    assert len(rows) == 1448 and rejects == []


def test_worked_case_rows(v51):
    rows, _ = v51
    server = rows["v5.1/closed/datacenter/RedHat/XE8640_4xH100_vLLM/llama3.1-8b/Server"]
    offline = rows["v5.1/closed/datacenter/RedHat/XE8640_4xH100_vLLM/llama3.1-8b/Offline"]
    assert server["tokens_per_s_per_accel"] == pytest.approx(5103.99)
    assert offline["tokens_per_s_per_accel"] == pytest.approx(5777.08)
    assert server["accelerator_id"] == "nvidia-h100-sxm-80gb"
    assert server["model_id"] == "llama-3.1-8b-instruct"
    assert (server["precision"], server["runtime"], server["runtime_version"]) == ("fp8", "vLLM", "0.10.0")
    assert server["accelerator_count"] == 1 and server["source_sha256"] == sha256_bytes(V51_TABLE.read_bytes())


def test_per_accelerator_value_divides_by_nodes_times_accelerators(v51):
    rows, _ = v51
    multi = [r for r in rows.values() if r["nodes"] > 1 and r["metric_kind"] == "throughput" and r["accelerator_count"]]
    assert multi
    for row in multi:
        assert row["accelerator_count"] == row["nodes"] * row["accelerators_per_node"]
        assert row["result_per_accelerator"] == pytest.approx(row["result_value"] / row["accelerator_count"])


def test_mislabelled_llm_units_are_corrected(v51):
    rows, _ = v51
    interactive = [r for r in rows.values() if r["mlperf_model"] == "llama3.1-8b" and r["scenario"] == "Interactive"]
    assert len(interactive) == 8
    assert all(
        r["result_unit"] == "tokens/s" and r["result_unit_raw"] == "Queries/s" and r["unit_corrected"]
        for r in interactive
    )
    whisper = [r for r in rows.values() if r["mlperf_model"] == "whisper"]
    assert whisper and all(r["result_unit"] == "tokens/s" and r["unit_corrected"] for r in whisper)
    resnet = [r for r in rows.values() if r["mlperf_model"] == "resnet" and r["scenario"] == "Offline"]
    assert resnet and not any(r["unit_corrected"] for r in resnet)


def test_v41_neuralmagic_llama_rows_labelled_samples_are_tokens():
    rows, rejects = parse(V41_TABLE)
    assert len(rows) == 937 and not rejects
    relabelled = [r for r in rows if r["mlperf_model"].startswith("llama2-70b") and r["unit_corrected"]]
    assert len(relabelled) == 5
    assert {r["submitter"] for r in relabelled} == {"NeuralMagic"}
    assert all(r["result_unit"] == "tokens/s" for r in relabelled)


def test_cpu_only_systems_have_no_per_accelerator_value(v51):
    rows, _ = v51
    cpu = [r for r in rows.values() if r["is_cpu_only"]]
    assert len(cpu) > 100
    assert all(
        r["accelerator_count"] == 0 and r["result_per_accelerator"] is None and r["accelerator_id"] is None for r in cpu
    )


def test_accuracy_target_precision_and_accuracy_are_parsed(v51):
    rows, _ = v51
    llama = rows["v5.1/closed/datacenter/AMD/8xMI300X_2xEPYC_9575F/llama2-70b-99/Interactive"]
    assert llama["accuracy_target"] == "99"
    assert json.loads(llama["accuracy_json"])["TOKENS_PER_SAMPLE"] == pytest.approx(301.1)
    sdxl = [r for r in rows.values() if r["precision_raw"] and r["precision_raw"].startswith("{")]
    assert len(sdxl) == 20
    assert {r["precision"] for r in sdxl} == {"fp32,fp8", "fp16,fp8,int8"}


def test_unknown_accelerators_are_kept_raw_and_flagged(v51):
    rows, _ = v51
    mixed = [r for r in rows.values() if r["accelerator_raw"] and "(x32)" in r["accelerator_raw"]]
    assert mixed and all(r["accelerator_id"] is None and not r["accelerator_known"] for r in mixed)


def good_record(**changes):
    record = json.loads(V51_TABLE.read_text())[0]
    record.update(changes)
    return record


@pytest.mark.parametrize(
    "changes,reason",
    [
        ({"Performance_Result": -3.0}, "finite positive"),
        ({"Performance_Result": "N/A"}, "missing"),
        ({"Performance_Result": "fast"}, "not a number"),
        ({"Performance_Result": float("nan")}, "finite positive"),
        ({"Scenario": "Batch"}, "unknown scenario"),
        ({"Performance_Units": "Latency (ms)"}, "contradicts"),
        ({"Nodes": "N/A"}, "Nodes"),
        ({"a#": "eight"}, "a#"),
        ({"version": None, "ID": "x"}, "round"),
    ],
)
def test_bad_records_are_quarantined_with_a_reason(changes, reason):
    records = [good_record(), good_record(**changes), "not a record"]
    fetched = Fetched(name="bad.json", data=b"[]", sha256="0" * 64)
    rows, rejects = parse_summary_results(records, fetched)
    assert len(rows) == 1
    assert [r.location for r in rejects] == ["record 1", "record 2"]
    assert reason in rejects[0].reason and rejects[0].source == "bad.json"
    assert "expected an object" in rejects[1].reason


def test_the_same_content_read_twice_is_listed_once_and_skipped_once():
    batch = read_locations([str(V51_TABLE), str(V51_TABLE)], [])
    assert len(batch.rows) == 1448 and batch.rejects == [] and batch.disagreements == []
    assert [f.status for f in batch.files] == ["read", "skipped"]
    assert batch.files[1].note == f"same content as {V51_TABLE}"


def test_a_result_twice_in_one_file_is_quarantined_naming_the_first(tmp_path):
    records = json.loads(V51_TABLE.read_text())
    table = tmp_path / "summary_results.json"
    table.write_text(json.dumps(records + [records[5]]))
    batch = read_locations([str(table)], [])
    assert len(batch.rows) == 1448 and len(batch.rejects) == 1
    assert "in the same file (first at record 5)" in batch.rejects[0].reason
    assert batch.rejects[0].location == "record 1448"


def test_truncated_table_fails_naming_the_file(tmp_path):
    broken = tmp_path / "summary_results.json"
    broken.write_bytes(V51_TABLE.read_bytes()[:5000])
    with pytest.raises(IngestError, match=r"summary_results.json: invalid JSON at line"):
        read_locations([str(broken)], [])


def test_folder_lists_files_it_does_not_read(tmp_path):
    (tmp_path / "README.md").write_text("# notes")
    (tmp_path / "round.json").write_bytes(V51_TABLE.read_bytes())
    batch = read_locations([str(tmp_path)], [])
    assert len(batch.rows) == 1448
    assert {(f.source.split("/")[-1], f.status, f.note) for f in batch.files} == {
        ("README.md", "skipped", "not an MLPerf result file"),
        ("round.json", "read", ""),
    }
