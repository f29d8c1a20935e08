"""`run.yaml` sidecars: the config of the runs below them, checked."""

from __future__ import annotations

import json
from typing import Any

from assets.core import canonical
from assets.core.errors import IngestError
from assets.inputs.files import Fetched, LargeFile
from assets.inputs.textinput import parse_yaml
from schemas.vocab import ARRIVALS

SIDECAR = "run.yaml"
REQUIRED_KEYS = ("accelerator", "accelerator_count", "model", "precision", "runtime", "runtime_version", "arrival")
OPTIONAL_KEYS = ("label", "settings", "tool_version")


class SidecarProblem(ValueError):
    pass


def read_sidecar(fetched: Fetched | LargeFile) -> dict[str, Any]:
    """The mapping in a run.yaml; IngestError when it is not YAML or not a mapping."""
    content = parse_yaml(fetched.data, fetched.name)
    if not isinstance(content, dict):
        raise IngestError(f"{fetched.name}: expected a mapping of run settings, got {type(content).__name__}")
    return content


def run_config(merged: dict[str, Any], sidecars: list[str]) -> dict[str, Any]:
    """Validated run settings from merged run.yaml keys; SidecarProblem says what is wrong."""
    where = " + ".join(sidecars)
    unknown = sorted(set(merged) - set(REQUIRED_KEYS) - set(OPTIONAL_KEYS))
    if unknown:
        raise SidecarProblem(f"{where}: unknown keys {unknown}; allowed {list(REQUIRED_KEYS + OPTIONAL_KEYS)}")
    missing = [k for k in REQUIRED_KEYS if merged.get(k) in (None, "")]
    if missing:
        raise SidecarProblem(f"{where}: missing required keys {missing}")
    arrival = str(merged["arrival"]).strip().lower()
    if arrival not in ARRIVALS:
        raise SidecarProblem(f"{where}: arrival {merged['arrival']!r} is not one of {list(ARRIVALS)}")
    count = merged["accelerator_count"]
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise SidecarProblem(f"{where}: accelerator_count must be a whole number >= 1 (got {count!r})")
    precision_raw = str(merged["precision"]).strip()
    try:
        precision = canonical.normalise_precision(precision_raw)
    except canonical.PrecisionError as exc:
        raise SidecarProblem(f"{where}: {exc}") from None
    accelerator_raw = str(merged["accelerator"]).strip()
    model_raw = str(merged["model"]).strip()
    accelerator = canonical.match_accelerator(accelerator_raw)
    model = canonical.model_id(model_raw)
    settings = merged.get("settings")
    return {
        "accelerator_raw": accelerator_raw,
        "accelerator_id": accelerator.accelerator_id if accelerator else None,
        "accelerator_known": accelerator is not None,
        "accelerator_count": count,
        "model_raw": model_raw,
        "model_id": model,
        "model_known": model is not None,
        "precision_raw": precision_raw,
        "precision": precision,
        "runtime": str(merged["runtime"]).strip(),
        "runtime_version": str(merged["runtime_version"]).strip(),
        "runtime_settings": None if settings is None else json.dumps(settings, sort_keys=True, default=str),
        "arrival": arrival,
        "load_kind": "concurrency" if arrival == "concurrency" else "rate",
        "tool_version": None if merged.get("tool_version") is None else str(merged["tool_version"]),
        "label": None if merged.get("label") is None else str(merged["label"]).strip(),
    }
