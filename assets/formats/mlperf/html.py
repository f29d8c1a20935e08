"""Per-system result pages (`results/<system>/summary.html`, v5.x onward), a cross-check source.

The page names the round in its title, the suite, availability, submitter and division in
`details-cell` spans, the system in an `<h2>` ("Submitter - system name"), the platform in the
"Result Logs" link, and the system description in two-column `<table class="table">` blocks.
`<table class="table results-table">` has a two-row header (`Model` and `Accuracy Target` with
rowspan 2, one colspan-2 group per scenario over `Metric` / `Performance`) and body rows that
are never closed with `</tr>`, so rows are read as each `<tr>`'s own cells. Performance is
printed with two decimals; the accuracy column holds the target, not the achieved accuracy.
The pages carry no node count and no precision, so their rows only cross-check other sources.
"""

from __future__ import annotations

import re
from typing import Any

from bs4 import BeautifulSoup, Tag

from assets.core import mlperf_names
from assets.core.errors import IngestError
from assets.core.records import Reject
from assets.formats.mlperf.exchange import MlperfFile, MlperfParsed
from assets.formats.mlperf.rows import text
from assets.inputs.textinput import decode_text

SUMMARY_HTML = "summary_html"
FORMATS = (SUMMARY_HTML,)
SKIPPED: dict[str, str] = {}  # read, but only to cross-check the other sources (mlperf_rounds/merge.py)
_ROUND = re.compile(r"MLPerf Inference\s+v?(\d+\.\d+)")
_DETAIL_LABELS = {
    "mlperf inference category:": "Suite",
    "availability:": "Availability",
    "submitted by:": "Submitter",
    "mlperf inference division:": "Category",
}


def looks_like_summary_html(data: bytes) -> bool:
    head = data[:200000]
    return b"results-table" in head and b"MLPerf Inference" in head and b"<table" in head


def _cells(row: Tag) -> list[Tag]:
    return row.find_all(["td", "th"], recursive=False)


def _span(cell: Tag) -> int:
    try:
        return max(1, int(str(cell.get("colspan") or 1)))
    except ValueError:
        return 1


def parse_page(data: bytes, name: str) -> tuple[list[tuple[str, dict[str, Any]]], list[Reject], str]:
    """Final-report-form records (one per model x scenario cell pair), rejects and a note."""
    soup = BeautifulSoup(decode_text(data, name), "html.parser")
    base = _system_record(soup, name)
    results = soup.find("table", class_="results-table")
    if results is None:
        raise IngestError(f'{name}: no <table class="results-table">')
    rows = results.find_all("tr")
    if len(rows) < 2:
        return [], [], "results table without rows"
    records, rejects = _result_records(rows, base, name)
    if not records and not rejects and len(rows) > 2:
        rejects.append(
            Reject(
                name,
                "results table",
                f"the results table has {len(rows) - 2} body rows but none "
                "could be read (expected a `model` cell, then metric/performance cell pairs per "
                "scenario): has the page layout changed?",
            )
        )
    return records, rejects, f"{len(records)} results on the page"


def _system_record(soup: BeautifulSoup, name: str) -> dict[str, Any]:
    """What every result of the page shares: the round (from the title), suite, submitter, division and
    availability (`details-cell` spans), the system (its `<h2>` and description tables), the platform (the
    "Result Logs" link, else the page's folder)."""
    title = soup.title.get_text(strip=True) if soup.title else ""
    round_match = _ROUND.search(title) or _ROUND.search(soup.get_text(" ", strip=True)[:2000])
    if not round_match:
        raise IngestError(f"{name}: no 'MLPerf Inference vX.Y' title naming the round")
    details: dict[str, Any] = {}
    for group in soup.find_all(class_="details-group"):
        spans = group.find_all("span")
        if len(spans) >= 2:
            field = _DETAIL_LABELS.get(spans[0].get_text(" ", strip=True).lower())
            if field:
                details[field] = spans[1].get_text(strip=True)
    system: dict[str, str] = {}
    for table in soup.find_all("table"):
        if "results-table" in (table.get("class") or []):
            continue
        for row in table.find_all("tr"):
            pair = row.find_all("td", recursive=False)
            if len(pair) == 2:
                system.setdefault(pair[0].get_text(strip=True), pair[1].get_text(strip=True))
    platform = None
    for link in soup.find_all("a"):
        if link.get_text(strip=True) == "Result Logs" and link.get("href"):
            platform = str(link["href"]).rstrip("/").split("/")[-1]
    if platform is None:
        parts = name.replace("\\", "/").split("/")
        platform = parts[-2] if len(parts) >= 2 else None
    heading = soup.find("h2")
    system_name = heading.get_text(strip=True) if heading else None
    if system_name and details.get("Submitter") and system_name.startswith(details["Submitter"] + " - "):
        system_name = system_name[len(details["Submitter"]) + 3 :]
    missing = [f for f in ("Suite", "Submitter", "Category") if f not in details]
    if missing or not platform:
        raise IngestError(f"{name}: result page lacks {missing or ['the Result Logs link (platform)']}")
    return {
        "version": round_match.group(1),
        "Submitter": details["Submitter"],
        "Category": details["Category"],
        "Suite": details["Suite"],
        "Availability": details.get("Availability"),
        "System": system_name,
        "Platform": platform,
        "Accelerator": text(system.get("accelerator_model_name")),
        "a#": system.get("accelerators_per_node"),
        "Nodes": system.get("number_of_nodes"),
        "Processor": text(system.get("host_processor_model_name")),
        "Software": text(system.get("framework")),
        "operating_system": text(system.get("operating_system")),
    }


def _result_records(
    rows: list[Tag], base: dict[str, Any], name: str
) -> tuple[list[tuple[str, dict[str, Any]]], list[Reject]]:
    """One record per model x scenario of the results table: a two-row header (scenarios over metric and
    performance columns), then a `model` cell and metric/performance cell pairs per scenario (`na` or a
    two-column cell where a scenario has no result)."""
    scenarios = [cell.get_text(strip=True) for cell in _cells(rows[0]) if not cell.get("rowspan")]
    records: list[tuple[str, dict[str, Any]]] = []
    rejects: list[Reject] = []
    for number, row in enumerate(rows[2:], start=3):
        cells = _cells(row)
        if len(cells) < 2 or "model" not in (cells[0].get("class") or []):
            continue
        model = cells[0].get_text(strip=True)
        position, scenario_index = 2, 0
        while position < len(cells) and scenario_index < len(scenarios):
            cell = cells[position]
            scenario = scenarios[scenario_index]
            if "na" in (cell.get("class") or []) or _span(cell) == 2:
                position += 1
            else:
                if position + 1 >= len(cells):
                    rejects.append(
                        Reject(name, f"results row {number}", f"{model} {scenario}: metric without a performance cell")
                    )
                    break
                unit, perf = cell.get_text(strip=True), cells[position + 1].get_text(strip=True)
                record = dict(
                    base,
                    UsedModel=model,
                    Model=mlperf_names.mlperf_benchmark(model),
                    Scenario=scenario,
                    Performance_Result=perf,
                    Performance_Units=unit,
                )
                records.append((f"results row {number} {scenario}", record))
                position += 2
            scenario_index += 1
    return records, rejects


def recognise(file: MlperfFile) -> str | None:
    return SUMMARY_HTML if not file.is_json and looks_like_summary_html(file.data) else None


def parse(file: MlperfFile, kind: str) -> MlperfParsed:
    records, rejects, note = parse_page(file.data, file.name)
    return MlperfParsed(records, rejects, note, require_nodes=False)  # the pages carry no node count
