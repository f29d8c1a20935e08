"""The final-report JSON (`summary_results.json`, v4.1-v6.0): a list of records whose keys are the final
report's columns (Submitter, Category, Suite, Platform, UsedModel, Model, Scenario, Performance_Result, ...),
the form every other reader converts its records to; an object of such records, keyed by index, reads the
same way."""

from __future__ import annotations

from typing import Any

from assets.formats.mlperf.checker import is_checker_record
from assets.formats.mlperf.exchange import MlperfFile, MlperfParsed

SUMMARY_RESULTS_JSON = "summary_results_json"
FORMATS = (SUMMARY_RESULTS_JSON,)
SKIPPED: dict[str, str] = {}
SAMPLE = 50  # records looked at to recognise a table: a damaged first record must not hide the rest's format


def is_report_record(record: Any) -> bool:
    return isinstance(record, dict) and "Performance_Result" in record and "Submitter" in record


def recognise(file: MlperfFile) -> str | None:
    payload = file.json
    if isinstance(payload, list):
        return SUMMARY_RESULTS_JSON if any(is_report_record(r) for r in payload[:SAMPLE]) else None
    if isinstance(payload, dict):
        values = list(payload.values())[:SAMPLE]
        if any(is_checker_record(v) for v in values):  # an index-keyed checker table (checker.py)
            return None
        return SUMMARY_RESULTS_JSON if any(is_report_record(v) for v in values) else None
    return None


def parse(file: MlperfFile, kind: str) -> MlperfParsed:
    payload = file.json
    records = payload if isinstance(payload, list) else list(payload.values())
    return MlperfParsed(records=[(f"record {i}", r) for i, r in enumerate(records)])
