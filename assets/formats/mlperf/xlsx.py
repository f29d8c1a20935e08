"""The MLPerf final-report workbook (`summary.xlsx`): one pivot sheet per suite x division.

Each sheet has four header rows above the systems: `Result` over the value columns, then the
Model, Scenario and Units rows (labels in the last index column), then the index header (ID,
Unique ID, ColorKey, Submitter, Availability, System, Nodes, Processor, p#, Accelerator, a#,
[Total Accelerators], Software, Notes, [UsedModel, Accuracy in open sheets], Details, Code).
Merged cells carry a value only in their first cell, so they are filled across the range (model
names over their scenarios; the index cells of one open-division system over its rows).
Details/Code are HYPERLINK formulas: the URL is taken from the formula, never its cached value.
Suite, division and platform come from the Unique ID (`suite/division/submitter/platform[/model]`);
a system of suite "datacenter,edge" is shown on both suites' sheets and read once.
"""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

from assets.core.errors import IngestError
from assets.core.records import Reject
from assets.formats.mlperf.exchange import MlperfFile, MlperfParsed
from assets.formats.mlperf.rows import POWER_UNITS, blank, text

FINAL_REPORT_XLSX = "final_report_xlsx"
FORMATS = (FINAL_REPORT_XLSX,)
SKIPPED: dict[str, str] = {}
_HYPERLINK = re.compile(r'^=?\s*HYPERLINK\(\s*"([^"]*)"', re.IGNORECASE)


def looks_like_xlsx(data: bytes) -> bool:
    if not data.startswith(b"PK\x03\x04"):
        return False
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return "xl/workbook.xml" in archive.namelist()
    except zipfile.BadZipFile:
        return False


def hyperlink_url(value: Any) -> str | None:
    """The URL of `=HYPERLINK("url","label")`, or the cell text when it is not a formula."""
    if value is None:
        return None
    match = _HYPERLINK.match(str(value))
    return match.group(1) if match else text(value)


def _grid(sheet) -> list[list[Any]]:
    """Cell values with merged ranges filled from their first cell."""
    grid = [list(row) for row in sheet.iter_rows(values_only=True)]
    for merged in sheet.merged_cells.ranges:
        top = grid[merged.min_row - 1][merged.min_col - 1] if merged.min_row - 1 < len(grid) else None
        for r in range(merged.min_row - 1, min(merged.max_row, len(grid))):
            for c in range(merged.min_col - 1, merged.max_col):
                if c < len(grid[r]):
                    grid[r][c] = top
    return grid


def _find_label_rows(grid: list[list[Any]], sheet_name: str, name: str) -> tuple[int, int]:
    """(row of the `Model` label, its column); the Scenario and Units rows follow it."""
    for r, row in enumerate(grid[:10]):
        for c, value in enumerate(row):
            if value == "Model" and r + 3 < len(grid) and grid[r + 1][c] == "Scenario" and grid[r + 2][c] == "Units":
                return r, c
    raise IngestError(
        f"{name}: sheet {sheet_name!r}: no Model / Scenario / Units header rows (expected the "
        "final-report layout: four header rows above one row per system)"
    )


