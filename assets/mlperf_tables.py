"""Parsing published MLPerf Inference round tables into canonical `benchmark.mlperf_results` rows.

Formats are recognised by content, never by file name. This module knows the final-report
`summary_results.json` form (a JSON list of records, v4.1, v5.1 and v6.0); anything else is
reported as unrecognised rather than guessed at.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from assets import canonical
from assets.fetch import Fetched
from assets.warehouse import IngestError, Reject

SUMMARY_RESULTS_JSON = "summary_results_json"

_SUMMARY_REQUIRED = ("Submitter", "Category", "Suite", "Platform", "Model", "Scenario",
                     "Performance_Result", "Performance_Units")

_RAW_UNITS = {
    "tokens/s": "tokens/s",
    "samples/s": "samples/s",
    "queries/s": "queries/s",
    "streams": "streams",
    "latency (ms)": "ms",
    "latency (s)": "s",
}


class RowProblem(ValueError):
    """A record that cannot become a canonical row; the message is the quarantine reason."""


@dataclass(frozen=True)
class Detected:
    format: str | None
    payload: Any
    note: str = ""


def decode_json(data: bytes, name: str) -> Any:
    """JSON from bytes (UTF-8, with or without BOM); IngestError naming the file otherwise."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise IngestError(f"{name}: not UTF-8 text ({exc})") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise IngestError(f"{name}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from exc


def looks_like_json(data: bytes) -> bool:
    head = data[:64].lstrip(b"\xef\xbb\xbf \t\r\n")
    return head[:1] in (b"[", b"{")


def detect(fetched: Fetched) -> Detected:
    """Which round-table format `fetched` holds, by content."""
    if not looks_like_json(fetched.data):
        return Detected(None, None, "not JSON")
    payload = decode_json(fetched.data, fetched.name)
    if isinstance(payload, list):
        if not payload:
            return Detected(None, None, "empty JSON list")
        first = payload[0]
        if isinstance(first, dict) and "Performance_Result" in first and "Submitter" in first:
            return Detected(SUMMARY_RESULTS_JSON, payload)
        return Detected(None, None, "JSON list whose records are not final-report rows")
    if isinstance(payload, dict):
        values = list(payload.values())
        if values and isinstance(values[0], dict) and "Organization" in values[0]:
            return Detected(None, None, "index-keyed checker JSON (summary.json) is not read yet")
        return Detected(None, None, "JSON object that is not a round table")
    return Detected(None, None, "JSON that is not a round table")


# --- value coercion -----------------------------------------------------------------------


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and value.strip() in {"", "N/A", "NA", "-", "n/a"})


def positive_number(value: Any, field: str) -> float:
    if isinstance(value, bool) or _blank(value):
        raise RowProblem(f"{field} is missing (got {value!r}; expected a positive number)")
    try:
        number = float(str(value).replace(",", "")) if isinstance(value, str) else float(value)
    except (TypeError, ValueError):
        raise RowProblem(f"{field} is not a number (got {value!r})") from None
    if math.isnan(number) or math.isinf(number) or number <= 0:
        raise RowProblem(f"{field} must be a finite positive number (got {value!r})")
    return number


def loose_int(value: Any, field: str) -> int | None:
    """MLCommons counts come as 8, 8.0, "8", "" or "N/A"; None for blank."""
    if _blank(value):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise RowProblem(f"{field} is not a count (got {value!r})") from None
    if math.isnan(number) or number < 0 or number != int(number):
        raise RowProblem(f"{field} is not a whole non-negative count (got {value!r})")
    return int(number)


