"""Bad input, for every parser: a corpus generated at test time by damaging the real files under
../shared/data and the small fixtures (nothing of it is committed).

Each case ends one of three ways, and says which:
- "error": a clear error that names the file and says what is wrong (the run stops, nothing published); never for
  a dump file, which costs only itself: damaged, it is quarantined; unknown, skipped;
- "quarantined": the damaged rows or file are quarantined with a reason saying why;
- "same": the damage does not matter (a BOM, CRLF line ends, numbers written as strings) and the file
  reads exactly as the intact one.
Whatever the case, every number that does come out must equal the intact file's number for the same
result, measurement or request (never a silently wrong number), and nothing may crash.
"""

import copy
import io
import json
import math
import os
import re

import openpyxl
import polars as pl
import pytest
import yaml

from tests.support.badinput import (
    BINARY,
    BOM,
    CRLF,
    CSV_INSTEAD,
    EMPTY,
    JSON_INSTEAD,
    NESTED,
    TRUNCATED,
    UTF16,
    Outcome,
    Target,
    csv_edit,
    cut_after,
    cut_in_last_value,
    json_edit,
    json_lines_edit,
    json_replace,
    latin1_inside,
    on_file,
    on_main,
    outcomes,
    set_cell,
    set_path,
    stringify,
    without,
)
from tests.support.data import DATA, REPO_ROOT, WORKED_RUN_YAML

FIXTURES = REPO_ROOT / "tests" / "fixtures"
SUMMARY = DATA / "mlperf" / "summary"
TREE = DATA / "mlperf" / "submissions" / "v5.1" / "closed" / "AMD"
AMD_SERVER = "results/8xMI300X_2xEPYC_9575F/llama2-70b-99/Server"
AMD_RUN = f"{AMD_SERVER}/performance/run_1"
RUN_YAML = WORKED_RUN_YAML.encode()


def read(path) -> bytes:
    return path.read_bytes()


def table_subset() -> dict[str, bytes]:
    """30 records of the real v5.1 round table, the RedHat H100 worked case among them."""
    records = json.loads(read(SUMMARY / "v5.1" / "summary_results.json"))
    chosen = [r for r in records if r["Submitter"] == "RedHat"] + records[:26]
    return {"summary_results.json": json.dumps(chosen).encode()}


def tree_files() -> dict[str, bytes]:
    """The AMD v5.1 submission tree (systems, LoadGen logs, accuracy, measurements, result page)."""
    return {f"v5.1/closed/AMD/{p.relative_to(TREE).as_posix()}": p.read_bytes() for p in TREE.rglob("*") if p.is_file()}


def power_tree_files() -> dict[str, bytes]:
    """The Lenovo whisper Offline power run (spl.txt) with its system and measurements files."""
    root = DATA / "mlperf/submissions/v5.1/closed/Lenovo"
    keep = (
        "systems/SR680a_V3_B200SXMx8_TRT.json",
        "results/SR680a_V3_B200SXMx8_TRT/whisper/",
        "measurements/SR680a_V3_B200SXMx8_TRT/whisper/",
    )
    return {
        f"v5.1/closed/Lenovo/{p.relative_to(root).as_posix()}": p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and p.relative_to(root).as_posix().startswith(keep)
    }


def dump(files: dict[str, object]) -> dict[str, bytes]:
    """A dump folder: run.yaml and the given files (paths or bytes)."""
    return {"run.yaml": RUN_YAML, **{k: v if isinstance(v, bytes) else read(v) for k, v in files.items()}}


def parquet_of(csv_bytes: bytes) -> bytes:
    out = io.BytesIO()
    pl.read_csv(io.BytesIO(csv_bytes)).write_parquet(out)
    return out.getvalue()


IP = DATA / "dumps/inference-perf/kubecon-na-2025/vllm/results"
GENERIC = read(FIXTURES / "generic/requests.csv")
PRICES = (REPO_ROOT / "assets/defaults/prices.csv").read_bytes()
PROFILES = (REPO_ROOT / "assets/defaults/profiles.yaml").read_bytes()
TARGETS = {
    t.name: t
    for t in [
        Target("summary_results.json", table_subset, "summary_results.json", "mlperf"),
        Target(
            "index summary.json",
            lambda: {"summary.json": read(SUMMARY / "v5.0/unofficial_submissions/summary.json")},
            "summary.json",
            "mlperf",
        ),
        Target(
            "checker csv",
            lambda: {"summary.csv": read(SUMMARY / "v4.1/submitter_checker_csv/closed/GigaComputing/summary.csv")},
            "summary.csv",
            "mlperf",
        ),
        Target(
            "workbook",
            lambda: {"summary.xlsx": read(SUMMARY / "v5.0/unofficial_submissions/summary.xlsx")},
            "summary.xlsx",
            "mlperf",
        ),
        Target(
            "cm-result.json",
            lambda: {
                "cm-result.json": read(
                    next(
                        (SUMMARY / "v4.1/cm4mlperf-results/experiment").glob(
                            "*closed--language-processing--server/*/cm-result.json"
                        )
                    )
                )
            },
            "cm-result.json",
            "mlperf",
        ),
        Target(
            "submission tree", tree_files, f"v5.1/closed/AMD/{AMD_RUN}/mlperf_log_detail.txt", "mlperf", folder=True
        ),
        Target(
            "power tree",
            power_tree_files,
            "v5.1/closed/Lenovo/results/SR680a_V3_B200SXMx8_TRT/whisper/Offline/performance/run_1/spl.txt",
            "mlperf",
            folder=True,
        ),
        Target(
            "result page",
            lambda: {"summary.html": read(TREE / "results/8xMI300X_2xEPYC_9575F/summary.html")},
            "summary.html",
            "page",
        ),
        Target(
            "inference-perf stage",
            lambda: dump(
                {name: IP / name for name in ("stage_0_lifecycle_metrics.json", "stage_3_lifecycle_metrics.json")}
            ),
            "stage_3_lifecycle_metrics.json",
            "dumps",
            folder=True,
        ),
        Target(
            "inference-perf per request",
            lambda: dump(
                {
                    name: FIXTURES / "inference-perf/per_request" / name
                    for name in ("per_request_lifecycle_metrics.json", "stage_0_lifecycle_metrics.json")
                }
            ),
            "per_request_lifecycle_metrics.json",
            "dumps",
            folder=True,
        ),
        Target(
            "vllm result",
            lambda: dump({"result.json": FIXTURES / "vllm/openai-4.0qps-Llama-3.1-8B-Instruct-20260901-120000.json"}),
            "result.json",
            "dumps",
            folder=True,
        ),
        Target(
            "vllm json lines",
            lambda: dump({"results.jsonl": FIXTURES / "vllm/appended.jsonl"}),
            "results.jsonl",
            "dumps",
            folder=True,
        ),
        Target(
            "vllm seconds",
            lambda: dump(
                {"conc4.json": DATA / "dumps/inferencex-vllm-bench/qwen35_vllm_tp8_isl1024_osl128_conc4.json"}
            ),
            "conc4.json",
            "dumps",
            folder=True,
        ),
        Target(
            "sglang",
            lambda: dump({"bench.jsonl": FIXTURES / "sglang/sglang_0901_10_256_64.jsonl"}),
            "bench.jsonl",
            "dumps",
            folder=True,
        ),
        Target(
            "guidellm json",
            lambda: dump({"benchmarks.json": DATA / "dumps/guidellm/guidellm_report_v2_mock_server.json"}),
            "benchmarks.json",
            "dumps",
            folder=True,
        ),
        Target(
            "guidellm csv",
            lambda: dump({"benchmarks.csv": FIXTURES / "guidellm/benchmarks.csv"}),
            "benchmarks.csv",
            "dumps",
            folder=True,
        ),
        Target(
            "aiperf",
            lambda: dump(
                {
                    "profile_export_aiperf.json": FIXTURES / "aiperf/rate8/profile_export_aiperf.json",
                    "profile_export.jsonl": FIXTURES / "aiperf/rate8/profile_export.jsonl",
                }
            ),
            "profile_export_aiperf.json",
            "dumps",
            folder=True,
        ),
        Target(
            "genai-perf",
            lambda: dump({"profile_export_genai_perf.json": FIXTURES / "genai-perf/profile_export_genai_perf.json"}),
            "profile_export_genai_perf.json",
            "dumps",
            folder=True,
        ),
        Target(
            "llmperf",
            lambda: dump(
                {
                    name: DATA / "dumps/llmperf" / name
                    for name in ("summary_fireworks_70b.json", "individual_fireworks_70b.json")
                }
            ),
            "summary_fireworks_70b.json",
            "dumps",
            folder=True,
        ),
        Target(
            "loadgen run",
            lambda: dump(
                {
                    "mlperf_log_detail.txt": TREE / AMD_RUN / "mlperf_log_detail.txt",
                    "mlperf_log_summary.txt": TREE / AMD_RUN / "mlperf_log_summary.txt",
                }
            ),
            "mlperf_log_detail.txt",
            "dumps",
            folder=True,
        ),
        Target("generic csv", lambda: dump({"requests.csv": GENERIC}), "requests.csv", "dumps", folder=True),
        Target(
            "generic parquet",
            lambda: dump({"requests.parquet": parquet_of(GENERIC)}),
            "requests.parquet",
            "dumps",
            folder=True,
        ),
        Target("run.yaml", lambda: dump({"requests.csv": GENERIC}), "run.yaml", "dumps", folder=True),
        Target("prices csv", lambda: {"prices.csv": PRICES}, "prices.csv", "prices"),
        Target("profiles yaml", lambda: {"profiles.yaml": PROFILES}, "profiles.yaml", "profiles"),
    ]
}


