"""`run.yaml` sidecars: the config of the runs below them, checked."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import PurePosixPath
from typing import Any

from assets.core import canonical, precisions
from assets.core.errors import IngestError
from assets.core.ranges import RUN_YAML, OutOfRange, check
from assets.inputs.files import Fetched, LargeFile
from assets.inputs.textinput import parse_yaml
from schemas.vocab import ARRIVALS

SIDECAR = "run.yaml"
REQUIRED_KEYS = ("accelerator", "accelerator_count", "model", "precision", "runtime", "runtime_version", "arrival")
OPTIONAL_KEYS = ("label", "settings", "tool_version", "plan", "overrides")
# run.yaml's `plan`: a stored measurement plan's id (assets/plan/store.py plan_id_of), `plan-` and 12 hex digits.
PLAN_ID = re.compile(r"plan-[0-9a-f]{12}")
# Keys an override may set: everything but the overrides themselves.
OVERRIDABLE_KEYS = tuple(k for k in REQUIRED_KEYS + OPTIONAL_KEYS if k != "overrides")


class SidecarProblem(ValueError):
    pass


def read_sidecar(fetched: Fetched | LargeFile) -> dict[str, Any]:
    """The mapping in a run.yaml; IngestError when it is not YAML or not a mapping."""
    content = parse_yaml(fetched.data, fetched.name)
    if not isinstance(content, dict):
        raise IngestError(f"{fetched.name}: expected a mapping of run settings, got {type(content).__name__}")
    return content


def unreadable_above(folder: PurePosixPath, unreadable: Mapping[PurePosixPath, str]) -> PurePosixPath | None:
    """The deepest folder at or above `folder` whose run.yaml cannot be read (`unreadable`: folder -> problem):
    the files below it have no config to read them with (a shallower run.yaml would describe them wrongly)."""
    return next((p for p in (folder, *folder.parents) if p in unreadable), None)


def merge_sidecars(chain: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The keys of the run.yaml files governing a folder, given shallowest first: a deeper file's key wins."""
    merged: dict[str, Any] = {}
    for sidecar in chain:
        merged.update(sidecar)
    return merged


def run_precision(
    raw: object, stated: precisions.Precision, model_raw: str, implied: precisions.Precision | None
) -> dict[str, Any]:
    """The run's precision columns. run.yaml's value wins; without one, the precision the model name
    implies (`...-FP8`, `...-AWQ`, `...-Q4_K_M.gguf`). A value not in precisions.csv is kept raw and
    flagged (precision NULL, precision_known false), never a reason to drop the run; a run.yaml value that
    contradicts the model name, or an unknown one the name could have told, is said in precision_note."""
    raw_text = None if raw in (None, "") else str(raw).strip()
    if not stated.stated and implied is not None:
        return {
            "precision_raw": raw_text,
            "precision": implied.precision,
            "precision_known": True,
            "precision_source": "model name",
            "weight_bits": implied.weight_bits,
            "activation_bits": implied.activation_bits,
            "precision_scheme": implied.scheme,
            "precision_note": None,
        }
    note = None
    activation_bits = stated.activation_bits
    if not stated.stated:  # `N/A`, `unknown`: a hosted API does not say; kept raw and flagged like an unknown word
        return {
            "precision_raw": raw_text,
            "precision": None,
            "precision_known": False,
            "precision_source": "run.yaml",
            "weight_bits": None,
            "activation_bits": None,
            "precision_scheme": None,
            "precision_note": (
                f"run.yaml states no precision ({raw_text!r}) and the model name {model_raw!r} implies none"
            ),
        }
    if not stated.known:
        note = f"precision {raw_text!r} is not in the precision table (kept raw)"
        if implied is not None:
            note += f"; the model name {model_raw!r} implies {implied.precision}"
    elif implied is not None and implied.precision != stated.precision:
        note = (
            f"run.yaml precision {stated.precision} contradicts the model name {model_raw!r}, which implies "
            f"{implied.precision}; run.yaml's is used"
        )
    elif implied is not None and activation_bits is None:
        activation_bits = implied.activation_bits  # the name is more specific (`-FP8-dynamic`: W8A8)
    return {
        "precision_raw": raw_text,
        "precision": stated.precision,
        "precision_known": stated.known,
        "precision_source": "run.yaml",
        "weight_bits": stated.weight_bits,
        "activation_bits": activation_bits,
        "precision_scheme": (stated if note else precisions.fuller(stated, implied)).scheme,
        "precision_note": note,
    }


