"""MLCommons submission-checker rows: the checker CSV of every header generation and the
index-keyed `summary.json` (pandas orient=index: v5.0 tool output, v6.1).

Header generations (the checker at each round's `mlcommons/inference` tag): 11 columns (v0.7), 26 (v1.0: misspelt
`compilance` and `infered`, `power`), 27 (v1.1-v4.1: `has_power`, `Units`), 28 (v5.x:
`weight_data_types`), 31 (v6.0+: `total_accelerators`, `design_power_watts`, `PrivateID`, all
values quoted). Rows are renamed to the final-report form the canonical builder reads, the way
MLCommons' `generate_final_report.py` renames them; a power row (Units Watts/millijoules/Joules)
is merged into the performance row of the same result.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from assets.core.errors import IngestError
from assets.core.records import Reject
from assets.formats.mlperf.exchange import MlperfFile, MlperfParsed
from assets.formats.mlperf.rows import POWER_UNITS, blank, text
from assets.inputs.textinput import CUT_LINE_REASON, cut_last_line, decode_text

CHECKER_CSV = "checker_csv"
CHECKER_JSON_INDEX = "checker_json_index"
FORMATS = (CHECKER_CSV, CHECKER_JSON_INDEX)
SKIPPED: dict[str, str] = {}
SAMPLE = 50  # records looked at to recognise a table

# Misspellings and renames across checker versions -> the current checker name.
HEADER_ALIASES = {"compilance": "compliance", "infered": "inferred", "power": "has_power"}
# Current checker name -> final-report name (generate_final_report.py).
TO_REPORT = {
    "Organization": "Submitter",
    "Division": "Category",
    "SystemType": "Suite",
    "SystemName": "System",
    "Model": "UsedModel",
    "MlperfModel": "Model",
    "number_of_nodes": "Nodes",
    "host_processor_model_name": "Processor",
    "accelerator_model_name": "Accelerator",
    "accelerators_per_node": "a#",
    "total_accelerators": "Total Accelerators",
    "framework": "Software",
    "notes": "Notes",
}
REQUIRED = ("Organization", "Division", "SystemType", "Platform", "Model", "MlperfModel", "Scenario", "Result")
GENERATIONS = {11: "v0.7 header", 26: "v1.0 header", 27: "v1.1-v4.1 header", 28: "v5.x header", 31: "v6.0+ header"}


def normalise_header(names: list[str]) -> list[str]:
    return [HEADER_ALIASES.get(name.strip(), name.strip()) for name in names]


def is_checker_record(record: Any) -> bool:
    return isinstance(record, dict) and all(k in record for k in ("Organization", "MlperfModel", "Result"))


def looks_like_checker_csv(data: bytes) -> bool:
    head = data[:4096].decode("utf-8-sig", errors="replace").splitlines()
    first = head[0] if head else ""
    return "Organization" in first and "MlperfModel" in first and "," in first


def read_csv_rows(data: bytes, name: str) -> tuple[list[dict[str, str]], str]:
    """Rows of a checker CSV with normalised column names, and a note naming its header generation.
    IngestError naming the file and the missing columns when the header is not a checker header."""
    content, cut = cut_last_line(decode_text(data, name))
    reader = csv.reader(io.StringIO(content))
    try:
        header = normalise_header(next(reader))
    except StopIteration:
        raise IngestError(f"{name}: empty file, expected a submission-checker CSV header") from None
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise IngestError(
            f"{name}: not a submission-checker CSV: header lacks {missing} (expected at least {list(REQUIRED)})"
        )
    rows = []
    for line_no, values in enumerate(reader, start=2):
        if not any(v.strip() for v in values):
            continue
        if len(values) != len(header):
            rows.append(
                {
                    "__problem__": f"line {line_no} has {len(values)} fields, the header {len(header)}",
                    "__line__": str(line_no),
                }
            )
            continue
        row = dict(zip(header, values))
        row["__line__"] = str(line_no)
        rows.append(row)
    if cut is not None:
        rows.append({"__problem__": CUT_LINE_REASON, "__line__": str(reader.line_num + 1)})
    generation = GENERATIONS.get(len(header), "unknown header generation")
    return rows, f"{len(header)} columns ({generation})"


def to_report(record: dict[str, Any]) -> dict[str, Any]:
    """A checker row (any generation) in final-report form; Result/Units become Performance_*."""
    out: dict[str, Any] = {}
    for key, value in record.items():
        key = HEADER_ALIASES.get(key, key)
        out[TO_REPORT.get(key, key)] = value
    out["Performance_Result"] = out.pop("Result", None)
    if "Units" in out:
        out["Performance_Units"] = out.pop("Units")
    if isinstance(out.get("Suite"), str):
        out["Suite"] = out["Suite"].strip()
    return out


def is_power_row(record: dict[str, Any]) -> bool:
    units = record.get("Units")
    return isinstance(units, str) and units.strip().lower() in POWER_UNITS


def identity(record: dict[str, Any]) -> tuple:
    return tuple(
        str(record.get(k, "")).strip().lower()
        for k in ("Organization", "Division", "SystemType", "Platform", "Model", "Scenario")
    )


def merge_power_rows(
    located: list[tuple[str, dict[str, Any]]], source: str
) -> tuple[list[tuple[str, dict[str, Any]]], list[Reject], int]:
    """Checker rows -> final-report records: each power row's value moves onto the performance row
    of the same result (as generate_final_report does); a power row without one is rejected.
    Identical repeated rows (cm4mlperf repeats some) are folded; the count is returned."""
    performance: dict[tuple, tuple[str, dict[str, Any]]] = {}
    records: list[tuple[str, dict[str, Any]]] = []
    power_rows: list[tuple[str, dict[str, Any]]] = []
    rejects: list[Reject] = []
    seen: set[str] = set()
    folded = 0
    for location, record in located:
        fingerprint = repr(sorted((k, str(v)) for k, v in record.items() if not k.startswith("__")))
        if fingerprint in seen:
            folded += 1
            continue
        seen.add(fingerprint)
        if is_power_row(record):
            power_rows.append((location, record))
            continue
        report = to_report(record)
        performance.setdefault(identity(record), (location, report))
        records.append((location, report))
    for location, record in power_rows:
        target = performance.get(identity(record))
        if target is None:
            rejects.append(
                Reject(
                    source,
                    location,
                    "power row without the performance row of the same "
                    "result (same Organization, Division, SystemType, Platform, Model, Scenario)",
                    record,
                )
            )
            continue
        report = target[1]
        if not blank(report.get("Power_Result")):
            rejects.append(Reject(source, location, "second power row for the same result", record))
            continue
        report["Power_Result"] = record.get("Result")
        report["Power_Units"] = text(record.get("Units"))
        report["has_power"] = True
    return records, rejects, folded


def parse_csv(data: bytes, name: str) -> tuple[list[tuple[str, dict[str, Any]]], list[Reject], str]:
    """Final-report records, rejects and a note for one checker CSV."""
    rows, note = read_csv_rows(data, name)
    rejects = [Reject(name, f"line {r['__line__']}", r["__problem__"]) for r in rows if "__problem__" in r]
    located = [(f"line {r.pop('__line__')}", r) for r in rows if "__problem__" not in r]
    records, power_rejects, folded = merge_power_rows(located, name)
    return records, rejects + power_rejects, note + (f"; {folded} identical repeated rows folded" if folded else "")


def parse_index_json(payload: dict[str, Any], name: str) -> tuple[list[tuple[str, dict[str, Any]]], list[Reject], str]:
    """Final-report records from an index-keyed checker JSON (`{"0": {...}, "1": {...}}`)."""
    located: list[tuple[str, dict[str, Any]]] = []
    rejects: list[Reject] = []
    for key, record in payload.items():
        if not isinstance(record, dict):
            rejects.append(
                Reject(name, f"row {key}", f"row is a {type(record).__name__}, expected an object", {"value": record})
            )
            continue
        missing = [c for c in REQUIRED if c not in record]
        if missing:
            rejects.append(Reject(name, f"row {key}", f"checker row lacks {missing}", record))
            continue
        located.append((f"row {key}", {HEADER_ALIASES.get(str(k), str(k)): v for k, v in record.items()}))
    records, power_rejects, folded = merge_power_rows(located, name)
    return (
        records,
        rejects + power_rejects,
        f"{len(payload)} index-keyed rows" + (f"; {folded} identical repeated rows folded" if folded else ""),
    )


def recognise(file: MlperfFile) -> str | None:
    """A checker table: JSON records with checker columns (a list, or an object keyed by index), or a CSV
    whose header names them. cm4mlperf's lists of checker rows are recognised by cm.py before this."""
    if not file.is_json:
        return CHECKER_CSV if looks_like_checker_csv(file.data) else None
    payload = file.json
    records = (
        payload[:SAMPLE]
        if isinstance(payload, list)
        else list(payload.values())[:SAMPLE]
        if isinstance(payload, dict)
        else []
    )
    return CHECKER_JSON_INDEX if any(is_checker_record(r) for r in records) else None


def parse(file: MlperfFile, kind: str) -> MlperfParsed:
    if kind == CHECKER_CSV:
        records, rejects, note = parse_csv(file.data, file.name)
        return MlperfParsed(records, rejects, note, require_nodes="11 columns" not in note)  # v0.7: no system columns
    payload = file.json
    indexed = payload if isinstance(payload, dict) else {str(i): r for i, r in enumerate(payload)}
    records, rejects, note = parse_index_json(indexed, file.name)
    return MlperfParsed(records, rejects, note)
