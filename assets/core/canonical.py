"""The one place that turns names as tools write them into canonical ids.

Aliases, units and workloads live in CSV files under `assets/reference/`; this module only reads
them. Unknown names are returned as `None` (kept raw and flagged by the caller), never guessed.
"""

from __future__ import annotations

import ast
import csv
import functools
import re
from dataclasses import dataclass

from assets.core.paths import REFERENCE_DIR


def _read_csv(name: str) -> list[dict[str, str]]:
    with open(REFERENCE_DIR / name, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def alias_key(name: str) -> str:
    """Matching key for a name: case, `(R)`/`(TM)` marks and separator runs do not matter."""
    text = re.sub(r"\((r|tm)\)", "", name.lower())
    return re.sub(r"[\s_\-]+", " ", text).strip()


@dataclass(frozen=True)
class AcceleratorMatch:
    accelerator_id: str
    accelerators_per_instance: int | None


@functools.cache
def _accelerator_aliases() -> dict[str, AcceleratorMatch]:
    known = {row["accelerator_id"] for row in _read_csv("accelerators.csv")}
    table: dict[str, AcceleratorMatch] = {}
    for row in _read_csv("accelerator_aliases.csv"):
        if row["accelerator_id"] not in known:
            raise ValueError(
                f"{REFERENCE_DIR / 'accelerator_aliases.csv'}: alias {row['alias']!r} points at "
                f"unknown accelerator_id {row['accelerator_id']!r} (not in accelerators.csv)"
            )
        per_instance = int(row["accelerators_per_instance"]) if row["accelerators_per_instance"] else None
        key = alias_key(row["alias"])
        previous = table.get(key)
        if previous is not None and previous.accelerator_id != row["accelerator_id"]:
            raise ValueError(f"accelerator alias {row['alias']!r} maps to two accelerators")
        table[key] = AcceleratorMatch(row["accelerator_id"], per_instance)
    return table


# Words around a chip's name that do not change the chip, removed when the name as written is not in
# the alias table: a VM's passthrough GPU ("Virtualized NVIDIA H100-SXM-80GB"), a parenthetical
# architecture or count ("NVIDIA GeForce RTX 4090 (Ada Lovelace)", "... (x8)"), MLPerf's trailing
# "CTS" ("NVIDIA A100-SXM-80GB CTS", "NVIDIA H200-SXM-141GB-CTS").
_ACCELERATOR_NOISE = (r"\([^)]*\)", r"^virtuali[sz]ed ", r" cts$")
_VENDOR_WORDS = r"^(nvidia|amd|intel|google) "


def _accelerator_reduced_key(name: str) -> str:
    """The alias key without the words of _ACCELERATOR_NOISE."""
    text = alias_key(name)
    for pattern in _ACCELERATOR_NOISE:
        text = re.sub(r"\s+", " ", re.sub(pattern, " ", text)).strip()
    return text


@functools.cache
def _accelerator_aliases_without_vendor() -> dict[str, AcceleratorMatch | None]:
    """The alias table keyed without a leading vendor word ("H100-SXM-80GB" as MLPerf writes it without
    "NVIDIA"), for names that still state the memory (a bare "H200" may be SXM or NVL); None for a key
    two accelerators share (never guessed)."""
    table: dict[str, AcceleratorMatch | None] = {}
    for key, match in _accelerator_aliases().items():
        bare = re.sub(_VENDOR_WORDS, "", key)
        if not re.search(r"\b\d+ ?gb?\b", bare):
            continue
        if bare in table and table[bare] != match:
            table[bare] = None
        else:
            table.setdefault(bare, match)
    return table


def match_accelerator(name: str | None) -> AcceleratorMatch | None:
    """The canonical accelerator for a name written by MLPerf, nvidia-smi, rocm-smi, a cloud
    catalog or a Kubernetes node label; None when the name is unknown or empty.

    Tried in order: the alias table as written; without _ACCELERATOR_NOISE; then without a leading
    vendor word on both sides (when that leaves one accelerator)."""
    if name is None:
        return None
    aliases = _accelerator_aliases()
    found = aliases.get(alias_key(str(name)))
    if found is not None:
        return found
    reduced = _accelerator_reduced_key(str(name))
    if not reduced:
        return None
    return aliases.get(reduced) or _accelerator_aliases_without_vendor().get(re.sub(_VENDOR_WORDS, "", reduced))


def accelerator_id(name: str | None) -> str | None:
    match = match_accelerator(name)
    return match.accelerator_id if match else None


@functools.cache
def _model_aliases() -> dict[str, str]:
    known = {row["model_id"] for row in _read_csv("models.csv")}
    table = {}
    for row in _read_csv("model_aliases.csv"):
        if row["model_id"] not in known:
            raise ValueError(f"model alias {row['alias']!r} points at unknown model_id {row['model_id']!r}")
        table[alias_key(row["alias"])] = row["model_id"]
    return table


def model_id(name: str | None) -> str | None:
    """The canonical model for a Hugging Face id or an MLPerf benchmark name (with or without
    its -99 / -99.9 accuracy suffix); None when unknown."""
    if not name:
        return None
    table = _model_aliases()
    found = table.get(alias_key(name))
    if found is None:
        base, _target = split_accuracy_target(name)
        found = table.get(alias_key(base))
    return found


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
    return _read_csv("mlperf_units.csv")


def mlperf_rule(mlperf_model: str, scenario: str, round_name: str) -> ResultRule:
    """The rule for (round, model, scenario) from `mlperf_units.csv`: the first matching row,
    model-specific rows before the `*` defaults. The `Units` column of the tables is not trusted
    for the models the table names (mlcommons-formats.md 6)."""
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
    return {row["folder"]: row["mlperf_model"] for row in _read_csv("mlperf_model_folders.csv")}


def mlperf_benchmark(folder: str, extra: dict[str, str] | None = None) -> str:
    """The official benchmark name for a submission folder name (`resnet50` -> `resnet`), using a
    submitter's own `model_mapping.json` (open division) when given; unmapped names are kept."""
    name = folder.strip()
    if extra and name in extra:
        return str(extra[name])
    return _model_folders().get(name, name)


@functools.cache
def _workloads() -> dict[str, dict[str, str]]:
    return {row["mlperf_model"]: row for row in _read_csv("mlperf_workloads.csv")}


def mlperf_dataset(mlperf_model: str) -> str | None:
    base, _target = split_accuracy_target(mlperf_model)
    row = _workloads().get(base)
    return row["dataset"] if row else None


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


# --- precision ----------------------------------------------------------------------------

_PRECISION_TOKENS = {
    "fp32": "fp32",
    "float32": "fp32",
    "fp16": "fp16",
    "float16": "fp16",
    "half": "fp16",
    "bf16": "bf16",
    "bfloat16": "bf16",
    "fp8": "fp8",
    "float8": "fp8",
    "e4m3": "fp8",
    "fp8e4m3": "fp8",
    "fp4": "fp4",
    "mxfp4": "fp4",
    "nvfp4": "fp4",
    "float4": "fp4",
    "int8": "int8",
    "uint8": "uint8",
    "int4": "int4",
    "uint4": "uint4",
    "w4a16": "int4",
}
_PRECISION_BITS = {"fp32": 32, "fp16": 16, "bf16": 16, "fp8": 8, "int8": 8, "uint8": 8, "fp4": 4, "int4": 4, "uint4": 4}


class PrecisionError(ValueError):
    pass


def normalise_precision(raw: str | None) -> str | None:
    """Normalised precision: one token (`fp8`) or a comma list widest first (`fp16,fp8,int8`).

    Accepts case variants, `float8`, `mxfp4`, comma lists and the stringified dict of v5.1 SDXL
    (`{'unet': 'fp8', ...}`). `UNSET` and empty give None; an unknown token raises PrecisionError.
    """
    if raw is None:
        return None
    text = str(raw).strip()
    if not text or text.upper() in {"UNSET", "N/A", "NA", "NONE", "-"}:
        return None
    values: list[str]
    if text.startswith("{"):
        try:
            parsed = ast.literal_eval(text)
        except (ValueError, SyntaxError) as exc:
            raise PrecisionError(f"unreadable precision dict {text!r}") from exc
        values = [str(v) for v in parsed.values()]
    else:
        values = [part.split(":")[-1] for part in re.split(r"[,;/+]", text)]
    tokens = set()
    for value in values:
        key = value.strip().lower().replace("-", "").replace("_", "")
        if not key:
            continue
        if key not in _PRECISION_TOKENS:
            raise PrecisionError(f"unknown precision {value.strip()!r} in {text!r}")
        tokens.add(_PRECISION_TOKENS[key])
    if not tokens:
        return None
    return ",".join(sorted(tokens, key=lambda t: (-_PRECISION_BITS[t], t)))


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
