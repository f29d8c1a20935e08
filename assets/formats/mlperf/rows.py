"""One canonical `benchmark.mlperf_results` row per MLPerf Inference result, whatever the source.

Every format parser (`mlperf_checker`, `mlperf_xlsx`, `mlperf_cm`, `mlperf_tree`, `mlperf_html`) turns
its records into the final-report record form (the keys of `summary_results.json`: Submitter,
Category, Suite, Platform, UsedModel, Model, Scenario, Performance_Result, ...) and hands them to
`record_to_row`, the one place that normalises scenario, unit, precision, accuracy, accelerator and
model. This module also reads the final-report JSON list itself."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from assets.core import canonical, mlperf_names, precisions
from assets.core.records import Reject
from assets.formats.mlperf import plausibility
from assets.inputs.files import Fetched

_REQUIRED = ("Submitter", "Category", "Suite", "Platform", "Model", "Scenario", "Performance_Result")
MAX_SYSTEM_COUNT = 10_000_000  # nodes or accelerators of one system; more is a broken value, not a system
POWER_UNITS = {"watts": "W", "millijoules": "mJ", "joules": "J", "joules/stream": "J"}
# The suites in the order their set is spelled: "edge,datacenter" and "Datacenter, Edge" are "datacenter,edge".
SUITE_ORDER = ("datacenter", "edge")
# Accelerator names that mean "no accelerator" (compared lower-cased): CPU-only when a# is 0 or blank.
CPU_ONLY_ACCELERATOR_NAMES = frozenset({"", "none", "n/a", "na", "-", "nan", "null", "no accelerator"})


class RowProblem(ValueError):
    """A record that cannot become a canonical row; the message is the quarantine reason."""


@dataclass(frozen=True)
class Origin:
    """Where records come from: the file or URL, its checksum and commit, and its format."""

    source: str
    sha256: str
    commit: str | None
    source_format: str

    @classmethod
    def of(cls, fetched: Fetched, source_format: str) -> Origin:
        return cls(fetched.name, fetched.sha256, fetched.commit, source_format)


# --- value coercion -----------------------------------------------------------------------


def blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and value.strip() in {"", "N/A", "NA", "-", "n/a"})


def positive_number(value: Any, field: str) -> float:
    if isinstance(value, bool) or blank(value):
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
    if blank(value):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise RowProblem(f"{field} is not a count (got {value!r})") from None
    if math.isnan(number) or number < 0 or number != int(number):
        raise RowProblem(f"{field} is not a whole non-negative count (got {value!r})")
    if number > MAX_SYSTEM_COUNT:
        raise RowProblem(
            f"{field} {value!r} is absurdly large for a count of nodes or accelerators (more than {MAX_SYSTEM_COUNT:,})"
        )
    return int(number)


def loose_bool(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in {"1", "true", "yes"}
    if isinstance(value, float) and math.isnan(value):
        return False
    return bool(value)


def text(value: Any) -> str | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True)
    out = str(value).strip()
    return out or None


def parse_accuracy(raw: Any) -> dict[str, float | str] | None:
    """Accuracy as key/value pairs: `ROUGE1: 44.45  ROUGE2: 22.04` (checker string; the HTML
    pages separate with commas), an already parsed dict, or a bare number (older checker CSVs
    and cm4mlperf rows give only the primary metric, kept under the key `value`)."""
    if isinstance(raw, dict):
        return {str(k): _number_or_text(v) for k, v in raw.items()} or None
    if blank(raw):
        return None
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        return {"value": float(raw)}
    as_text = str(raw).strip()
    try:
        return {"value": float(as_text)}
    except ValueError:
        pass
    pairs = re.findall(r"([A-Za-z_][\w\-]*)\s*:\s*([^\s,]+)", as_text)
    return {key: _number_or_text(value) for key, value in pairs} or None


def _number_or_text(value: Any) -> float | str:
    try:
        return float(value)
    except (TypeError, ValueError):
        return str(value)


def accuracy_text(values: dict[str, float | str]) -> str:
    """The checker's flat form of an accuracy map: `KEY: value  KEY: value`."""
    return "  ".join(f"{k}: {v:g}" if isinstance(v, float) else f"{k}: {v}" for k, v in values.items())


def _required_text(record: dict[str, Any], key: str) -> str:
    value = text(record.get(key))
    if value is None or blank(value):
        raise RowProblem(f"{key} is empty (got {record.get(key)!r}); every result names it")
    return value


def result_key(
    round_name: str, division: str, suite: str, submitter: str, platform: str, model: str, scenario: str
) -> str:
    """The identity of a result across sources. `model` is the official benchmark in the closed
    and network divisions (folder names such as `resnet50` vary) and the used model in open."""
    return "/".join([round_name, division, suite, submitter, platform, model, scenario])


def normalise_suite(raw: str) -> str:
    """The suite set in one spelling: `edge,datacenter`, `Datacenter` -> `datacenter,edge`, `datacenter`."""
    parts = {part.lower() for part in re.split(r"[\s,;/+&]+", raw) if part}
    unknown = sorted(parts - set(SUITE_ORDER))
    if unknown or not parts:
        raise RowProblem(f"Suite {raw!r} is not a set of {list(SUITE_ORDER)} (unknown: {unknown or 'empty'})")
    return ",".join(suite for suite in SUITE_ORDER if suite in parts)