def parse_sheet(sheet, name: str) -> tuple[list[tuple[str, dict[str, Any]]], list[Reject]]:
    """(location, partial record) per value cell of one sheet, with its Units as Performance_Units
    or, on power sheets, Power_Units."""
    grid = _grid(sheet)
    if not grid:
        return [], []
    model_row, label_col = _find_label_rows(grid, sheet.title, name)
    header_row = model_row + 3
    header = [text(v) for v in grid[header_row]]
    if "Unique ID (e.g. for Audit)" not in header or "ID" not in header:
        raise IngestError(
            f"{name}: sheet {sheet.title!r} row {header_row + 1}: index header lacks "
            "'ID' / 'Unique ID (e.g. for Audit)'"
        )
    columns = [
        c
        for c in range(label_col + 1, len(grid[model_row]))
        if not blank(grid[model_row + 1][c]) and not blank(grid[model_row][c])
    ]
    out, rejects = [], []
    for r in range(header_row + 1, len(grid)):
        row = grid[r]
        index = {header[c]: row[c] for c in range(min(len(header), len(row))) if header[c]}
        if all(blank(v) for v in index.values()):
            continue
        unique = text(index.get("Unique ID (e.g. for Audit)")) or ""
        parts = unique.split("/")
        if len(parts) < 4:
            rejects.append(
                Reject(
                    name,
                    f"sheet {sheet.title!r} row {r + 1}",
                    f"Unique ID {unique!r} is not suite/division/submitter/platform",
                    index,
                )
            )
            continue
        base = {
            "ID": text(index.get("ID")),
            "Submitter": text(index.get("Submitter")) or parts[2],
            "Availability": text(index.get("Availability")),
            "Category": parts[1],
            "Suite": parts[0],
            "System": text(index.get("System")),
            "Platform": parts[3],
            "Nodes": index.get("Nodes"),
            "Processor": text(index.get("Processor")),
            "p#": index.get("p#"),
            "Accelerator": text(index.get("Accelerator")),
            "a#": index.get("a#"),
            "Software": text(index.get("Software")),
            "Notes": text(index.get("Notes")),
            "Accuracy": index.get("Accuracy"),
            "Details": hyperlink_url(index.get("Details")),
            "Code": hyperlink_url(index.get("Code")),
        }
        if "Total Accelerators" in index:
            base["Total Accelerators"] = index.get("Total Accelerators")
        for c in columns:
            if c >= len(row) or blank(row[c]):
                continue
            model = text(grid[model_row][c])
            units = text(grid[model_row + 2][c])
            record = dict(
                base,
                Model=model,
                UsedModel=text(index.get("UsedModel")) or model,
                Scenario=text(grid[model_row + 1][c]),
            )
            if units and units.lower() in POWER_UNITS:
                record.update(Power_Result=row[c], Power_Units=units)
            else:
                record.update(Performance_Result=row[c], Performance_Units=units)
            out.append((f"sheet {sheet.title!r} row {r + 1} column {c + 1}", record))
    return out, rejects


def _identity(record: dict[str, Any]) -> tuple:
    return tuple(str(record.get(k)) for k in ("ID", "Category", "Suite", "Platform", "UsedModel", "Scenario"))


def parse_workbook(data: bytes, name: str) -> tuple[list[tuple[str, dict[str, Any]]], list[Reject], str]:
    """Final-report records, rejects and a note for one workbook."""
    import openpyxl  # imported here: only workbooks need it

    try:
        workbook = openpyxl.load_workbook(io.BytesIO(data), data_only=False)
    except Exception as exc:  # openpyxl raises many kinds for a damaged archive
        raise IngestError(f"{name}: not a readable XLSX workbook ({type(exc).__name__}: {exc})") from exc
    cells, rejects = [], []
    for sheet in workbook.worksheets:
        found, bad = parse_sheet(sheet, name)
        cells += found
        rejects += bad
    records: dict[tuple, tuple[str, dict[str, Any]]] = {}
    shown_twice = 0
    for location, record in cells:
        key = _identity(record)
        if key not in records:
            records[key] = (location, record)
            continue
        kept = records[key][1]
        for field in ("Performance_Result", "Performance_Units", "Power_Result", "Power_Units"):
            if field not in record:
                continue
            if field in kept and kept[field] != record[field]:
                rejects.append(
                    Reject(
                        name,
                        location,
                        f"{field} {record[field]!r} differs from {kept[field]!r} "
                        f"shown for the same result at {records[key][0]}",
                        record,
                    )
                )
                break
            if field not in kept:
                kept[field] = record[field]
        else:
            shown_twice += 1
    located = []
    for location, record in records.values():
        if "Performance_Result" not in record:
            rejects.append(
                Reject(name, location, "power value without a performance value for the same result", record)
            )
            continue
        located.append((location, record))
    note = f"{len(workbook.worksheets)} sheets, {len(cells)} value cells"
    if shown_twice:
        note += f"; {shown_twice} cells repeat a result shown on another sheet (datacenter,edge systems)"
    return located, rejects, note


def recognise(file: MlperfFile) -> str | None:
    return FINAL_REPORT_XLSX if looks_like_xlsx(file.data) else None


def parse(file: MlperfFile, kind: str) -> MlperfParsed:
    records, rejects, note = parse_workbook(file.data, file.name)
    return MlperfParsed(records, rejects, note)
