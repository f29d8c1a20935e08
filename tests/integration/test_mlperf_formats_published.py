"""Every published MLPerf round-table format, read from the real files under ../shared/data/mlperf,
recognised by content; hand-made bad inputs end as quarantined rows with reasons or clear errors."""

import collections
import json
import shutil

import pytest

from assets.core.errors import IngestError
from assets.formats.mlperf import checker, cm, html, xlsx
from assets.formats.mlperf.registry import detect, parse_file
from assets.formats.mlperf.summary_json import SUMMARY_RESULTS_JSON
from assets.inputs.files import Fetched, read_local, sha256_bytes
from assets.mlperf_rounds.ingest import read_locations
from tests.support.data import DATA

MLPERF = DATA / "mlperf"
SUMMARY = MLPERF / "summary"
V50 = SUMMARY / "v5.0" / "unofficial_submissions"


def read(path):
    fetched = read_local(path)[0]
    detected = detect(fetched)
    rows, rejects, note = parse_file(fetched, detected)
    return detected.format, {r["result_key"]: r for r in rows}, rejects, note


def fetched_bytes(name, data):
    return Fetched(name=name, data=data, sha256=sha256_bytes(data))


@pytest.fixture(scope="module")
def everything():
    return read_locations([str(MLPERF)], [])


# --- the whole folder ---------------------------------------------------------------------


def test_every_file_under_shared_mlperf_is_read_or_skipped_with_a_reason(everything):
    listed = {f.source for f in everything.files}
    on_disk = {str(p) for p in MLPERF.rglob("*") if p.is_file()}
    assert on_disk == listed
    skipped = {f.source.split("/")[-1]: f.note for f in everything.files if f.status == "skipped"}
    assert set(skipped) == {"MANIFEST.json", "README.md"}
    assert all(skipped.values())
    assert everything.rejects == []


def test_rows_per_round_and_kept_source(everything):
    counts = collections.Counter((r["round"], r["source_format"]) for r in everything.rows)
    assert counts == {
        ("v1.1", "checker_csv"): 4,
        ("v2.1", "checker_csv"): 4,
        ("v3.0", "checker_csv"): 35,
        ("v3.1", "cm4mlperf_result"): 1447,
        ("v4.0", "cm4mlperf_result"): 898,
        ("v4.1", SUMMARY_RESULTS_JSON): 937,
        ("v5.0", SUMMARY_RESULTS_JSON): 45,
        ("v5.1", SUMMARY_RESULTS_JSON): 1448,
    }


def test_the_real_sources_agree_where_they_overlap(everything):
    assert everything.disagreements == []


# --- checker CSVs -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "relative,rows,note",
    [
        ("v1.1/submitter_checker_csv/closed/Alibaba/summary.csv", 4, "26 columns (v1.0 header)"),
        ("v2.1/submitter_checker_csv/open/Alibaba/submission_checker_results.csv", 4, "27 columns (v1.1-v4.1 header)"),
        ("v3.0/submitter_checker_csv/closed/Azure/summary.csv", 24, "27 columns (v1.1-v4.1 header)"),
        ("v3.0/submitter_checker_csv/closed/Quanta_Cloud_Technology/summary.csv", 5, "27 columns (v1.1-v4.1 header)"),
        ("v3.0/submitter_checker_csv/open/NeuralMagic/summary.csv", 6, "27 columns (v1.1-v4.1 header)"),
        ("v4.1/submitter_checker_csv/closed/GigaComputing/summary.csv", 26, "27 columns (v1.1-v4.1 header)"),
        ("v5.1/submitter_checker_csv/closed/GigaComputing/summary.csv", 18, "28 columns (v5.x header)"),
        ("v5.0/unofficial_submissions/summary.csv", 45, "28 columns (v5.x header)"),
    ],
)
def test_checker_csv_of_each_header_generation(relative, rows, note):
    fmt, parsed, rejects, found_note = read(SUMMARY / relative)
    assert (fmt, len(parsed), rejects, found_note) == (checker.CHECKER_CSV, rows, [], note)


def test_v10_header_misspellings_and_no_units():
    _fmt, rows, _rejects, _note = read(SUMMARY / "v1.1/submitter_checker_csv/closed/Alibaba/summary.csv")
    row = rows["v1.1/closed/edge/Alibaba/T4x1_TRT/ssd-small/SingleStream"]
    assert (row["result_value"], row["result_unit"], row["result_unit_raw"]) == (0.508841, "ms", None)
    assert row["used_model"] == "ssd-mobilenet" and row["inferred"] is False
    assert json.loads(row["accuracy_json"]) == {"value": 22.914}


def test_compilance_and_compliance_both_read_in_one_round():
    _f, azure, _r, _n = read(SUMMARY / "v3.0/submitter_checker_csv/closed/Azure/summary.csv")
    _f, quanta, _r, _n = read(SUMMARY / "v3.0/submitter_checker_csv/closed/Quanta_Cloud_Technology/summary.csv")
    assert len(azure) == 24 and len(quanta) == 5
    cpu = quanta["v3.0/closed/datacenter/Quanta_Cloud_Technology/1-node-2S-SPR-PyTorch-INT8/resnet/Offline"]
    assert cpu["is_cpu_only"] and cpu["accelerator_count"] == 0 and cpu["nodes"] == 2