def overrides_of(merged: dict[str, Any], where: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The (when, set) pairs of run.yaml's `overrides`: run settings that differ for the files stating given server
    settings or workload (one folder of results from several servers or models); SidecarProblem when malformed."""
    entries = merged.get("overrides")
    if entries is None:
        return []
    if not isinstance(entries, list):
        raise SidecarProblem(f"{where}: overrides must be a list of {{when: ..., set: ...}}")
    pairs = []
    for number, entry in enumerate(entries, 1):
        if not isinstance(entry, dict) or set(entry) != {"when", "set"}:
            raise SidecarProblem(f"{where}: override {number} must have exactly the keys when and set")
        when, values = entry["when"], entry["set"]
        if not isinstance(when, dict) or not when or not isinstance(values, dict) or not values:
            raise SidecarProblem(f"{where}: override {number}: when and set must be non-empty mappings")
        wrong = sorted(set(values) - set(OVERRIDABLE_KEYS))
        if wrong:
            raise SidecarProblem(f"{where}: override {number} sets {wrong}; it may set {list(OVERRIDABLE_KEYS)}")
        pairs.append((when, values))
    return pairs


def with_overrides(merged: dict[str, Any], stated: dict[str, Any]) -> dict[str, Any]:
    """run.yaml's keys for files that state `stated` (their server settings and workload): every override whose
    `when` they all match (compared as text: YAML's `true` is the files' True), applied in order."""
    out = {k: v for k, v in merged.items() if k != "overrides"}
    for when, values in overrides_of(merged, SIDECAR):
        if all(k in stated and str(stated[k]) == str(v) for k, v in when.items()):
            out.update(values)
    return out


def run_config(merged: dict[str, Any], sidecars: list[str]) -> dict[str, Any]:
    """Validated run settings from merged run.yaml keys (each override's variant checked too: a bad one is found
    before any file is read); SidecarProblem says what is wrong."""
    where = " + ".join(sidecars)
    base = {k: v for k, v in merged.items() if k != "overrides"}
    for number, (_when, values) in enumerate(overrides_of(merged, where), 1):
        try:
            _run_config({**base, **values}, where)
        except SidecarProblem as problem:
            raise SidecarProblem(f"override {number}: {problem}") from None
    return _run_config(base, where)


def _run_config(merged: dict[str, Any], where: str) -> dict[str, Any]:
    unknown = sorted(set(merged) - set(REQUIRED_KEYS) - set(OPTIONAL_KEYS))
    if unknown:
        raise SidecarProblem(f"{where}: unknown keys {unknown}; allowed {list(REQUIRED_KEYS + OPTIONAL_KEYS)}")
    nested = sorted(k for k, v in merged.items() if k != "settings" and isinstance(v, (dict, list)))
    if nested:
        raise SidecarProblem(f"{where}: {nested} must each be one value (text or a number), not a list or a mapping")
    if merged.get("settings") is not None and not isinstance(merged["settings"], dict):
        kind = type(merged["settings"]).__name__
        raise SidecarProblem(f"{where}: settings must be a mapping of engine settings (name: value), got {kind}")
    model_raw = str(merged["model"]).strip() if merged.get("model") not in (None, "") else ""
    checkpoint = canonical.model_and_precision(model_raw)
    stated = precisions.read_precision(merged.get("precision"))
    missing = [k for k in REQUIRED_KEYS if merged.get(k) in (None, "")]
    if "precision" in missing and checkpoint.implied_precision is not None:
        missing.remove("precision")  # the model name states it (run_precision)
    if missing:
        raise SidecarProblem(f"{where}: missing required keys {missing}")
    arrival = str(merged["arrival"]).strip().lower()
    if arrival not in ARRIVALS:
        raise SidecarProblem(f"{where}: arrival {merged['arrival']!r} is not one of {list(ARRIVALS)}")
    try:
        count = check(RUN_YAML, "accelerator_count", merged["accelerator_count"], where)
    except OutOfRange as problem:
        raise SidecarProblem(str(problem)) from None
    accelerator_raw = str(merged["accelerator"]).strip()
    accelerator = canonical.match_accelerator(accelerator_raw)
    settings = merged.get("settings")
    return {
        "accelerator_raw": accelerator_raw,
        "accelerator_id": accelerator.accelerator_id if accelerator else None,
        "accelerator_known": accelerator is not None,
        "accelerator_count": count,
        "model_raw": model_raw,
        "model_id": checkpoint.model_id,
        "model_known": checkpoint.model_id is not None,
        "model_key": checkpoint.key,
        **run_precision(merged.get("precision"), stated, model_raw, checkpoint.implied_precision),
        "runtime": str(merged["runtime"]).strip(),
        "runtime_version": str(merged["runtime_version"]).strip(),
        "runtime_settings": None if settings is None else json.dumps(settings, sort_keys=True, default=str),
        "arrival": arrival,
        "load_kind": "concurrency" if arrival == "concurrency" else "rate",
        "tool_version": None if merged.get("tool_version") is None else str(merged["tool_version"]),
        "label": None if merged.get("label") is None else str(merged["label"]).strip(),
        "plan_id": plan_of(merged, where),
    }


def plan_of(merged: dict[str, Any], where: str) -> str | None:
    """run.yaml's `plan`: the measurement plan the run measures (`plan-` and 12 hex digits, as benchbill plan wrote
    it); None when it names none; SidecarProblem naming the file when malformed."""
    raw = merged.get("plan")
    if raw in (None, ""):
        return None
    text = str(raw).strip()
    if not PLAN_ID.fullmatch(text):
        raise SidecarProblem(
            f"{where}: plan {raw!r} is not a plan id (expected plan- and 12 hex digits, as plans/<plan_id>/ names it)"
        )
    return text
