"""The profiles YAML: workload profiles (model, SLO bounds, delivered-fraction prior, traffic)."""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from assets.core import canonical
from assets.core.errors import IngestError
from assets.core.records import SourceFile
from assets.inputs.files import read_local
from assets.inputs.textinput import parse_yaml
from assets.warehouse.write import WriteReport, write_table
from schemas.requirement.profiles import Profiles
from schemas.requirement.slo_bounds import SloBounds

SLO_KEY = re.compile(r"^(ttft|tpot|itl|e2e)_(p50|p90|p95|p99)_ms$")
DEFAULT_ERROR_RATE_MAX = 0.01
PROFILE_KEYS = {"name", "model", "slo", "delivered_fraction_prior", "workload"}
WORKLOAD_KEYS = {"input_tokens_mean", "output_tokens_mean", "traffic_log"}


def _positive(value: Any, where: str, below: float = 1e8) -> float:
    """A positive finite number below `below` (1e8 ms is ~28 hours, 1e8 tokens a very long prompt)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < below:
        raise IngestError(f"{where} must be a positive number below {below:g} (got {value!r})")
    return float(value)


def parse_profiles(content: Any, source: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Profile rows and SLO-bound rows from a profiles YAML document; IngestError names the
    file, the profile and the key that is wrong. `workload.traffic_log` (a production request log in
    one of the forms of assets.requests.traffic_shape.TRAFFIC_FORMS) is resolved against the profiles file's folder."""
    if not isinstance(content, dict) or not isinstance(content.get("profiles"), list) or not content["profiles"]:
        raise IngestError(f"{source}: expected `profiles:` with a non-empty list of profiles")
    profiles: list[dict[str, Any]] = []
    bounds: list[dict[str, Any]] = []
    names: set[str] = set()
    for i, entry in enumerate(content["profiles"]):
        profile, profile_bounds = _profile(entry, f"{source}: profiles[{i}]", source, names)
        profiles.append(profile)
        bounds += profile_bounds
    return profiles, bounds


def _profile(entry: Any, where: str, source: str, names: set[str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One profile's row and its SLO bounds (the error rate's last); `names` are the profiles read before it."""
    if not isinstance(entry, dict):
        raise IngestError(f"{where} is not a mapping")
    unknown = set(entry) - PROFILE_KEYS
    if unknown:
        raise IngestError(f"{where}: unknown keys {sorted(unknown)}; allowed {sorted(PROFILE_KEYS)}")
    name = str(entry.get("name") or "").strip()
    if not name:
        raise IngestError(f"{where} has no name")
    where = f"{source}: profile {name!r}"
    if name in names:
        raise IngestError(f"{where} is defined twice")
    names.add(name)
    model_raw = str(entry.get("model") or "").strip()
    if not model_raw:
        raise IngestError(f"{where} has no model")
    measures, error_rate_max = _slo(entry.get("slo"), where)
    lo, hi = _prior(entry.get("delivered_fraction_prior"), where)
    workload = entry.get("workload") or {}
    if not isinstance(workload, dict) or set(workload) - WORKLOAD_KEYS:
        raise IngestError(f"{where}: workload may only hold {sorted(WORKLOAD_KEYS)}")
    model = canonical.model_id(model_raw)
    row = {
        "profile": name,
        "model_raw": model_raw,
        "model_id": model,
        "model_known": model is not None,
        "delivered_fraction_prior_lo": lo,
        "delivered_fraction_prior_hi": hi,
        "error_rate_max": error_rate_max,
        "input_tokens_mean": _positive(workload["input_tokens_mean"], f"{where}: workload.input_tokens_mean")
        if "input_tokens_mean" in workload
        else None,
        "output_tokens_mean": _positive(workload["output_tokens_mean"], f"{where}: workload.output_tokens_mean")
        if "output_tokens_mean" in workload
        else None,
        "traffic_log": None
        if not workload.get("traffic_log")
        else str((Path(source).parent / str(workload["traffic_log"])).resolve()),
        "slo_text": "; ".join(f"{k} <= {v:g}" for k, v in measures) + f"; error_rate <= {error_rate_max:g}",
        "source": source,
        "evidence": "requirement",
    }
    bounds = [{"profile": name, "measure": k, "bound": v} for k, v in measures]
    return row, [*bounds, {"profile": name, "measure": "error_rate", "bound": error_rate_max}]


def _slo(slo: Any, where: str) -> tuple[list[tuple[str, float]], float]:
    """The bounded latency percentiles (key, bound in ms) of a profile's `slo:`, and its error-rate bound."""
    if not isinstance(slo, dict) or not slo:
        raise IngestError(f"{where}: slo must map bounds like ttft_p95_ms: 1000")
    error_rate_max = DEFAULT_ERROR_RATE_MAX
    measures = []
    for key, value in slo.items():
        if key == "error_rate_max":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
                raise IngestError(f"{where}: slo.error_rate_max must be a fraction in [0, 1] (got {value!r})")
            error_rate_max = float(value)
            continue
        if not SLO_KEY.match(str(key)):
            raise IngestError(
                f"{where}: unknown slo key {key!r}; expected <ttft|tpot|itl|e2e>_<p50|p90|p95|p99>_ms or error_rate_max"
            )
        measures.append((str(key), _positive(value, f"{where}: slo.{key}")))
    return measures, error_rate_max


def _prior(prior: Any, where: str) -> tuple[float, float]:
    """A profile's delivered-fraction prior [lo, hi]: 0 < lo <= hi <= 2."""
    if not (isinstance(prior, list) and len(prior) == 2):
        raise IngestError(f"{where}: delivered_fraction_prior must be [lo, hi]")
    lo, hi = (_positive(p, f"{where}: delivered_fraction_prior") for p in prior)
    if lo > hi or hi > 2:
        raise IngestError(f"{where}: delivered_fraction_prior [{lo}, {hi}] must have lo <= hi <= 2")
    return lo, hi


def read_profiles(path: str | Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]], SourceFile]:
    fetched = read_local(path)[0]
    content = parse_yaml(fetched.data, fetched.name)
    profiles, bounds = parse_profiles(content, fetched.name)
    return (
        profiles,
        bounds,
        SourceFile(fetched.name, fetched.sha256, len(fetched.data), "profiles yaml", "read", rows=len(profiles)),
    )


PROFILE_TABLES = ("requirement.profiles", "requirement.slo_bounds")


def write_profiles(
    conn: duckdb.DuckDBPyConnection,
    rows: list[dict[str, Any]],
    bounds: list[dict[str, Any]],
    file: SourceFile,
    tables: Collection[str] = PROFILE_TABLES,
) -> dict[str, WriteReport]:
    """requirement.profiles and requirement.slo_bounds (or only those of `tables`) from a profiles file's rows,
    each table's report by its name."""
    reports = {}
    if "requirement.profiles" in tables:
        frame = pl.DataFrame(rows, infer_schema_length=None)
        reports["requirement.profiles"] = write_table(conn, "requirement.profiles", frame, Profiles, [], [file])
    if "requirement.slo_bounds" in tables:
        reports["requirement.slo_bounds"] = write_table(conn, "requirement.slo_bounds", pl.DataFrame(bounds), SloBounds)
    return reports