def loose_bool(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in {"1", "true", "yes"}
    return bool(value)


def text(value: Any) -> str | None:
    if value is None:
        return None
    out = str(value).strip()
    return out or None


def parse_accuracy(raw: Any) -> dict[str, float | str] | None:
    """`ROUGE1: 44.45  ROUGE2: 22.04` -> {"ROUGE1": 44.45, "ROUGE2": 22.04}."""
    if _blank(raw):
        return None
    pairs = re.findall(r"([A-Za-z_][\w\-]*)\s*:\s*([^\s]+)", str(raw))
    result: dict[str, float | str] = {}
    for key, value in pairs:
        try:
            result[key] = float(value)
        except ValueError:
            result[key] = value
    return result or None


def canonical_unit(raw_unit: Any) -> str | None:
    return _RAW_UNITS.get(str(raw_unit).strip().lower()) if raw_unit is not None else None


def result_key(round_name: str, division: str, suite: str, submitter: str, platform: str,
               used_model: str, scenario: str) -> str:
    return "/".join([round_name, division, suite, submitter, platform, used_model, scenario])


# --- summary_results.json -----------------------------------------------------------------


def summary_record_to_row(record: Any, *, source: str, sha256: str, commit: str | None,
                          index: int) -> dict[str, Any]:
    """One final-report record as a canonical row; RowProblem says why it cannot be one."""
    if not isinstance(record, dict):
        raise RowProblem(f"record is a {type(record).__name__}, expected an object")
    missing = [k for k in _SUMMARY_REQUIRED if k not in record]
    if missing:
        raise RowProblem(f"record lacks keys {missing}")
    round_field = record.get("version") or record.get("ID")
    try:
        round_name = canonical.normalise_round(round_field)
    except ValueError:
        raise RowProblem(f"cannot tell the round from version/ID {round_field!r}") from None
    scenario = canonical.normalise_scenario(record["Scenario"])
    if scenario is None:
        raise RowProblem(f"unknown scenario {record['Scenario']!r}")
    division = str(record["Category"]).strip().lower()
    if division not in ("closed", "open", "network"):
        raise RowProblem(f"unknown division (Category) {record['Category']!r}")
    mlperf_model = text(record["Model"])
    if not mlperf_model:
        raise RowProblem("Model is empty")
    used_model = text(record.get("UsedModel")) or mlperf_model
    value = positive_number(record["Performance_Result"], "Performance_Result")
    raw_unit = text(record["Performance_Units"])
    try:
        unit, rule_note = canonical.mlperf_unit(mlperf_model, scenario, round_name)
    except ValueError as exc:
        raise RowProblem(str(exc)) from None
    raw_kind = canonical.raw_unit_kind(raw_unit)
    if raw_kind is None:
        raise RowProblem(f"unknown Performance_Units {raw_unit!r}")
    if raw_kind != canonical.unit_kind(unit):
        raise RowProblem(f"Performance_Units {raw_unit!r} contradicts the unit rule ({unit}) "
                         f"for {mlperf_model} {scenario} {round_name}")
    unit_corrected = canonical_unit(raw_unit) != unit
    metric_kind = canonical.unit_kind(unit)

    accelerator_raw = text(record.get("Accelerator"))
    per_node = loose_int(record.get("a#"), "a#")
    nodes = loose_int(record.get("Nodes"), "Nodes")
    if nodes is None or nodes < 1:
        raise RowProblem(f"Nodes must be a count of at least 1 (got {record.get('Nodes')!r})")
    is_cpu_only = (accelerator_raw is None or accelerator_raw in {"N/A", "-"}) and not per_node
    stated_total = loose_int(record.get("Total Accelerators"), "Total Accelerators")
    if is_cpu_only:
        total = 0
    elif per_node is not None:
        total = nodes * per_node
        if stated_total is not None and stated_total != total:
            raise RowProblem(f"Total Accelerators {stated_total} != Nodes {nodes} x a# {per_node}")
    else:
        total = stated_total
    match = None if is_cpu_only else canonical.match_accelerator(accelerator_raw)
    per_accel = value / total if metric_kind == "throughput" and total else None

    precision_raw = text(record.get("weight_data_types"))
    try:
        precision = canonical.normalise_precision(precision_raw)
    except canonical.PrecisionError:
        precision = None
    software = text(record.get("Software"))
    runtime, runtime_version = canonical.split_runtime(software)
    accuracy = parse_accuracy(record.get("Accuracy"))
    base_model, target = canonical.split_accuracy_target(mlperf_model)
    model = canonical.model_id(base_model)
    submitter = str(record["Submitter"]).strip()
    suite = str(record["Suite"]).strip()
    platform = str(record["Platform"]).strip()
    power = record.get("Power_Result")
    return {
        "result_key": result_key(round_name, division, suite, submitter, platform, used_model, scenario),
        "round": round_name,
        "round_order": canonical.round_sort_key(round_name),
        "mlperf_id": text(record.get("ID")),
        "division": division,
        "suite": suite,
        "submitter": submitter,
        "availability": text(record.get("Availability")),
        "platform": platform,
        "system_name": text(record.get("System")),
        "used_model": used_model,
        "mlperf_model": mlperf_model,
        "model_id": model,
        "model_known": model is not None,
        "accuracy_target": target,
        "dataset": canonical.mlperf_dataset(mlperf_model),
        "scenario": scenario,
        "result_value": value,
        "result_unit": unit,
        "result_unit_raw": raw_unit,
        "unit_corrected": unit_corrected,
        "unit_rule": rule_note or None,
        "metric_kind": metric_kind,
        "result_per_accelerator": per_accel,
        "tokens_per_s": value if unit == "tokens/s" else None,
        "tokens_per_s_per_accel": per_accel if unit == "tokens/s" else None,
        "accelerator_raw": accelerator_raw,
        "accelerator_id": match.accelerator_id if match else None,
        "accelerator_known": match is not None,
        "is_cpu_only": is_cpu_only,
        "accelerators_per_node": per_node,
        "nodes": nodes,
        "total_accelerators": total,
        "processor": text(record.get("Processor")),
        "software": software,
        "runtime": runtime,
        "runtime_version": runtime_version,
        "operating_system": text(record.get("operating_system")),
        "precision_raw": precision_raw,
        "precision": precision,
        "accuracy_raw": text(record.get("Accuracy")),
        "accuracy_json": json.dumps(accuracy, sort_keys=True) if accuracy else None,
        "inferred": loose_bool(record.get("inferred", 0)),
        "has_power": loose_bool(record.get("has_power", False)),
        "power_value": None if _blank(power) else positive_number(power, "Power_Result"),
        "power_unit": text(record.get("Power_Units")),
        "details_url": text(record.get("Details")),
        "source_format": SUMMARY_RESULTS_JSON,
        "source": source,
        "source_sha256": sha256,
        "source_commit": commit,
        "source_row": index,
        "evidence": "benchmark",
    }


def parse_summary_results(records: list[Any], fetched: Fetched) -> tuple[list[dict[str, Any]], list[Reject]]:
    """Canonical rows and rejects for every record of a `summary_results.json` list."""
    rows, rejects = [], []
    for index, record in enumerate(records):
        try:
            rows.append(summary_record_to_row(record, source=fetched.name, sha256=fetched.sha256,
                                              commit=fetched.commit, index=index))
        except RowProblem as problem:
            rejects.append(Reject(source=fetched.name, location=f"record {index}", reason=str(problem),
                                  row=record if isinstance(record, dict) else {"value": record}))
    return rows, rejects


def drop_duplicates(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[Reject]]:
    """Keep the first row of each result; later copies are quarantined naming the first."""
    first: dict[str, dict[str, Any]] = {}
    kept, rejects = [], []
    for row in rows:
        seen = first.get(row["result_key"])
        if seen is None:
            first[row["result_key"]] = row
            kept.append(row)
        else:
            rejects.append(Reject(
                source=row["source"], location=f"record {row['source_row']}",
                reason=(f"duplicate result {row['result_key']}: already read from {seen['source']} "
                        f"record {seen['source_row']}"),
                row=row,
            ))
    return kept, rejects
