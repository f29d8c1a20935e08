"""MLPerf forms from hand-made files: checker CSV header generations and their misspellings, workbooks,
cm4mlperf rows, result pages; bad inputs end as quarantined rows with reasons or clear errors."""

import pytest

from assets.core.errors import IngestError
from assets.formats.mlperf import xlsx
from assets.formats.mlperf.registry import detect, parse_file
from assets.inputs.files import Fetched, read_local, sha256_bytes


def read(path):
    fetched = read_local(path)[0]
    detected = detect(fetched)
    rows, rejects, note = parse_file(fetched, detected)
    return detected.format, {r["result_key"]: r for r in rows}, rejects, note


def fetched_bytes(name, data):
    return Fetched(name=name, data=data, sha256=sha256_bytes(data))


HEADER_31 = (
    "Organization,Availability,Division,SystemType,SystemName,Platform,Model,MlperfModel,Scenario,Result,"
    "Accuracy,number_of_nodes,host_processor_model_name,host_processors_per_node,host_processor_core_count,"
    "accelerator_model_name,accelerators_per_node,total_accelerators,Location,framework,operating_system,"
    "notes,compliance,errors,version,inferred,has_power,Units,weight_data_types,design_power_watts,PrivateID"
)


def csv31(*rows):
    values = [
        [
            "Acme",
            "available",
            "closed",
            "datacenter",
            "Acme 8x",
            "acme8",
            "gpt-oss-120b",
            "gpt-oss-120b",
            "Offline",
            "1234.5",
            "exact_match: 83.1  TOKENS_PER_SAMPLE: 1000.2",
            "2",
            "CPU",
            "2",
            "64",
            "NVIDIA B200-SXM-180GB",
            "8",
            "16",
            "./closed/Acme/results/acme8/gpt-oss-120b/Offline/performance/run_1",
            "vLLM 0.11.0",
            "Ubuntu",
            "",
            "closed",
            "0",
            "v6.0",
            "0",
            "False",
            "Tokens/s",
            "mxfp4",
            "1000",
            "abc",
        ],
    ]
    values += [list(r) for r in rows]
    lines = [HEADER_31] + [",".join(f'"{v}"' for v in row) for row in values]
    return ("\n".join(lines) + "\n").encode()


def test_31_column_header_all_quoted_with_total_accelerators_and_division_in_compliance():
    rows, rejects, note = parse_file(fetched_bytes("out.csv", csv31()), detect(fetched_bytes("out.csv", csv31())))
    assert note == "31 columns (v6.0+ header)" and rejects == []
    (row,) = rows
    assert row["round"] == "v6.0" and row["accelerator_count"] == 16 and row["nodes"] == 2
    assert row["result_per_accelerator"] == pytest.approx(1234.5 / 16)
    assert row["precision"] == "mxfp4" and row["result_unit"] == "tokens/s"


def test_stated_total_accelerators_must_equal_nodes_times_per_node():
    bad = csv31()[:-1].decode().replace('"16"', '"12"').encode() + b"\n"
    rows, rejects, _note = parse_file(fetched_bytes("out.csv", bad), detect(fetched_bytes("out.csv", bad)))
    assert rows == [] and "Total Accelerators 12 != Nodes 2 x a# 8" in rejects[0].reason


V07_CSV = (
    b"Organization,Availability,Division,SystemType,Platform,Model,MlperfModel,Scenario,Result,Accuracy,Location\n"
    b"Acme,available,closed,edge,acme1,resnet50,resnet,Offline,1000.5,76.1,closed/Acme/results/acme1\n"
)


def test_11_column_v07_header_takes_the_round_from_the_path_and_has_no_system_columns(tmp_path):
    (tmp_path / "inference_results_v0.7").mkdir()
    table = tmp_path / "inference_results_v0.7" / "summary.csv"
    table.write_bytes(V07_CSV)
    _fmt, rows, rejects, note = read(table)
    assert note == "11 columns (v0.7 header)" and rejects == []
    (row,) = rows.values()
    assert row["round"] == "v0.7" and row["nodes"] is None and row["accelerator_count"] is None
    assert row["is_cpu_only"] is False and row["result_unit"] == "samples/s"


def test_11_column_rows_without_a_round_anywhere_are_quarantined_saying_so():
    rows, rejects, _note = parse_file(
        fetched_bytes("summary.csv", V07_CSV), detect(fetched_bytes("summary.csv", V07_CSV))
    )
    assert rows == [] and "cannot tell the round from version/ID" in rejects[0].reason


def test_power_rows_are_merged_into_their_performance_row_and_orphans_are_quarantined():
    power = [
        "Acme",
        "available",
        "closed",
        "datacenter",
        "Acme 8x",
        "acme8",
        "gpt-oss-120b",
        "gpt-oss-120b",
        "Offline",
        "6543.2",
        "",
        "2",
        "CPU",
        "2",
        "64",
        "NVIDIA B200-SXM-180GB",
        "8",
        "16",
        "x",
        "vLLM",
        "U",
        "",
        "closed",
        "0",
        "v6.0",
        "0",
        "True",
        "Watts",
        "mxfp4",
        "1000",
        "abc",
    ]
    orphan = list(power)
    orphan[8] = "Server"
    data = csv31(power, orphan)
    rows, rejects, _note = parse_file(fetched_bytes("out.csv", data), detect(fetched_bytes("out.csv", data)))
    assert len(rows) == 1 and rows[0]["power_value"] == 6543.2 and rows[0]["power_unit"] == "Watts"
    assert len(rejects) == 1 and "power row without the performance row" in rejects[0].reason


def test_csv_rows_with_the_wrong_field_count_are_quarantined_by_line():
    data = csv31()[:-1] + b'\n"only","three","fields"\n'
    rows, rejects, _note = parse_file(fetched_bytes("x.csv", data), detect(fetched_bytes("x.csv", data)))
    assert len(rows) == 1 and rejects[0].location == "line 3" and "3 fields, the header 31" in rejects[0].reason


def test_a_csv_lacking_checker_columns_names_the_file_and_the_columns():
    data = b"Organization,MlperfModel,Result\nAcme,resnet,1\n"
    with pytest.raises(IngestError, match=r"x.csv: not a submission-checker CSV: header lacks \['Division'"):
        parse_file(fetched_bytes("x.csv", data), detect(fetched_bytes("x.csv", data)))


def test_hyperlink_formula_gives_its_url_not_the_cached_zero():
    assert xlsx.hyperlink_url('=HYPERLINK("https://x/y","details")') == "https://x/y"
    assert xlsx.hyperlink_url("plain") == "plain" and xlsx.hyperlink_url(None) is None


def test_a_page_without_a_round_is_a_clear_error():
    data = b'<html><title>Results</title><table class="table results-table"></table> MLPerf Inference</html>'
    with pytest.raises(IngestError, match="page.html: no 'MLPerf Inference vX.Y' title"):
        parse_file(fetched_bytes("page.html", data), detect(fetched_bytes("page.html", data)))
