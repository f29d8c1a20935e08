"""cm4mlperf-results `cm-result.json`: the community re-export of checker rows for v2.0-v4.1.

A JSON list of checker rows (Organization ... Units, no weight_data_types) plus `Accuracy` as a
bare number, `Accuracy_div_100`, `Result_Units`, `Result_Power(_Units)` (v3.1 merges power into
the performance row), `Inference_per_Joule`, `git_url`, `url` and `uid`. From v4.0 the power
results are separate rows (Units Watts/millijoules), merged like the checker CSV's.
"""

from __future__ import annotations

from typing import Any

from assets.core.records import Reject
from assets.formats.mlperf.checker import is_checker_record, is_power_row, merge_power_rows
from assets.formats.mlperf.exchange import MlperfFile, MlperfParsed

CM_RESULT = "cm4mlperf_result"
FORMATS = (CM_RESULT,)
SKIPPED: dict[str, str] = {}
SAMPLE = 50  # records looked at to recognise a list
_CM_KEYS = ("uid", "Result_Units", "git_url", "Accuracy_div_100")


def is_cm_records(payload: Any) -> bool:
    return (
        isinstance(payload, list)
        and bool(payload)
        and is_checker_record(payload[0])
        and any(k in payload[0] for k in _CM_KEYS)
    )


def parse_records(payload: list[Any], name: str) -> tuple[list[tuple[str, dict[str, Any]]], list[Reject], str]:
    """Final-report records, rejects and a note for one cm-result.json."""
    located, rejects = [], []
    for index, record in enumerate(payload):
        location = f"record {index}"
        if not is_checker_record(record):
            rejects.append(
                Reject(
                    name,
                    location,
                    "record is not a checker row (needs Organization, MlperfModel, Result)",
                    record if isinstance(record, dict) else {"value": record},
                )
            )
            continue
        row = {k: v for k, v in record.items() if k not in ("Result_Power", "Result_Power_Units", "url")}
        row["Details"] = record.get("url")
        if is_power_row(record) and row.get("Result") is None:  # v4.x power rows carry it in Result_Power
            row["Result"] = record.get("Result_Power")
        located.append((location, row, record))
    records, power_rejects, folded = merge_power_rows([(loc, row) for loc, row, _raw in located], name)
    # v3.1 form: power merged into the performance row.
    by_location = {loc: raw for loc, _row, raw in located}
    for location, report in records:
        raw = by_location[location]
        if raw.get("Result_Power") not in (None, ""):
            report["Power_Result"] = raw["Result_Power"]
            # Units missing on some v3.1 rows: the checker's per-scenario power unit.
            latency_scenario = str(raw.get("Scenario", "")).lower() in ("singlestream", "multistream")
            report["Power_Units"] = raw.get("Result_Power_Units") or ("millijoules" if latency_scenario else "Watts")
            report["has_power"] = True
    note = f"{len(payload)} records" + (f"; {folded} identical repeated records folded" if folded else "")
    return records, rejects + power_rejects, note


def recognise(file: MlperfFile) -> str | None:
    """A JSON list of checker rows with cm4mlperf's own keys (the first checker row among the first records)."""
    payload = file.json
    if not isinstance(payload, list):
        return None
    checker = next((r for r in payload[:SAMPLE] if is_checker_record(r)), None)
    return CM_RESULT if checker is not None and is_cm_records([checker]) else None


def parse(file: MlperfFile, kind: str) -> MlperfParsed:
    records, rejects, note = parse_records(file.json, file.name)
    return MlperfParsed(records, rejects, note)