def workbook_edit(change) -> object:
    """Open the real workbook with openpyxl, change its first sheet, save it again."""

    def mutate(files, main):
        book = openpyxl.load_workbook(io.BytesIO(files[main]))
        change(book.worksheets[0])
        out = io.BytesIO()
        book.save(out)
        return {**files, main: out.getvalue()}

    return mutate


def first_value_cell(sheet):
    """The first numeric result cell below the header rows."""
    for row in sheet.iter_rows(min_row=6):
        for cell in row:
            if isinstance(cell.value, (int, float)) and cell.column > 15:
                return cell
    raise AssertionError("no result cell")


def html_edit(old: str, new: str, count: int = 1):
    return on_main(lambda d: d.decode().replace(old, new, count).encode())


def yaml_edit(change):
    def mutate(files, main):
        document = yaml.safe_load(files[main])
        change(document)
        return {**files, main: yaml.safe_dump(document).encode()}

    return mutate


def first_profile(**changes):
    return yaml_edit(lambda d: d["profiles"][0].update(changes))


def slo(**changes):
    return yaml_edit(lambda d: d["profiles"][0]["slo"].update(changes))


def run_yaml(**changes):
    def mutate(files, main):
        document = yaml.safe_load(files["run.yaml"])
        document.update(changes)
        return {**files, "run.yaml": yaml.safe_dump(document).encode()}

    return mutate


def duplicate_last_line(files, main):
    lines = files[main].splitlines(keepends=True)
    return {**files, main: b"".join(lines) + lines[-1]}


def ndjson_cut(files, main):
    data = files[main].rstrip(b"\n")
    return {**files, main: data[: data.rfind(b"\n") + 40]}