def round_of(record: dict[str, Any]) -> str:
    """The round a record belongs to, from `version` or `ID`; RowProblem when neither tells."""
    field = record.get("version") or record.get("ID")
    try:
        return mlperf_names.normalise_round(field)
    except ValueError:
        raise RowProblem(
            f"cannot tell the round from version/ID {field!r} (expected like 'v5.1' or "
            "'5.1-0001', or a folder named like inference_results_v5.1 above the file)"
        ) from None


# --- the canonical row --------------------------------------------------------------------


def _unit(
    record: dict[str, Any], mlperf_model: str, scenario: str, round_name: str
) -> tuple[str, str | None, bool, str | None]:
    """(unit, the unit as labelled, whether the label was corrected, the rule's note) of a result."""
    try:
        rule = mlperf_names.mlperf_rule(mlperf_model, scenario, round_name)
    except ValueError as exc:
        raise RowProblem(str(exc)) from None
    raw = text(record.get("Performance_Units"))
    if raw is None:
        return rule.unit, None, False, rule.note or None
    labelled = mlperf_names.raw_unit(raw)
    if labelled is None:
        raise RowProblem(
            f"Performance_Units {raw!r} is not a unit label this version knows "
            f"(expected Tokens/s, Samples/s, Queries/s, Tasks/s, Streams, Latency (ms) or Latency (s))"
        )
    if mlperf_names.unit_kind(labelled) != mlperf_names.unit_kind(rule.unit):
        raise RowProblem(
            f"Performance_Units {raw!r} contradicts the unit rule ({rule.unit}) "
            f"for {mlperf_model} {scenario} {round_name}"
        )
    # A model-specific rule corrects known mislabels; a default rule never overrules the label.
    unit = rule.unit if rule.model_specific else labelled
    return unit, raw, labelled != unit, (rule.note or None) if rule.model_specific else None


def record_to_row(
    record: Any, *, origin: Origin, index: int, location: str | None = None, require_nodes: bool = True
) -> dict[str, Any]:
    """One final-report-form record as a canonical row; RowProblem says why it cannot be one (the first
    problem found, in the order: identity, value, unit, system, submitter, power).

    Optional keys beyond the report's: `Total Accelerators` (v6.0), `log_field` (the LoadGen key
    a tree's value came from), `Accuracy` as a dict or a bare number. Sources that never state
    the node count (v0.7 checker rows, result pages) pass `require_nodes=False`.
    """
    identity = _identity(record)
    value = positive_number(record["Performance_Result"], "Performance_Result")
    unit, raw_unit, unit_corrected, rule_note = _unit(
        record, identity["mlperf_model"], identity["scenario"], identity["round"]
    )
    system = _system(record, require_nodes)
    metric_kind = mlperf_names.unit_kind(unit)
    total = system["accelerator_count"]
    per_accel = value / total if metric_kind == "throughput" and total else None
    submitter, suite_raw, platform = (_required_text(record, k) for k in ("Submitter", "Suite", "Platform"))
    suite = normalise_suite(suite_raw)
    key_model = identity["used_model"] if identity["division"] == "open" else identity["mlperf_model"]
    row = {
        "result_key": result_key(
            identity["round"], identity["division"], suite, submitter, platform, key_model, identity["scenario"]
        ),
        **identity,
        "mlperf_id": text(record.get("ID")),
        "suite": suite,
        "submitter": submitter,
        "availability": text(record.get("Availability")),
        "platform": platform,
        "system_name": text(record.get("System")),
        "result_value": value,
        "result_unit": unit,
        "result_unit_raw": raw_unit,
        "unit_corrected": unit_corrected,
        "unit_rule": rule_note,
        "result_field": text(record.get("log_field")),
        "metric_kind": metric_kind,
        "result_per_accelerator": per_accel,
        "tokens_per_s": value if unit == "tokens/s" else None,
        "tokens_per_s_per_accel": per_accel if unit == "tokens/s" else None,
        **system,
        **_software(record),
        **_power(record),
        **_provenance(origin, index, location),
    }
    return row | plausibility.row_flags(row)


def _identity(record: Any) -> dict[str, Any]:
    """Which result a record is: round, division, benchmark (with its canonical model, dataset and accuracy
    target) and scenario."""
    if not isinstance(record, dict):
        raise RowProblem(f"record is a {type(record).__name__}, expected an object")
    missing = [k for k in _REQUIRED if k not in record]
    if missing:
        raise RowProblem(f"record lacks keys {missing}")
    round_name = round_of(record)
    scenario = mlperf_names.normalise_scenario(record["Scenario"])
    if scenario is None:
        raise RowProblem(
            f"unknown scenario {record['Scenario']!r} (expected Offline, Server, Interactive, "
            "SingleStream or MultiStream in any spelling)"
        )
    division = _required_text(record, "Category").lower()
    if division not in ("closed", "open", "network"):
        raise RowProblem(f"unknown division (Category) {record['Category']!r}")
    mlperf_model = text(record["Model"])
    if not mlperf_model:
        raise RowProblem("Model is empty")
    base_model, target = mlperf_names.split_accuracy_target(mlperf_model)
    model = canonical.model_id(base_model)
    return {
        "round": round_name,
        "round_order": mlperf_names.round_sort_key(round_name),
        "division": division,
        "used_model": text(record.get("UsedModel")) or mlperf_model,
        "mlperf_model": mlperf_model,
        "model_id": model,
        "model_known": model is not None,
        "accuracy_target": target,
        "dataset": mlperf_names.mlperf_dataset(mlperf_model),
        "scenario": scenario,
    }


