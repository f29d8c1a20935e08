"""A profile's stated token lengths: `workload.input_tokens` / `workload.output_tokens` in the forms a team knows
them, the old `input_tokens_mean` / `output_tokens_mean` keys, and a lengths-only file (`workload.lengths_file`).

Each side's statement becomes one normalised mapping (stored as JSON on requirement.profiles, resolved into
requirement.workload):

  a number N, or {fixed: N}     {"kind": "fixed", "mean": N}
  {mean: M, cv: C}              {"kind": "lognormal", "mean": M, "cv": C}
  {p50: a, p90: b, p99: c}      {"kind": "percentiles", "p50": a, "p90": b, "p99": c} (a <= b <= c)
  *_tokens_mean: M (old key)    {"kind": "lognormal", "mean": M, "cv": 1, "cv_assumed": true}

A profile states each fact once: a side given by both its new key and its old `*_mean` key is refused, and so is
a lengths file beside a traffic log or beside stated lengths (a traffic log that has lengths beside stated ones is
refused when the log is read: assets/calibrate/workload.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from assets.core.errors import IngestError
from assets.core.ranges import PROFILES, OutOfRange, check

SIDES = ("input", "output")
ASSUMED_CV = 1.0
# The keys of each mapping form of workload.<side>_tokens, in the order they are checked.
LENGTH_FORMS = {"fixed": ("fixed",), "lognormal": ("mean", "cv"), "percentiles": ("p50", "p90", "p99")}
LENGTH_FORM_KEYS = tuple(key for keys in LENGTH_FORMS.values() for key in keys)


def _ranged(value: Any, key: str, where: str) -> float:
    """`value` of `key` in its accepted range; IngestError naming `where`, the key and the range."""
    try:
        return float(check(PROFILES, key, value))
    except OutOfRange as problem:
        raise IngestError(f"{where}: {problem}") from None


def _form(value: Any, key: str, where: str) -> dict[str, Any]:
    """One side's statement under its new key, normalised (see the module docstring)."""
    if not isinstance(value, dict):
        return {"kind": "fixed", "mean": _ranged(value, key, where)}
    forms = [kind for kind, keys in LENGTH_FORMS.items() if set(value) == set(keys)]
    if not forms:
        said = "; ".join(f"{{{', '.join(keys)}}}" for keys in LENGTH_FORMS.values())
        raise IngestError(
            f"{where}: {key} has keys {sorted(map(str, value))}; expected a number (fixed) or one of {said}"
        )
    kind = forms[0]
    stated = {k: _ranged(value[k], f"{key}.{k}", where) for k in LENGTH_FORMS[kind]}
    if kind == "fixed":
        return {"kind": "fixed", "mean": stated["fixed"]}
    if kind == "percentiles" and not stated["p50"] <= stated["p90"] <= stated["p99"]:
        raise IngestError(
            f"{where}: {key} percentiles must rise: p50 <= p90 <= p99 (got {stated['p50']:g}, {stated['p90']:g}, "
            f"{stated['p99']:g})"
        )
    return {"kind": kind, **stated}


def stated_lengths(workload: dict[str, Any], where: str, source: str) -> dict[str, Any]:
    """requirement.profiles' `input_tokens_stated`, `output_tokens_stated` (JSON or None) and `lengths_file` (a
    path resolved against the profiles file's folder, or None) of a profile's `workload:`."""
    row: dict[str, Any] = {}
    for side in SIDES:
        new, old = f"{side}_tokens", f"{side}_tokens_mean"
        if new in workload and old in workload:
            raise IngestError(
                f"{where}: workload.{new} and workload.{old} both state the {side} lengths; keep one "
                f"(workload.{old} is read as lognormal with CV {ASSUMED_CV:g}, assumed)"
            )
        stated = None
        if new in workload:
            stated = _form(workload[new], f"workload.{new}", where)
        elif old in workload:
            mean = _ranged(workload[old], f"workload.{old}", where)
            stated = {"kind": "lognormal", "mean": mean, "cv": ASSUMED_CV, "cv_assumed": True}
        row[f"{side}_tokens_stated"] = json.dumps(stated) if stated else None
    lengths_file = workload.get("lengths_file")
    if lengths_file:
        if workload.get("traffic_log"):
            raise IngestError(
                f"{where}: workload.lengths_file and workload.traffic_log both give the lengths; a traffic log "
                "with timestamps gives arrivals and lengths: keep one"
            )
        stated_keys = [k for k in workload if k.startswith(SIDES) and k.endswith(("_tokens", "_tokens_mean"))]
        if stated_keys:
            raise IngestError(
                f"{where}: workload.lengths_file and workload.{stated_keys[0]} both state the lengths; keep one"
            )
    row["lengths_file"] = str((Path(source).parent / str(lengths_file)).resolve()) if lengths_file else None
    return row


def describe(stated: dict[str, Any]) -> str:
    """A stated side in words: `fixed at 128`, `lognormal mean 200, CV 1 (assumed)`, `p50 150 / p90 600 / p99
    1500`."""
    if stated["kind"] == "fixed":
        return f"fixed at {stated['mean']:g}"
    if stated["kind"] == "lognormal":
        assumed = " (assumed)" if stated.get("cv_assumed") else ""
        return f"lognormal mean {stated['mean']:g}, CV {stated['cv']:g}{assumed}"
    return f"through p50 {stated['p50']:g} / p90 {stated['p90']:g} / p99 {stated['p99']:g}"