NAN, INF = float("nan"), float("inf")
V51 = "summary_results.json"
GEN = "generic csv"
# (target, case, mutation, outcome, reason regex)
CASES = [
    # --- summary_results.json -------------------------------------------------------------------
    (V51, "empty", EMPTY, "error", r"not an MLPerf result file.*empty file"),
    (V51, "truncated", TRUNCATED, "error", r"invalid JSON at line 1 column \d+"),
    (V51, "utf-8 bom", BOM, "same", ""),
    (V51, "utf-16", UTF16, "error", r"UTF-16 text .*save it as UTF-8"),
    (V51, "latin-1 byte", on_main(lambda d: latin1_inside(d, b'"Submitter": "')), "error", r"not UTF-8 text"),
    (V51, "nested 100000 deep", NESTED, "error", r"nested too deeply"),
    (V51, "csv instead of json", CSV_INSTEAD, "error", r"not an MLPerf result file"),
    (V51, "binary", BINARY, "error", r"not an MLPerf result file"),
    (
        V51,
        "result as a string",
        json_edit(lambda r: r[0].update(Performance_Result=str(r[0]["Performance_Result"]))),
        "same",
        "",
    ),
    (
        V51,
        "result N/A",
        json_edit(lambda r: r[0].update(Performance_Result="N/A")),
        "quarantined",
        r"Performance_Result is missing \(got 'N/A'",
    ),
    (
        V51,
        "result negative",
        json_edit(lambda r: r[0].update(Performance_Result=-8840.42)),
        "quarantined",
        r"finite positive number \(got -8840.42\)",
    ),
    (V51, "result NaN", json_edit(lambda r: r[0].update(Performance_Result=NAN)), "quarantined", r"\(got nan\)"),
    (V51, "result Infinity", json_edit(lambda r: r[0].update(Performance_Result=INF)), "quarantined", r"\(got inf\)"),
    (
        V51,
        "result 1e300",
        json_edit(lambda r: r[0].update(Performance_Result=1e300)),
        "quarantined",
        r"result_value failed less_than",
    ),
    (
        V51,
        "unit contradicts",
        json_edit(lambda r: r[0].update(Performance_Units="Latency (ms)")),
        "quarantined",
        r"'Latency \(ms\)' contradicts the unit rule \(tokens/s\)",
    ),
    (
        V51,
        "unit unknown",
        json_edit(lambda r: r[0].update(Performance_Units="furlongs/s")),
        "quarantined",
        r"not a unit label this version knows",
    ),
    (
        V51,
        "accelerators 1e300",
        json_edit(lambda r: r[0].update(**{"a#": 1e300})),
        "quarantined",
        r"a# .* absurdly large",
    ),
    (
        V51,
        "accelerators -8",
        json_edit(lambda r: r[0].update(**{"a#": -8})),
        "quarantined",
        r"a# is not a whole non-negative count",
    ),
    (V51, "nodes N/A", json_edit(lambda r: r[0].update(Nodes="N/A")), "quarantined", r"Nodes must be a count"),
    (V51, "submitter null", json_edit(lambda r: r[0].update(Submitter=None)), "quarantined", r"Submitter is empty"),
    (V51, "scenario unknown", json_edit(lambda r: r[0].update(Scenario="Turbo")), "quarantined", r"unknown scenario"),
    (
        V51,
        "power negative",
        json_edit(lambda r: r[0].update(Power_Result=-3, Power_Units="Watts")),
        "quarantined",
        r"Power_Result must be a finite positive",
    ),
    (V51, "duplicate record", json_replace(lambda r: r + [copy.deepcopy(r[0])]), "quarantined", r"duplicate result"),
    (
        V51,
        "first record lacks the result",
        json_edit(lambda r: r[0].pop("Performance_Result")),
        "quarantined",
        r"record lacks keys \['Performance_Result'\]",
    ),
    (
        V51,
        "result column renamed",
        json_replace(lambda r: [{("Result" if k == "Performance_Result" else k): v for k, v in x.items()} for x in r]),
        "error",
        r"records lack \['Performance_Result'\] \(a renamed or missing column\?\)",
    ),
    (V51, "extra column", json_replace(lambda r: [dict(x, Surprise=1) for x in r]), "same", ""),
    (
        V51,
        "unknown accelerator",
        json_edit(lambda r: r[0].update(Accelerator="Quantum Flux 9000")),
        "flagged",
        r"accelerator_known",
    ),
    (
        V51,
        "unknown model",
        json_edit(lambda r: r[0].update(Model="gpt-9", UsedModel="gpt-9")),
        "flagged",
        r"model_known",
    ),
    (
        V51,
        "accuracy nested 900 deep",
        json_edit(lambda r: r[0].update(Accuracy=json.loads("[" * 900 + "]" * 900))),
        "same",
        "",
    ),
    # --- index-keyed summary.json ------------------------------------------------------------------
    ("index summary.json", "empty", EMPTY, "error", r"empty file"),
    ("index summary.json", "truncated", TRUNCATED, "error", r"invalid JSON at line \d+"),
    ("index summary.json", "utf-8 bom", BOM, "same", ""),
    ("index summary.json", "nested", NESTED, "error", r"nested too deeply"),
    (
        "index summary.json",
        "result N/A",
        json_edit(lambda d: d["0"].update(Result="N/A")),
        "quarantined",
        r"Performance_Result is missing",
    ),
    ("index summary.json", "result NaN", json_edit(lambda d: d["0"].update(Result=NAN)), "quarantined", r"got nan"),
    ("index summary.json", "result -1", json_edit(lambda d: d["0"].update(Result=-1)), "quarantined", r"got -1"),
    (
        "index summary.json",
        "row not an object",
        json_edit(lambda d: d.update({"999": [1, 2]})),
        "quarantined",
        r"row 999.*row is a list",
    ),
    (
        "index summary.json",
        "column renamed in one row",
        json_edit(lambda d: d["1"].update(Score=d["1"].pop("Result"))),
        "quarantined",
        r"checker row lacks \['Result'\]",
    ),
    (
        "index summary.json",
        "duplicate row",
        json_edit(lambda d: d.update({"999": dict(d["0"], notes="again")})),
        "quarantined",
        r"duplicate result",
    ),
    # --- checker CSV ------------------------------------------------------------------------------
    ("checker csv", "empty", EMPTY, "error", r"empty file"),
    (
        "checker csv",
        "cut mid-line",
        on_main(lambda d: d[: len(d) // 2]),
        "quarantined",
        r"line \d+ has \d+ fields|does not end with a newline",
    ),
    ("checker csv", "cut in the last value", on_main(cut_in_last_value), "quarantined", r"does not end with a newline"),
    ("checker csv", "utf-8 bom", BOM, "same", ""),
    ("checker csv", "crlf", CRLF, "same", ""),
    ("checker csv", "utf-16", UTF16, "error", r"not an MLPerf result file"),
    (
        "checker csv",
        "latin-1 byte",
        on_main(lambda d: latin1_inside(d, b"\nGigaComputing")),
        "error",
        r"not UTF-8 text",
    ),
    ("checker csv", "json instead of csv", JSON_INSTEAD, "error", r"not MLPerf result rows"),
    ("checker csv", "result N/A", csv_edit(set_cell("Result", "N/A")), "quarantined", r"Performance_Result is missing"),
    ("checker csv", "result negative", csv_edit(set_cell("Result", "-57174.1")), "quarantined", r"got '-57174.1'"),
    ("checker csv", "result NaN", csv_edit(set_cell("Result", "NaN")), "quarantined", r"got 'NaN'"),
    ("checker csv", "result inf", csv_edit(set_cell("Result", "inf")), "quarantined", r"got 'inf'"),
    ("checker csv", "result 1e300", csv_edit(set_cell("Result", "1e300")), "quarantined", r"less_than"),
    ("checker csv", "thousands separator", csv_edit(set_cell("Result", "57,174.1")), "same", ""),
    ("checker csv", "unit contradicts", csv_edit(set_cell("Units", "Latency (ms)")), "quarantined", r"contradicts"),
    ("checker csv", "nodes N/A", csv_edit(set_cell("number_of_nodes", "N/A")), "quarantined", r"Nodes must be"),
    (
        "checker csv",
        "accelerators -2",
        csv_edit(set_cell("accelerators_per_node", "-2")),
        "quarantined",
        r"a# is not a whole",
    ),
    ("checker csv", "duplicate row", on_main(lambda d: d + d.splitlines(True)[1]), "same", ""),
    ("checker csv", "extra column", csv_edit(lambda rows: [r.append("x") for r in rows]), "same", ""),
    (
        "checker csv",
        "result column missing",
        csv_edit(lambda rows: [r.pop(rows[0].index("Result")) for r in rows[::-1]]),
        "error",
        r"header lacks \['Result'\]",
    ),
    (
        "checker csv",
        "a row with a field too many",
        csv_edit(lambda rows: rows[2].append("surplus")),
        "quarantined",
        r"line 3 has 28 fields, the header 27",
    ),
    ("checker csv", "semicolons", on_main(lambda d: d.replace(b",", b";")), "error", r"not an MLPerf result file"),
    (
        "checker csv",
        "unknown accelerator",
        csv_edit(set_cell("accelerator_model_name", "Quantum Flux")),
        "flagged",
        r"accelerator_known",
    ),
    # --- workbook -----------------------------------------------------------------------------------
    ("workbook", "empty", EMPTY, "error", r"empty file"),
    ("workbook", "truncated", TRUNCATED, "error", r"not an MLPerf result file"),
    ("workbook", "csv renamed .xlsx", CSV_INSTEAD, "error", r"not an MLPerf result file"),
    ("workbook", "value N/A", workbook_edit(lambda s: setattr(first_value_cell(s), "value", "N/A")), "missing", ""),
    (
        "workbook",
        "value negative",
        workbook_edit(lambda s: setattr(first_value_cell(s), "value", -5.0)),
        "quarantined",
        r"finite positive number \(got -5(\.0)?\)",
    ),
    (
        "workbook",
        "value a word",
        workbook_edit(lambda s: setattr(first_value_cell(s), "value", "fast")),
        "quarantined",
        r"not a number \(got 'fast'\)",
    ),
    (
        "workbook",
        "value 1e300",
        workbook_edit(lambda s: setattr(first_value_cell(s), "value", 1e300)),
        "quarantined",
        r"less_than",
    ),
    (
        "workbook",
        "header label moved",
        workbook_edit(
            lambda s: [
                setattr(c, "value", "Modell") for row in s.iter_rows(max_row=10) for c in row if c.value == "Model"
            ]
        ),
        "error",
        r"no Model / Scenario / Units header rows",
    ),
    # --- cm-result.json -----------------------------------------------------------------------------
    ("cm-result.json", "empty", EMPTY, "error", r"empty file"),
    ("cm-result.json", "truncated", TRUNCATED, "error", r"invalid JSON"),
    ("cm-result.json", "nested", NESTED, "error", r"nested too deeply"),
    ("cm-result.json", "result N/A", json_edit(lambda r: r[0].update(Result="N/A")), "quarantined", r"missing"),
    ("cm-result.json", "result -1", json_edit(lambda r: r[0].update(Result=-1)), "quarantined", r"got -1"),
    ("cm-result.json", "result 1e300", json_edit(lambda r: r[0].update(Result=1e300)), "quarantined", r"less_than"),
    (
        "cm-result.json",
        "record a string",
        json_edit(lambda r: r.append("junk")),
        "quarantined",
        r"record is not a checker row",
    ),
    ("cm-result.json", "repeated record", json_edit(lambda r: r.append(copy.deepcopy(r[0]))), "same", ""),
    # --- submission tree ----------------------------------------------------------------------------
    (
        "submission tree",
        "system JSON empty",
        on_file("v5.1/closed/AMD/systems/8xMI300X_2xEPYC_9575F.json", lambda d: b""),
        "quarantined",
        r"systems/.*json: invalid JSON",
    ),
    (
        "submission tree",
        "system JSON nested",
        on_file("v5.1/closed/AMD/systems/8xMI300X_2xEPYC_9575F.json", lambda d: b'{"a":' * 50_000),
        "quarantined",
        r"nested too deeply",
    ),
    (
        "submission tree",
        "system JSON utf-16",
        on_file("v5.1/closed/AMD/systems/8xMI300X_2xEPYC_9575F.json", lambda d: d.decode().encode("utf-16")),
        "quarantined",
        r"UTF-16",
    ),
    (
        "submission tree",
        "system JSON a list",
        on_file("v5.1/closed/AMD/systems/8xMI300X_2xEPYC_9575F.json", lambda d: b"[1]"),
        "quarantined",
        r"expected a JSON object describing the system",
    ),
    (
        "submission tree",
        "accelerators per node -8",
        json_edit(set_path(["accelerators_per_node"], -8), "v5.1/closed/AMD/systems/8xMI300X_2xEPYC_9575F.json"),
        "quarantined",
        r"a# is not a whole non-negative count",
    ),
    (
        "submission tree",
        "nodes 1e300",
        json_edit(set_path(["number_of_nodes"], 1e300), "v5.1/closed/AMD/systems/8xMI300X_2xEPYC_9575F.json"),
        "quarantined",
        r"Nodes .* absurdly large",
    ),
    (
        "submission tree",
        "system type missing",
        json_edit(lambda d: d.pop("system_type"), "v5.1/closed/AMD/systems/8xMI300X_2xEPYC_9575F.json"),
        "quarantined",
        r"system_type is missing",
    ),
    (
        "submission tree",
        "unknown accelerator",
        json_edit(
            set_path(["accelerator_model_name"], "Quantum Flux"), "v5.1/closed/AMD/systems/8xMI300X_2xEPYC_9575F.json"
        ),
        "flagged",
        r"accelerator_known",
    ),
    (
        "submission tree",
        "detail log cut mid-line at the result",
        on_main(cut_after(b'"result_completed_tokens', 12)),
        "same-value-from-summary",
        "",
    ),
    ("submission tree", "detail log empty", on_main(lambda d: b""), "quarantined", r"no LoadGen events found"),
    (
        "submission tree",
        "detail and summary cut mid-number",
        lambda f, m: {
            **{k: v for k, v in f.items() if k != m},
            f"v5.1/closed/AMD/{AMD_RUN}/mlperf_log_summary.txt": cut_after(b"Completed tokens per second: 24", 0)(
                f[f"v5.1/closed/AMD/{AMD_RUN}/mlperf_log_summary.txt"]
            ),
        },
        "quarantined",
        r"lacks result_completed_tokens_per_second",
    ),
    (
        "submission tree",
        "detail log a line nested 100000 deep",
        on_main(lambda d: b":::MLLOG " + b"[" * 100_000 + b"\n" + d),
        "same",
        "",
    ),
    (
        "submission tree",
        "both logs empty",
        lambda f, m: {**f, m: b"", m.replace("detail", "summary"): b""},
        "quarantined",
        r"no LoadGen events found",
    ),
    (
        "submission tree",
        "accuracy.txt garbage",
        on_file(f"v5.1/closed/AMD/{AMD_SERVER}/accuracy/accuracy.txt", lambda d: bytes(range(256))),
        "same",
        "",
    ),
    (
        "submission tree",
        "measurements JSON empty",
        on_file(
            "v5.1/closed/AMD/measurements/8xMI300X_2xEPYC_9575F/llama2-70b-99/Server/8xMI300X_2xEPYC_9575F.json",
            lambda d: b"",
        ),
        "quarantined",
        r"measurements/.*invalid JSON",
    ),
    (
        "submission tree",
        "measurements precision unknown",
        json_edit(
            set_path(["weight_data_types"], "quantum8"),
            "v5.1/closed/AMD/measurements/8xMI300X_2xEPYC_9575F/llama2-70b-99/Server/8xMI300X_2xEPYC_9575F.json",
        ),
        "precision-unknown",
        "",
    ),
    (
        "submission tree",
        "result page layout changed",
        on_file(
            "v5.1/closed/AMD/results/8xMI300X_2xEPYC_9575F/summary.html",
            lambda d: d.replace(b"Submitted by:", b"Submitter:"),
        ),
        "quarantined",
        r"result page not read: .*lacks \['Submitter'\]",
    ),
    ("power tree", "spl.txt cut mid-number", on_main(lambda d: d[: d.rindex(b"Watts,") + 7]), "same", ""),
    (
        "power tree",
        "spl.txt garbage",
        on_main(lambda d: bytes(range(256)) * 4),
        "quarantined",
        r"no power sample falls inside the power window",
    ),
    # --- result pages --------------------------------------------------------------------------------
    (
        "result page",
        "results table renamed",
        html_edit("results-table", "scores-table", 10),
        "error",
        r"not an MLPerf result file",
    ),
    (
        "result page",
        "detail labels renamed",
        html_edit("Submitted by:", "Submitter:"),
        "error",
        r"lacks \['Submitter'\]",
    ),
    (
        "result page",
        "model cells unclassed",
        html_edit('class="model"', 'class="name"', 10),
        "quarantined",
        r"none could be read .* has the page layout changed",
    ),
    (
        "result page",
        "units and numbers swapped",
        html_edit(
            '<td class="units">Tokens/s</td> <td class="perf">24593.80</td>',
            '<td class="units">24593.80</td> <td class="perf">Tokens/s</td>',
        ),
        "quarantined",
        r"not a number \(got 'Tokens/s'\)",
    ),
    ("result page", "latin-1 byte", on_main(lambda d: latin1_inside(d, b"<title>")), "error", r"not UTF-8 text"),
    ("result page", "truncated", TRUNCATED, "error", r"not an MLPerf result file"),
    # --- inference-perf ------------------------------------------------------------------------------
    ("inference-perf stage", "empty", EMPTY, "skipped", r"empty file"),
    ("inference-perf stage", "truncated", TRUNCATED, "quarantined", r"stage_3_lifecycle_metrics.json: invalid JSON"),
    ("inference-perf stage", "utf-8 bom", BOM, "same", ""),
    ("inference-perf stage", "utf-16", UTF16, "quarantined", r"UTF-16 text"),
    (
        "inference-perf stage",
        "latin-1 byte",
        on_main(lambda d: latin1_inside(d, b'"')),
        "quarantined",
        r"not UTF-8 text",
    ),
    ("inference-perf stage", "nested", NESTED, "skipped", r"nested too deeply"),
    ("inference-perf stage", "binary", BINARY, "skipped", r"not a dump format"),
    (
        "inference-perf stage",
        "p95 as a string",
        json_edit(stringify(["successes", "latency", "time_to_first_token", "p95"])),
        "same",
        "",
    ),
    (
        "inference-perf stage",
        "p95 N/A",
        json_edit(set_path(["successes", "latency", "time_to_first_token", "p95"], "N/A")),
        "quarantined",
        r"p95 is not a number \(got 'N/A'\)",
    ),
    (
        "inference-perf stage",
        "p95 negative",
        json_edit(set_path(["successes", "latency", "time_to_first_token", "p95"], -0.08)),
        "quarantined",
        r"ttft_p95_ms failed greater",
    ),
    (
        "inference-perf stage",
        "p95 NaN",
        json_edit(set_path(["successes", "latency", "time_to_first_token", "p95"], NAN)),
        "quarantined",
        r"not finite",
    ),
    (
        "inference-perf stage",
        "rate Infinity",
        json_edit(set_path(["successes", "throughput", "requests_per_sec"], INF)),
        "quarantined",
        r"not finite",
    ),
    (
        "inference-perf stage",
        "p95 1e300",
        json_edit(set_path(["successes", "latency", "time_to_first_token", "p95"], 1e300)),
        "quarantined",
        r"less_than",
    ),
    (
        "inference-perf stage",
        "count 1e300",
        json_edit(set_path(["successes", "count"], 1e300)),
        "quarantined",
        r"absurdly large for a count",
    ),
    (
        "inference-perf stage",
        "duplicate file",
        lambda f, m: {**f, "copy/stage_3_lifecycle_metrics.json": f[m]},
        "same",
        "",
    ),
    (
        "inference-perf per request",
        "entry not an object",
        json_edit(lambda r: r.append("junk")),
        "quarantined",
        r"request \d+.*expected an object",
    ),
    (
        "inference-perf per request",
        "start N/A",
        json_edit(lambda r: r[3].update(start_time="N/A")),
        "quarantined",
        r"request 3.start_time is not a number",
    ),
    (
        "inference-perf per request",
        "token time a string",
        json_edit(lambda r: r[4]["info"]["response_metrics"].update(output_token_times=["soon"])),
        "quarantined",
        r"request 4 first output_token_times is not a number",
    ),
    (
        "inference-perf per request",
        "tokens 12.5",
        json_edit(lambda r: r[2]["info"]["response_metrics"].update(output_tokens=12.5)),
        "quarantined",
        r"output_tokens of request 2 is not a whole number",
    ),
    (
        "inference-perf per request",
        "stage file missing",
        without("stage_0_lifecycle_metrics.json"),
        "requests-only",
        "",
    ),
    # --- vLLM ----------------------------------------------------------------------------------------
    ("vllm result", "empty", EMPTY, "skipped", r"empty file"),
    ("vllm result", "truncated", TRUNCATED, "quarantined", r"result.json: invalid JSON"),
    ("vllm result", "utf-8 bom", BOM, "same", ""),
    ("vllm result", "nested", NESTED, "skipped", r"nested too deeply"),
    (
        "vllm result",
        "throughput N/A",
        json_edit(set_path(["request_throughput"], "N/A")),
        "quarantined",
        r"request_throughput is not a number",
    ),
    (
        "vllm result",
        "throughput negative",
        json_edit(set_path(["request_throughput"], -3.8)),
        "quarantined",
        r"achieved_requests_per_s failed greater",
    ),
    (
        "vllm result",
        "throughput 1e300",
        json_edit(set_path(["request_throughput"], 1e300)),
        "quarantined",
        r"achieved_requests_per_s failed less_than",
    ),
    ("vllm result", "completed 1e300", json_edit(set_path(["completed"], 1e300)), "quarantined", r"absurdly large"),
    ("vllm result", "rate as a string", json_edit(set_path(["request_rate"], "4.0")), "same", ""),
    (
        "vllm result",
        "a TTFT N/A",
        json_edit(lambda d: d["ttfts"].__setitem__(0, "N/A")),
        "quarantined",
        r"ttfts of request 0 is not a number \(got 'N/A'\)",
    ),
    (
        "vllm result",
        "a TTFT NaN",
        json_edit(lambda d: d["ttfts"].__setitem__(0, NAN)),
        "quarantined",
        r"ttfts of request 0 is not finite",
    ),
    (
        "vllm result",
        "a TTFT a list",
        json_edit(lambda d: d["ttfts"].__setitem__(0, [1])),
        "quarantined",
        r"ttfts of request 0 is not a number",
    ),
    (
        "vllm result",
        "a latency 1e300",
        json_edit(lambda d: d["latencies"].__setitem__(1, 1e300)),
        "quarantined",
        r"e2e_ms of request 1 is outside the plausible range",
    ),
    ("vllm result", "a start time null", json_edit(lambda d: d["start_times"].__setitem__(2, None)), "same", ""),
    (
        "vllm result",
        "input tokens 12.5",
        json_edit(lambda d: d["input_lens"].__setitem__(0, 12.5)),
        "quarantined",
        r"input_tokens of request 0 is not a whole number",
    ),
    (
        "vllm result",
        "arrays of different lengths",
        json_edit(lambda d: d["ttfts"].pop()),
        "quarantined",
        r"per-request arrays of different lengths",
    ),
    (
        "vllm json lines",
        "last line cut",
        ndjson_cut,
        "quarantined",
        r"results.jsonl: invalid JSON on line 3 \(the last line, "
        r"cut short\?\)",
    ),
    (
        "vllm json lines",
        "latin-1 byte",
        on_main(lambda d: latin1_inside(d, b'"request_rate')),
        "quarantined",
        r"not UTF-8 text",
    ),
    ("vllm json lines", "duplicate line", duplicate_last_line, "quarantined", r"the same result as line 3 .*read once"),
    ("vllm seconds", "p99 TTFT as a string", json_edit(set_path(["p99_ttft"], "7.589122961498797")), "same", ""),
    (
        "vllm seconds",
        "p99 TTFT N/A",
        json_edit(set_path(["p99_ttft"], "N/A")),
        "quarantined",
        r"p99_ttft is not a number",
    ),
    (
        "vllm seconds",
        "concurrency Infinity",
        json_edit(set_path(["max_concurrency"], INF)),
        "quarantined",
        r"max_concurrency is not finite",
    ),
    ("sglang", "duplicate line", duplicate_last_line, "quarantined", r"the same result as line 2"),
    (
        "sglang",
        "throughput NaN",
        json_lines_edit(lambda v: v[0].update(request_throughput=NAN)),
        "quarantined",
        r"not finite",
    ),
    (
        "sglang",
        "gaps not lists",
        json_lines_edit(lambda v: [x.update(itls=[5] * len(x["ttfts"])) for x in v if "ttfts" in x]),
        "quarantined",
        r"itls must hold one list of numbers per request",
    ),
    ("sglang", "completed 1e300", json_lines_edit(lambda v: v[0].update(completed=1e300)), "quarantined", r"absurdly"),
    # --- GuideLLM -------------------------------------------------------------------------------------
    ("guidellm json", "truncated", TRUNCATED, "quarantined", r"benchmarks.json: invalid JSON"),
    (
        "guidellm json",
        "p95 N/A",
        json_edit(
            set_path(["benchmarks", 0, "metrics", "time_to_first_token_ms", "successful", "percentiles", "p95"], "N/A")
        ),
        "quarantined",
        r"benchmarks\[0\].*p95 is not a number",
    ),
    (
        "guidellm json",
        "rate negative",
        json_edit(set_path(["benchmarks", 0, "metrics", "requests_per_second", "successful", "mean"], -0.4)),
        "quarantined",
        r"greater",
    ),
    (
        "guidellm json",
        "count 1e300",
        json_edit(set_path(["benchmarks", 0, "metrics", "request_totals", "successful"], 1e300)),
        "quarantined",
        r"absurdly large",
    ),
    (
        "guidellm json",
        "report version 3",
        json_edit(set_path(["metadata", "version"], 3)),
        "quarantined",
        r"report version 3; this parser reads versions 1 and 2",
    ),
    (
        "guidellm json",
        "strategy unknown",
        json_edit(set_path(["benchmarks", 0, "config", "strategy", "type_"], "chaos")),
        "quarantined",
        r"'chaos' is not a load level",
    ),
    ("guidellm csv", "latin-1 byte", on_main(lambda d: latin1_inside(d, b"\n")), "quarantined", r"not UTF-8 text"),
    (
        "guidellm csv",
        "cut in the last value",
        on_main(cut_in_last_value),
        "quarantined",
        r"does not end with a newline",
    ),
    (
        "guidellm csv",
        "percentiles not a list",
        on_main(lambda d: re.sub(rb'"\[[^"]*\]"', b'"7"', d, count=1)),
        "quarantined",
        r"Percentiles holds '7', expected a list",
    ),
    # --- AIPerf / GenAI-Perf --------------------------------------------------------------------------
    (
        "aiperf",
        "TTFT unit seconds",
        json_edit(set_path(["time_to_first_token", "unit"], "s")),
        "quarantined+records",
        r"time_to_first_token.unit is 's', expected ms",
    ),
    ("aiperf", "count 1e300", json_edit(set_path(["request_count", "avg"], 1e300)), "quarantined+records", r"absurdly"),
    ("aiperf", "records with a bom", on_file("profile_export.jsonl", lambda d: b"\xef\xbb\xbf" + d), "same", ""),
    (
        "aiperf",
        "records: a TTFT as text",
        on_file(
            "profile_export.jsonl",
            lambda d: d.replace(b'"time_to_first_token":{"value":', b'"time_to_first_token":{"value":"soon","was":', 1),
        ),
        "quarantined",
        r"profile_export.jsonl|conversion|cast|not a number",
    ),
    (
        "aiperf",
        "records: last line cut",
        on_file("profile_export.jsonl", lambda d: d.rstrip(b"\n")[:-30]),
        "error",
        r"profile_export.jsonl: invalid JSON on line \d+ \(the last line, cut short\?\)",
    ),
    (
        "aiperf",
        "records: start in the year 2500",
        on_file("profile_export.jsonl", lambda d: d.replace(b'"request_start_ns":1', b'"request_start_ns":101', 1)),
        "quarantined",
        r"start_(time_unix_s|offset_s) of line 1 is outside the plausible range",
    ),
    ("aiperf", "aggregate missing", without("profile_export_aiperf.json"), "requests-only", ""),
    (
        "genai-perf",
        "p95 N/A",
        json_edit(set_path(["time_to_first_token", "p95"], "N/A")),
        "quarantined",
        r"not a number",
    ),
    (
        "genai-perf",
        "throughput Infinity",
        json_edit(set_path(["request_throughput", "avg"], INF)),
        "quarantined",
        r"not finite",
    ),
    # --- LLMPerf -------------------------------------------------------------------------------------
    (
        "llmperf",
        "p95 as a string",
        json_edit(set_path(["results_ttft_s_quantiles_p95"], "0.7868415615500112")),
        "same",
        "",
    ),
    (
        "llmperf",
        "p95 N/A",
        json_edit(set_path(["results_ttft_s_quantiles_p95"], "N/A")),
        "quarantined+records",
        r"not a number",
    ),
    (
        "llmperf",
        "completions 1e300",
        json_edit(set_path(["results_num_completed_requests"], 1e300)),
        "quarantined+records",
        r"absurdly",
    ),
    (
        "llmperf",
        "response tokens N/A",
        json_edit(lambda r: r[1].update(number_output_tokens="N/A"), "individual_fireworks_70b.json"),
        "quarantined",
        r"output_tokens of response 1 is not a number \(got 'N/A'\)",
    ),
    (
        "llmperf",
        "response tokens 12.5",
        json_edit(lambda r: r[1].update(number_output_tokens=12.5), "individual_fireworks_70b.json"),
        "quarantined",
        r"output_tokens of response 1 is not a whole number",
    ),
    (
        "llmperf",
        "response tokens as strings",
        json_edit(
            lambda r: [x.update(number_input_tokens=str(x["number_input_tokens"])) for x in r],
            "individual_fireworks_70b.json",
        ),
        "same",
        "",
    ),
    (
        "llmperf",
        "response a string",
        json_edit(lambda r: r.append("junk"), "individual_fireworks_70b.json"),
        "quarantined",
        r"response 150 is a str, expected an object",
    ),
    ("llmperf", "summary missing", without("summary_fireworks_70b.json"), "requests-only", ""),
    # --- LoadGen runs on our hardware -------------------------------------------------------------
    (
        "loadgen run",
        "detail log cut mid-line",
        on_main(cut_after(b'"result_completed_samples_per_sec', 10)),
        "same-value-from-summary",
        "",
    ),
    (
        "loadgen run",
        "summary cut mid-number, no detail log",
        lambda f, m: {
            "run.yaml": f["run.yaml"],
            "mlperf_log_summary.txt": cut_after(b"Completed samples per second    : 81", 0)(
                f["mlperf_log_summary.txt"]
            ),
        },
        "quarantined",
        r"no completed samples per second",
    ),
    (
        "loadgen run",
        "a SingleStream run",
        lambda f, m: {
            **f,
            m: f[m].replace(b'"value": "Server"', b'"value": "SingleStream"'),
            "mlperf_log_summary.txt": f["mlperf_log_summary.txt"].replace(
                b"Scenario : Server", b"Scenario : SingleStream"
            ),
        },
        "quarantined",
        r"a LoadGen SingleStream run",
    ),
    ("loadgen run", "binary detail log", on_main(lambda d: bytes(range(256)) * 8), "same-value-from-summary", ""),
    # --- generic per-request CSV / Parquet ---------------------------------------------------------
    (GEN, "empty", EMPTY, "skipped", r"empty file"),
    (GEN, "utf-16", UTF16, "quarantined", r"UTF-16 text"),
    (GEN, "latin-1 byte", on_main(lambda d: latin1_inside(d, b",ok,")), "quarantined", r"not UTF-8 text"),
    (GEN, "utf-8 bom", BOM, "same", ""),
    (GEN, "crlf", CRLF, "same", ""),
    (
        GEN,
        "ttft N/A",
        csv_edit(set_cell("ttft_ms", "N/A", 5)),
        "quarantined-request",
        r"ttft_ms of line 6 is not a number \(got 'N/A'\)",
    ),
    (
        GEN,
        "ttft a word",
        csv_edit(set_cell("ttft_ms", "fast", 5)),
        "quarantined-request",
        r"ttft_ms of line 6 is not a number",
    ),
    (
        GEN,
        "ttft negative",
        csv_edit(set_cell("ttft_ms", "-5", 5)),
        "quarantined-request",
        r"ttft_ms of line 6 is outside",
    ),
    (
        GEN,
        "ttft NaN",
        csv_edit(set_cell("ttft_ms", "NaN", 5)),
        "quarantined-request",
        r"ttft_ms of line 6 is not finite",
    ),
    (
        GEN,
        "ttft inf",
        csv_edit(set_cell("ttft_ms", "inf", 5)),
        "quarantined-request",
        r"ttft_ms of line 6 is not finite",
    ),
    (
        GEN,
        "ttft 1e300",
        csv_edit(set_cell("ttft_ms", "1e300", 5)),
        "quarantined-request",
        r"ttft_ms of line 6 is outside",
    ),
    (
        GEN,
        "tokens 12.5",
        csv_edit(set_cell("input_tokens", "12.5", 5)),
        "quarantined-request",
        r"input_tokens of line 6 is not a whole number",
    ),
    (
        GEN,
        "tokens 1e300",
        csv_edit(set_cell("input_tokens", "1e300", 5)),
        "quarantined-request",
        r"input_tokens of line 6",
    ),
    (
        GEN,
        "start N/A",
        csv_edit(set_cell("start_time_unix_s", "N/A", 5)),
        "quarantined-request",
        r"start_time_unix_s of line 6 is not a number",
    ),
    (
        GEN,
        "start in ms (unit contradicts)",
        csv_edit(lambda rows: [r.__setitem__(0, str(float(r[0]) * 1000)) for r in rows[1:]]),
        "quarantined",
        r"start_time_unix_s of line 2 is outside the plausible range",
    ),
    (
        GEN,
        "load level a word",
        csv_edit(set_cell("offered_rate_per_s", "fast", 5)),
        "quarantined-request",
        r"offered_rate_per_s of line 6 is not a number",
    ),
    (
        GEN,
        "load level negative",
        csv_edit(set_cell("offered_rate_per_s", "-2", 5)),
        "quarantined-request",
        r"offered_rate_per_s of line 6 is outside",
    ),
    (
        GEN,
        "status unknown",
        csv_edit(set_cell("status", "meh", 5)),
        "quarantined-request",
        r"line 6 \| schema Requests: status failed isin\(.*\(value meh\)",
    ),
    (GEN, "duplicate request line", duplicate_last_line, "quarantined", r"the same request as an earlier line"),
    (GEN, "cut in the last value", on_main(cut_in_last_value), "quarantined-request", r"does not end with a newline"),
    (GEN, "extra column", csv_edit(lambda rows: [r.append("x") for r in rows]), "same", ""),
    (GEN, "semicolons", on_main(lambda d: d.replace(b",", b";")), "skipped", r"not a dump format"),
    (GEN, "ttft column renamed", on_main(lambda d: d.replace(b"ttft_ms", b"ttft", 1)), "skipped", r"traffic only"),
    (GEN, "json instead of csv", JSON_INSTEAD, "skipped", r"not a dump format"),
    (
        "generic parquet",
        "ttft NaN",
        on_main(lambda d: parquet_of(re.sub(rb"(\n[^\n]*?,[^,]*,[^,]*,)[0-9.]+", rb"\1NaN", GENERIC, count=3))),
        "quarantined",
        r"ttft_ms of row \d+ is not finite",
    ),
    (
        "generic parquet",
        "start in ns",
        on_main(lambda d: parquet_of(re.sub(rb"\n1790000000\.(\d{6})", rb"\n1790000000\g<1>000", GENERIC))),
        "quarantined",
        r"start_time_unix_s of row 0 is outside the plausible range",
    ),
    ("generic parquet", "truncated", TRUNCATED, "skipped|quarantined", r"not a dump format|cannot read"),
    # --- run.yaml ------------------------------------------------------------------------------------
    ("run.yaml", "empty", EMPTY, "quarantined", r"expected a mapping of run settings"),
    ("run.yaml", "a list", on_main(lambda d: b"- a\n- b\n"), "quarantined", r"expected a mapping"),
    (
        "run.yaml",
        "tabs",
        on_main(lambda d: d.replace(b": ", b":\t", 1).replace(b"accelerator", b"\taccelerator", 1)),
        "quarantined",
        r"not a readable YAML file",
    ),
    ("run.yaml", "utf-16", UTF16, "quarantined", r"UTF-16 text"),
    ("run.yaml", "nested", on_main(lambda d: b"settings: " + b"[" * 100_000 + b"\n"), "quarantined", r"nested"),
    (
        "run.yaml",
        "alias bomb in settings",
        on_main(
            lambda d: (
                d + b"settings:\n  a: &a [x, x, x, x, x, x, x, x, x]\n"
                b"  b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                b"  c: [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
            )
        ),
        "quarantined",
        r"YAML aliases \(\*name\) are not accepted",
    ),
    (
        "run.yaml",
        "python tag",
        on_main(lambda d: d + b"label: !!python/object/apply:os.system ['true']\n"),
        "quarantined",
        r"not a readable YAML file",
    ),
    ("run.yaml", "unknown key", run_yaml(colour="red"), "quarantined", r"unknown keys \['colour'\]"),
    ("run.yaml", "settings not a mapping", run_yaml(settings=128), "quarantined", r"settings must be a mapping"),
    ("run.yaml", "model a list", run_yaml(model=["a", "b"]), "quarantined", r"\['model'\] must each be one value"),
    (
        "run.yaml",
        "missing key",
        lambda f, m: {**f, m: b"\n".join(line for line in f[m].splitlines() if not line.startswith(b"precision"))},
        "quarantined",
        r"missing required keys \['precision'\]",
    ),
    ("run.yaml", "arrival unknown", run_yaml(arrival="whenever"), "quarantined", r"arrival 'whenever' is not one of"),
    ("run.yaml", "count 0", run_yaml(accelerator_count=0), "quarantined", r"accelerator_count must be a whole number"),
    ("run.yaml", "count as a string", run_yaml(accelerator_count="8"), "quarantined", r"accelerator_count must be"),
    ("run.yaml", "precision unknown", run_yaml(precision="quantum8"), "flagged", r"precision_known"),
    ("run.yaml", "unknown accelerator", run_yaml(accelerator="Quantum Flux 9000"), "flagged", r"accelerator_known"),
    ("run.yaml", "unknown model", run_yaml(model="acme/gpt-9"), "flagged", r"model_known"),
    # --- prices CSV ----------------------------------------------------------------------------------
    ("prices csv", "empty", EMPTY, "error", r"prices.csv: prices CSV lacks columns"),
    ("prices csv", "utf-16", UTF16, "error", r"prices.csv: UTF-16 text"),
    ("prices csv", "utf-8 bom", BOM, "same", ""),
    ("prices csv", "json instead of csv", JSON_INSTEAD, "error", r"lacks columns"),
    (
        "prices csv",
        "column renamed",
        on_main(lambda d: d.replace(b"usd_per_accelerator_hour", b"usd_per_hour", 1)),
        "error",
        r"lacks columns \['usd_per_accelerator_hour'\]",
    ),
    ("prices csv", "extra column", csv_edit(lambda rows: [r.append("x") for r in rows]), "same", ""),
    (
        "prices csv",
        "price N/A",
        csv_edit(set_cell("usd_per_accelerator_hour", "N/A")),
        "quarantined",
        r"line 2.*'N/A' is not a number",
    ),
    (
        "prices csv",
        "price negative",
        csv_edit(set_cell("usd_per_accelerator_hour", "-1")),
        "quarantined",
        r"'-1' is outside the plausible range 0.05 to 500 USD",
    ),
    (
        "prices csv",
        "price NaN",
        csv_edit(set_cell("usd_per_accelerator_hour", "nan")),
        "quarantined",
        r"'nan' is outside",
    ),
    (
        "prices csv",
        "price inf",
        csv_edit(set_cell("usd_per_accelerator_hour", "inf")),
        "quarantined",
        r"'inf' is outside",
    ),
    ("prices csv", "price 1e300", csv_edit(set_cell("usd_per_accelerator_hour", "1e300")), "quarantined", r"outside"),
    (
        "prices csv",
        "price with a comma",
        csv_edit(set_cell("usd_per_accelerator_hour", "2,99")),
        "quarantined",
        r"'2,99' is not a number",
    ),
    ("prices csv", "date invalid", csv_edit(set_cell("as_of", "2026-13-01")), "quarantined", r"is not a date"),
    (
        "prices csv",
        "duplicate row",
        on_main(lambda d: d + d.splitlines(True)[1]),
        "quarantined",
        r"repeats line 2 .*read once",
    ),
    (
        "prices csv",
        "contradicting row",
        csv_edit(lambda rows: rows.append(rows[1][:2] + ["9.99"] + rows[1][3:])),
        "quarantined",
        r"contradicting prices",
    ),
    (
        "prices csv",
        "cut in the last value",
        on_main(lambda d: d.rstrip(b"\n")[:-3]),
        "quarantined",
        r"does not end with a newline",
    ),
    (
        "prices csv",
        "unknown accelerator",
        csv_edit(set_cell("accelerator", "Quantum Flux 9000")),
        "flagged",
        r"accelerator_known",
    ),
    # --- profiles YAML -------------------------------------------------------------------------------
    ("profiles yaml", "empty", EMPTY, "error", r"profiles.yaml: expected `profiles:`"),
    ("profiles yaml", "truncated", TRUNCATED, "error", r"profiles.yaml: "),
    ("profiles yaml", "utf-16", UTF16, "error", r"profiles.yaml: UTF-16 text"),
    ("profiles yaml", "utf-8 bom", BOM, "same", ""),
    ("profiles yaml", "nested", on_main(lambda d: b"[" * 100_000), "error", r"profiles.yaml: "),
    (
        "profiles yaml",
        "alias",
        on_main(
            lambda d: b"delivered_fraction_prior: *p".join(
                d.replace(b"prior: [0.5, 0.8]", b"prior: &p [0.5, 0.8]", 1).rsplit(
                    b"delivered_fraction_prior: [0.5, 0.8]", 1
                )
            )
        ),
        "error",
        r"YAML aliases",
    ),
    ("profiles yaml", "json instead of yaml", on_main(lambda d: json.dumps(yaml.safe_load(d)).encode()), "same", ""),
    (
        "profiles yaml",
        "bound as a string",
        slo(ttft_p95_ms="1000"),
        "error",
        r"slo.ttft_p95_ms must be a positive number",
    ),
    ("profiles yaml", "bound N/A", slo(ttft_p95_ms="N/A"), "error", r"got 'N/A'"),
    ("profiles yaml", "bound negative", slo(ttft_p95_ms=-1), "error", r"got -1"),
    ("profiles yaml", "bound NaN", slo(ttft_p95_ms=NAN), "error", r"got nan"),
    ("profiles yaml", "bound .inf", slo(ttft_p95_ms=INF), "error", r"got inf"),
    ("profiles yaml", "bound 1e300", slo(ttft_p95_ms=1e300), "error", r"below 1e\+08"),
    (
        "profiles yaml",
        "error rate NaN",
        slo(error_rate_max=NAN),
        "error",
        r"error_rate_max must be a number from 0 to 1 \(got nan\)",
    ),
    ("profiles yaml", "prior upside down", first_profile(delivered_fraction_prior=[0.9, 0.5]), "error", r"lo <= hi"),
    (
        "profiles yaml",
        "tokens .inf",
        first_profile(workload={"input_tokens_mean": INF}),
        "error",
        r"input_tokens_mean must be a (?:positive number|number above 0 and at most)",
    ),
    ("profiles yaml", "unknown key", first_profile(colour="red"), "error", r"unknown keys \['colour'\]"),
    (
        "profiles yaml",
        "duplicate profile",
        yaml_edit(lambda d: d["profiles"].append(copy.deepcopy(d["profiles"][0]))),
        "error",
        r"defined twice",
    ),
    ("profiles yaml", "unknown model", first_profile(model="gpt-9"), "flagged", r"model_known"),
]
CASE_IDS = [f"{t}: {c}" for t, c, *_ in CASES]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """Every case's outcome and each target's intact outcome, computed once (dump folders in one batch)."""
    intact = {name: (target, target.files()) for name, target in TARGETS.items()}
    cases = {f"intact {name}": pair for name, pair in intact.items()}
    for case_id, (target_name, _case, mutate, _expected, _reason) in zip(CASE_IDS, CASES):
        target, files = intact[target_name]
        cases[case_id] = (target, mutate(dict(files), target.main))
    found = outcomes(cases, tmp_path_factory.mktemp("corpus"))
    for name in TARGETS:
        base = found[f"intact {name}"]
        assert base.error is None and base.crash is None and base.numbers and not base.reasons, (
            name,
            base.error,
            base.crash,
            base.reasons,
        )
    return intact, found


def same(a: tuple, b: tuple, rel: float = 1e-9) -> bool:
    """Equal, numbers within `rel` (and NaN equal to NaN)."""

    def close(x, y):
        if isinstance(x, float) and isinstance(y, float):
            return math.isclose(x, y, rel_tol=rel) or (math.isnan(x) and math.isnan(y))
        return x == y

    return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))


def kept_numbers_are_the_intact_ones(got: Outcome, base: Outcome, only: str | None = None) -> None:
    """Every number that came out equals the intact file's number for the same key."""
    for key, numbers in got.numbers.items():
        if only is not None and key[0] != only:
            continue
        assert key in base.numbers, f"a result the intact file does not have: {key}"
        assert same(numbers, base.numbers[key]), f"{key}: {numbers} differs from the intact {base.numbers[key]}"


def names_the_file(text: str, target: Target, files: dict) -> bool:
    names = {os.path.basename(p) for p in files} | {target.main}
    return any(name in text for name in names)


def reason_given(reason: str, reasons: list[str]) -> None:
    assert any(re.search(reason, r, re.DOTALL) for r in reasons), reasons


def test_the_corpus_covers_every_parser_and_each_kind_of_damage():
    """docs/reliability.md states these counts; they come from the corpus itself."""
    assert {t for t, *_ in CASES} == set(TARGETS)
    outcomes = {e for *_, e, _r in CASES}
    assert {"error", "quarantined", "same", "skipped", "flagged"} <= outcomes
    assert len(CASES) >= 250


@pytest.mark.parametrize("target_name, case, mutate, expected, reason", CASES, ids=CASE_IDS)
def test_bad_input(target_name, case, mutate, expected, reason, corpus):
    intact, found = corpus
    target, files = intact[target_name]
    base, got = found[f"intact {target_name}"], found[f"{target_name}: {case}"]
    assert got.crash is None, got.crash
    if expected == "error":
        assert got.error is not None, f"expected a clear error, got {len(got.numbers)} numbers, {got.reasons[:2]}"
        assert names_the_file(got.error, target, files), got.error
        assert re.search(reason, got.error, re.DOTALL), got.error
        return
    assert got.error is None, got.error
    said = got.reasons + [f"{name} | {status} | {note}" for name, status, note in got.files if status != "read"]
    values = lambda outcome: sorted(map(repr, outcome.numbers.values()))  # noqa: E731 - the numbers, whatever their key
    if expected == "same-value-from-summary":
        # The summary log repeats the detail log's result, rounded as it prints it (what it does not
        # print, such as the query count, is left empty rather than guessed).
        assert len(got.numbers) == len(base.numbers)
        for a, b in zip(sorted(got.numbers.values(), key=repr), sorted(base.numbers.values(), key=repr)):
            assert same(tuple(y if x is None else x for x, y in zip(a, b)), b, rel=1e-4), (a, b)
    elif expected == "flagged":  # an unknown name is kept raw and flagged; its numbers are the intact ones
        assert any(False in flags for flags in got.flags.values()) and values(got) == values(base), got.flags
    elif expected == "missing":  # a blank cell in the pivot workbook means "no result there"
        kept_numbers_are_the_intact_ones(got, base)
        assert len(got.numbers) == len(base.numbers) - 1 and not got.reasons
    elif expected == "precision-unknown":  # kept raw; the normalised precision is left empty, nothing else moves
        changed = [k for k in got.numbers if got.numbers[k] != base.numbers[k]]
        assert len(changed) == 1 and got.numbers[changed[0]][:-1] == base.numbers[changed[0]][:-1]
        assert got.numbers[changed[0]][-1] is None
    elif expected == "quarantined-request":
        # A quarantined request is not counted: the requests left are the intact ones, and the load point's
        # counts and rates are recomputed from them.
        kept_numbers_are_the_intact_ones(got, base, only="request")
        requests = [k for k in got.numbers if k[0] == "request"]
        assert len(requests) == len([k for k in base.numbers if k[0] == "request"]) - 1
        reason_given(reason, got.reasons)
    elif expected in ("requests-only", "quarantined+records"):
        # Without (or with a quarantined) aggregate file, the per-request file alone is the measurement:
        # every request is the intact one; the load point comes from the requests.
        kept_numbers_are_the_intact_ones(got, base, only="request")
        assert {k for k in got.numbers if k[0] == "request"} == {k for k in base.numbers if k[0] == "request"}
        if expected == "quarantined+records":
            reason_given(reason, got.reasons)
    else:
        kept_numbers_are_the_intact_ones(got, base)
        if expected == "quarantined":
            reason_given(reason, got.reasons)
        elif expected in ("skipped", "skipped|quarantined"):
            assert any(re.search(reason, s) for s in said), said
        else:
            assert expected == "same", expected
            assert got.numbers == base.numbers and not got.reasons, (got.reasons, said)