def _system(record: dict[str, Any], require_nodes: bool) -> dict[str, Any]:
    """The system's accelerators: raw name and canonical id, per node, nodes and in all (0 for CPU-only)."""
    accelerator_raw = text(record.get("Accelerator"))
    per_node = loose_int(record.get("a#"), "a#")
    nodes = loose_int(record.get("Nodes"), "Nodes")
    if (nodes is None and require_nodes) or (nodes is not None and nodes < 1):
        raise RowProblem(f"Nodes must be a count of at least 1 (got {record.get('Nodes')!r})")
    # CPU-only only when the source describes accelerators at all (v0.7 checker rows do not).
    describes_accelerators = "Accelerator" in record or "a#" in record
    names_none = accelerator_raw is None or accelerator_raw.lower() in CPU_ONLY_ACCELERATOR_NAMES
    is_cpu_only = describes_accelerators and names_none and not per_node
    stated_total = loose_int(record.get("Total Accelerators"), "Total Accelerators")
    total: int | None
    if is_cpu_only:
        total = 0
    elif per_node is not None and nodes is not None:
        total = nodes * per_node
        if stated_total is not None and stated_total != total:
            raise RowProblem(f"Total Accelerators {stated_total} != Nodes {nodes} x a# {per_node}")
    else:
        total = stated_total
    match = None if is_cpu_only else canonical.match_accelerator(accelerator_raw)
    return {
        "accelerator_raw": accelerator_raw,
        "accelerator_id": match.accelerator_id if match else None,
        "accelerator_known": match is not None,
        "is_cpu_only": is_cpu_only,
        "accelerators_per_node": per_node,
        "nodes": nodes,
        "accelerator_count": total,
        "processor": text(record.get("Processor")),
    }


def _software(record: dict[str, Any]) -> dict[str, Any]:
    """The software stack, the weight precision and the accuracy the result reached."""
    precision_raw = text(record.get("weight_data_types"))
    try:
        precision = precisions.normalise_precision(precision_raw)
    except precisions.PrecisionError:
        precision = None
    software = text(record.get("Software"))
    runtime, runtime_version = mlperf_names.split_runtime(software)
    accuracy = parse_accuracy(record.get("Accuracy"))
    accuracy_raw = record.get("Accuracy")
    if isinstance(accuracy_raw, dict):
        accuracy_raw = accuracy_text(accuracy) if accuracy else None
    return {
        "software": software,
        "runtime": runtime,
        "runtime_version": runtime_version,
        "operating_system": text(record.get("operating_system")),
        "precision_raw": precision_raw,
        "precision": precision,
        "accuracy_raw": text(accuracy_raw),
        "accuracy_json": json.dumps(accuracy, sort_keys=True) if accuracy else None,
        "inferred": loose_bool(record.get("inferred", 0)),
    }


def _power(record: dict[str, Any]) -> dict[str, Any]:
    """The power result, when the result has one."""
    power = record.get("Power_Result")
    power_unit = text(record.get("Power_Units"))
    if power_unit is not None and power_unit.lower() not in POWER_UNITS:
        raise RowProblem(
            f"Power_Units {power_unit!r} is not a power unit this version knows (expected Watts, millijoules or Joules)"
        )
    return {
        "has_power": loose_bool(record.get("has_power", False)) or not blank(power),
        "power_value": None if blank(power) else positive_number(power, "Power_Result"),
        "power_unit": power_unit,
        "details_url": text(record.get("Details")),
    }


def _provenance(origin: Origin, index: int, location: str | None) -> dict[str, Any]:
    return {
        "source_format": origin.source_format,
        "source": origin.source,
        "source_sha256": origin.sha256,
        "source_commit": origin.commit,
        "source_row": index,
        "source_location": location or f"record {index}",
        "evidence": "benchmark",
    }


def records_to_rows(
    records: list[tuple[str, Any]], origin: Origin, *, require_nodes: bool = True
) -> tuple[list[dict[str, Any]], list[Reject]]:
    """Canonical rows and rejects for (location, record) pairs of one source."""
    rows, rejects = [], []
    for index, (location, record) in enumerate(records):
        try:
            rows.append(
                record_to_row(record, origin=origin, index=index, location=location, require_nodes=require_nodes)
            )
        except RowProblem as problem:
            rejects.append(
                Reject(
                    source=origin.source,
                    location=location,
                    reason=str(problem),
                    row=record if isinstance(record, dict) else {"value": record},
                )
            )
    return rows, rejects