def test_v41_checker_llm_rows_labelled_samples_are_tokens():
    _f, rows, _r, _n = read(SUMMARY / "v4.1/submitter_checker_csv/closed/GigaComputing/summary.csv")
    key = "v4.1/closed/datacenter/GigaComputing/GIGABYTE_G593_SD1_H200_SXM_141GBx8_TRT/{}"
    offline, server = rows[key.format("llama2-70b-99/Offline")], rows[key.format("llama2-70b-99/Server")]
    assert (offline["result_value"], offline["result_unit"], offline["result_unit_raw"]) == (
        31263.8,
        "tokens/s",
        "Samples/s",
    )
    assert (server["result_unit"], server["result_unit_raw"], server["unit_corrected"]) == (
        "tokens/s",
        "Queries/s",
        True,
    )
    gptj = rows[key.format("gptj-99/Offline")]
    assert gptj["result_unit"] == "tokens/s" and gptj["unit_corrected"]
    llm = [r for r in rows.values() if r["mlperf_model"].split("-")[0] in ("llama2", "mixtral", "gptj")]
    assert len(llm) == 10 and all(r["result_unit"] == "tokens/s" for r in llm)


# --- index-keyed summary.json, the v5.0 tool outputs and the workbook ----------------------


def test_index_keyed_summary_json_equals_the_csv_and_the_report_json():
    fmt, index_rows, rejects, note = read(V50 / "summary.json")
    assert (fmt, len(index_rows), rejects, note) == (checker.CHECKER_JSON_INDEX, 45, [], "45 index-keyed rows")
    _f, csv_rows, _r, _n = read(V50 / "summary.csv")
    _f, report_rows, _r, _n = read(V50 / "summary_results.json")
    assert set(index_rows) == set(csv_rows) == set(report_rows)
    for key, row in report_rows.items():
        assert index_rows[key]["result_value"] == row["result_value"] == csv_rows[key]["result_value"]
        assert index_rows[key]["result_unit"] == row["result_unit"]


def test_workbook_pivot_sheets_become_the_same_results():
    fmt, rows, rejects, note = read(V50 / "summary.xlsx")
    assert fmt == xlsx.FINAL_REPORT_XLSX and rejects == []
    assert note == "4 sheets, 54 value cells; 10 cells repeat a result shown on another sheet (datacenter,edge systems)"
    _f, report_rows, _r, _n = read(V50 / "summary_results.json")
    assert len(rows) == 44 and set(rows) < set(report_rows)
    # the one result the workbook does not show: rgat, absent from the datacenter-closed pivot
    assert {k.split("/")[-2] for k in set(report_rows) - set(rows)} == {"rgat"}
    for key, row in rows.items():
        assert row["result_value"] == report_rows[key]["result_value"]
    row = rows["v5.0/closed/datacenter,edge/MLCommons/RTX4090x2-nvidia-gpu-TensorRT-default_config/retinanet/Server"]
    assert row["result_value"] == 1414.96 and row["accelerator_count"] == 2
    assert row["details_url"] == (
        "https://github.com/mlcommons/submissions_inference_4.1/tree/main/closed/MLCommons/"
        "results/RTX4090x2-nvidia-gpu-TensorRT-default_config"
    )


def test_workbook_open_sheets_fill_merged_index_cells_over_each_systems_rows():
    _f, rows, _r, _n = read(V50 / "summary.xlsx")
    key = "v5.0/open/datacenter,edge/MLCommons/RTX4090x1-nvidia-gpu-TensorRT-default_config/resnet50/{}"
    assert json.loads(rows[key.format("SingleStream")]["accuracy_json"]) == {"acc": 76.064}
    assert json.loads(rows[key.format("Offline")]["accuracy_json"]) == {"acc": 76.078}
    assert rows[key.format("Offline")]["submitter"] == "MLCommons" and rows[key.format("Offline")]["nodes"] == 1


def test_a_damaged_workbook_is_a_clear_error():
    data = (V50 / "summary.xlsx").read_bytes()
    with pytest.raises(IngestError, match="broken.xlsx: not a readable XLSX workbook"):
        xlsx.parse_workbook(data[:3000] + data[-3000:], "broken.xlsx")


# --- cm4mlperf ----------------------------------------------------------------------------


def cm_files(round_name):
    return sorted((SUMMARY / round_name / "cm4mlperf-results").rglob("cm-result.json"))


@pytest.mark.parametrize(
    "round_name,files,records,power", [("v3.1", 80, 1664, 217), ("v4.0", 68, 1004, 106), ("v4.1", 54, 968, 31)]
)
def test_cm_result_files_per_round(round_name, files, records, power):
    found = cm_files(round_name)
    total_records, with_power, rows = 0, 0, 0
    for path in found:
        fmt, parsed, rejects, _note = read(path)
        assert fmt == cm.CM_RESULT and rejects == []
        total_records += len(json.loads(path.read_text()))
        rows += len(parsed)
        with_power += sum(1 for r in parsed.values() if r["power_value"] is not None)
    assert (len(found), total_records) == (files, records)
    assert with_power == power and rows <= records


