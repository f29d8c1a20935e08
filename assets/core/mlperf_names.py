"""MLPerf's names and rules: rounds, units, result rules, benchmarks, scenarios, accuracy targets, runtimes."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from assets.core.paths import REFERENCE_DIR
from assets.core.reference_tables import read_reference_csv


def split_accuracy_target(mlperf_model: str) -> tuple[str, str | None]:
    """`llama2-70b-99.9` -> (`llama2-70b`, `99.9`); names without a suffix have one target."""
    match = re.fullmatch(r"(.+?)-(99(?:\.9)?)", mlperf_model.strip())
    if match:
        return match.group(1), match.group(2)
    return mlperf_model.strip(), None


def round_sort_key(round_name: str) -> int:
    """`v5.1` -> 501, so rounds order numerically."""
    match = re.fullmatch(r"v?(\d+)\.(\d+)", round_name.strip())
    if not match:
        raise ValueError(f"not an MLPerf round name: {round_name!r} (expected like 'v5.1')")
    return int(match.group(1)) * 100 + int(match.group(2))


def normalise_round(value: object) -> str:
    """`5.1`, `v5.1`, `inference-v5.1` -> `v5.1`."""
    match = re.search(r"(\d+)\.(\d+)", str(value))
    if not match:
        raise ValueError(f"not an MLPerf round: {value!r}")
    return f"v{int(match.group(1))}.{int(match.group(2))}"


# --- units --------------------------------------------------------------------------------

THROUGHPUT_UNITS = {"tokens/s", "samples/s", "queries/s", "tasks/s", "streams"}
LATENCY_UNITS = {"ms", "s"}

# How MLCommons writes units (`Units`, `Performance_Units`, HTML `Metric`) -> our unit.
_RAW_UNITS = {
    "tokens/s": "tokens/s",
    "samples/s": "samples/s",
    "queries/s": "queries/s",
    "tasks/s": "tasks/s",
    "streams": "streams",
    "latency (ms)": "ms",
    "latency (s)": "s",
}


def raw_unit(raw: str | None) -> str | None:
    """Our unit for an MLCommons unit label (None when unknown or empty)."""
    if raw is None:
        return None
    return _RAW_UNITS.get(str(raw).strip().lower())


def unit_kind(unit: str) -> str:
    return "throughput" if unit in THROUGHPUT_UNITS else "latency"


@dataclass(frozen=True)
class ResultRule:
    """What a (round, model, scenario) result is: its unit, the LoadGen detail-log key the
    submission checker takes it from, and whether the rule is model-specific or a default."""

    unit: str
    log_field: str
    note: str
    model_specific: bool


@functools.cache
def _unit_rules() -> list[dict[str, str]]:
    return read_reference_csv("mlperf_units.csv")


def mlperf_rule(mlperf_model: str, scenario: str, round_name: str) -> ResultRule:
    """The rule for (round, model, scenario) from `mlperf_units.csv`: the first matching row,
    model-specific rows before the `*` defaults. The `Units` column of the tables is not trusted
    for the models the table names (some rounds label an LLM's tokens/s `Samples/s` or `Queries/s`)."""
    base, _target = split_accuracy_target(mlperf_model)
    order = round_sort_key(round_name)
    for rule in _unit_rules():
        if rule["mlperf_model"] not in ("*", base):
            continue
        if scenario not in rule["scenarios"].split("|"):
            continue
        if rule["first_round"] and order < round_sort_key(rule["first_round"]):
            continue
        if rule["last_round"] and order > round_sort_key(rule["last_round"]):
            continue
        return ResultRule(rule["unit"], rule["log_field"], rule["note"], rule["mlperf_model"] != "*")
    raise ValueError(f"no unit rule for model {mlperf_model!r}, scenario {scenario!r}, round {round_name}")


@functools.cache
def _model_folders() -> dict[str, str]:
    return {row["folder"]: row["mlperf_model"] for row in read_reference_csv("mlperf_model_folders.csv")}


def mlperf_benchmark(folder: str, extra: dict[str, str] | None = None) -> str:
    """The official benchmark name for a submission folder name (`resnet50` -> `resnet`), using a
    submitter's own `model_mapping.json` (open division) when given; unmapped names are kept."""
    name = folder.strip()
    if extra and name in extra:
        return str(extra[name])
    return _model_folders().get(name, name)


@functools.cache
def _workloads() -> dict[str, dict[str, str]]:
    return {row["mlperf_model"]: row for row in read_reference_csv("mlperf_workloads.csv")}


def mlperf_dataset(mlperf_model: str) -> str | None:
    base, _target = split_accuracy_target(mlperf_model)
    row = _workloads().get(base)
    return row["dataset"] if row else None


@dataclass(frozen=True)
class AccuracyTarget:
    """One bound MLPerf's checker sets on a benchmark's accuracy metric (mlperf_accuracy_targets.csv)."""

    benchmark: str
    metric: str
    reference_value: float
    target_fraction: float
    bound: str  # min | max
    first_round: str
    last_round: str
    note: str

    @property
    def target_value(self) -> float:
        return self.reference_value * self.target_fraction


@functools.cache
def mlperf_accuracy_targets() -> tuple[AccuracyTarget, ...]:
    """The accuracy bounds of MLPerf's submission checker per benchmark and metric (see the CSV's .md)."""
    where = REFERENCE_DIR / "mlperf_accuracy_targets.csv"
    targets = []
    for line, row in enumerate(read_reference_csv("mlperf_accuracy_targets.csv"), start=2):
        try:
            reference, fraction = float(row["reference_value"]), float(row["target_fraction"])
        except ValueError:
            raise ValueError(f"{where} line {line}: reference_value and target_fraction must be numbers") from None
        if row["bound"] not in ("min", "max"):
            raise ValueError(f"{where} line {line}: bound must be min or max (got {row['bound']!r})")
        targets.append(
            AccuracyTarget(
                row["benchmark"],
                row["metric"],
                reference,
                fraction,
                row["bound"],
                normalise_round(row["first_round"]),
                normalise_round(row["last_round"]),
                row["note"],
            )
        )
    return tuple(targets)


# --- scenarios ----------------------------------------------------------------------------

_SCENARIOS = {
    "offline": "Offline",
    "server": "Server",
    "interactive": "Interactive",
    "singlestream": "SingleStream",
    "multistream": "MultiStream",
}


def normalise_scenario(raw: str) -> str | None:
    """`Multi Stream`, `singlestream`, `Server` -> official spelling; None when unknown."""
    return _SCENARIOS.get(re.sub(r"[\s_\-]+", "", str(raw)).lower())


# --- runtimes -----------------------------------------------------------------------------


def split_runtime(software: str | None) -> tuple[str | None, str | None]:
    """The serving runtime and its version from an MLPerf `Software` string's first component:
    `vLLM 0.10.0, RHEL 9.6` -> (`vLLM`, `0.10.0`)."""
    if not software:
        return None, None
    first = str(software).split(",")[0].strip()
    match = re.match(r"^(.*?)\s+v?(\d+(?:\.\d+)*[\w.+\-]*)", first)
    if not match:
        return first or None, None
    return match.group(1).strip() or None, match.group(2)