def test_cm_v41_power_rows_become_power_of_their_result():
    batch = read_locations([str(SUMMARY / "v4.1" / "cm4mlperf-results")], [])
    assert len(batch.rows) == 937 and batch.rejects == []
    powered = [r for r in batch.rows if r["power_value"] is not None]
    assert len(powered) == 31 and {r["power_unit"] for r in powered} == {"Watts", "millijoules"}
    llm = [r for r in batch.rows if r["mlperf_model"].startswith(("llama2", "mixtral"))]
    assert llm and all(r["result_unit"] == "tokens/s" and r["unit_corrected"] for r in llm)


def test_cm_v40_llama2_server_is_genuinely_queries_per_second():
    batch = read_locations([str(SUMMARY / "v4.0" / "cm4mlperf-results")], [])
    server = [r for r in batch.rows if r["mlperf_model"].startswith("llama2-70b") and r["scenario"] == "Server"]
    offline = [r for r in batch.rows if r["mlperf_model"].startswith("llama2-70b") and r["scenario"] == "Offline"]
    assert server and all(r["result_unit"] == "queries/s" and not r["unit_corrected"] for r in server)
    assert offline and all(r["result_unit"] == "tokens/s" and r["unit_corrected"] for r in offline)


# --- result pages -------------------------------------------------------------------------


def test_result_pages_with_unclosed_rows_and_two_row_headers():
    pages = sorted(MLPERF.rglob("summary.html"))
    counts = {}
    for page in pages:
        fmt, rows, rejects, _note = read(page)
        assert fmt == html.SUMMARY_HTML and rejects == []
        counts[page.parent.name] = len(rows)
    assert counts == {"8xMI300X_2xEPYC_9575F": 8, "SE100_RTX2000E_Ada_16GBx1_TRT": 12, "SR680a_V3_B200SXMx8_TRT": 5}
    _f, amd, _r, _n = read(pages[0])
    interactive = amd["v5.1/closed/datacenter/AMD/8xMI300X_2xEPYC_9575F/llama2-70b-99/Interactive"]
    assert (interactive["result_value"], interactive["result_unit"], interactive["nodes"]) == (
        8840.42,
        "tokens/s",
        None,
    )
    assert interactive["system_name"] == "Supermicro AS-8125GS-TNMR2"
    _f, edge, _r, _n = read([p for p in pages if "SE100" in str(p)][0])
    resnet = edge["v5.1/closed/edge/Lenovo/SE100_RTX2000E_Ada_16GBx1_TRT/resnet/MultiStream"]
    assert (resnet["used_model"], resnet["mlperf_model"], resnet["result_value"]) == ("resnet50", "resnet", 1.48)


# --- rounds and labels the code has never seen --------------------------------------------


def test_an_unseen_round_with_new_models_ingests_without_code_changes():
    record = json.loads((SUMMARY / "v5.1" / "summary_results.json").read_text())[0]
    new = [
        dict(
            record,
            ID="9.9-0001",
            version="v9.9",
            Model="qwen9-900b",
            UsedModel="qwen9-900b",
            Performance_Units="Tokens/s",
            **{"Total Accelerators": 8},
        ),
        dict(
            record,
            ID="9.9-0002",
            version="v9.9",
            Model="e2e-rag-qna",
            UsedModel="e2e-rag-qna",
            Scenario="Server",
            Performance_Units="Tasks/s",
        ),
    ]
    data = json.dumps(new).encode()
    rows, rejects, _note = parse_file(fetched_bytes("v9.9.json", data), detect(fetched_bytes("v9.9.json", data)))
    assert rejects == [] and [r["result_unit"] for r in rows] == ["tokens/s", "tasks/s"]
    assert rows[0]["round"] == "v9.9" and rows[0]["model_known"] is False and not rows[0]["unit_corrected"]


def test_an_unknown_unit_label_names_the_file_the_column_and_what_was_expected():
    record = json.loads((SUMMARY / "v5.1" / "summary_results.json").read_text())[0]
    data = json.dumps([dict(record, Performance_Units="Widgets/s")]).encode()
    rows, rejects, _note = parse_file(fetched_bytes("new.json", data), detect(fetched_bytes("new.json", data)))
    assert rows == [] and rejects[0].source == "new.json"
    assert (
        "Performance_Units 'Widgets/s' is not a unit label this version knows (expected Tokens/s" in rejects[0].reason
    )


def test_a_folder_of_mixed_formats_reads_each_by_content_not_by_name(tmp_path):
    shutil.copy(V50 / "summary.csv", tmp_path / "results.json")
    shutil.copy(V50 / "summary.xlsx", tmp_path / "table.bin")
    batch = read_locations([str(tmp_path)], [])
    assert {f.detected_format for f in batch.files} == {"checker_csv", "final_report_xlsx"}
    assert len(batch.rows) == 45 and batch.disagreements == []
