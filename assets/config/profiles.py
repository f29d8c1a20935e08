"""The profiles YAML: workload profiles (model, SLO bounds, delivered-fraction prior, traffic)."""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from assets.config.workload_lengths import stated_lengths
from assets.core import canonical
from assets.core.errors import IngestError
from assets.core.ranges import PROFILES, SLO_MS, OutOfRange, check
from assets.core.records import SourceFile
from assets.inputs.files import read_settings_file
from assets.inputs.textinput import parse_yaml
from assets.warehouse.write import WriteReport, write_table
from schemas.requirement.profiles import Profiles
from schemas.requirement.quality_bounds import QualityBounds
from schemas.requirement.slo_bounds import SloBounds
from schemas.vocab import QUALITY_BOUND_KINDS

SLO_KEY = re.compile(r"^(ttft|tpot|itl|e2e)_(p50|p90|p95|p99)_ms$")
DEFAULT_ERROR_RATE_MAX = 0.01
QUALITY_OPTIONAL_KEYS = ("tolerance",)  # beside task, metric and one bound kind
PROFILE_KEYS = {"name", "model", "slo", "delivered_fraction_prior", "workload", "baseline", "quality"}
WORKLOAD_KEYS = {
    "input_tokens",
    "output_tokens",
    "input_tokens_mean",
    "output_tokens_mean",
    "lengths_file",
    "traffic_log",
    "requests_per_day",
    "peak_window_s",
    "min_replicas",
    "mean_requests_per_s",
    "peak_to_mean",
    "arrival_cv",
}
DEFAULT_PEAK_WINDOW_S = 60.0
DEFAULT_MIN_REPLICAS = 1


def _ranged(value: Any, key: str, where: str, name: str | None = None) -> Any:
    """`value` of `key` in its accepted range (assets.core.ranges.INPUT_RANGES); IngestError naming `where`, the
    key (as `name` when given: `slo.ttft_p95_ms` for the SLO keys' one range) and the range."""
    try:
        return check(PROFILES, key, value)
    except OutOfRange as problem:
        message = str(problem)
        raise IngestError(f"{where}: {name}{message[len(key) :]}" if name else f"{where}: {message}") from None


def parse_profiles(content: Any, source: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Profile rows and SLO-bound rows from a profiles YAML document; IngestError names the
    file, the profile and the key that is wrong. `workload.traffic_log` (a production request log in one of
    the forms of assets.request_records.traffic_shape.TRAFFIC_FORMS) and `workload.lengths_file` are resolved
    against the profiles file's folder; stated lengths are read by assets.config.workload_lengths."""
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
    if not isinstance(workload, dict):
        raise IngestError(f"{where}: workload must be a mapping of {sorted(WORKLOAD_KEYS)}")
    if set(workload) - WORKLOAD_KEYS:
        raise IngestError(
            f"{where}: unknown workload keys {sorted(map(str, set(workload) - WORKLOAD_KEYS))}; "
            f"allowed {sorted(WORKLOAD_KEYS)}"
        )
    model = canonical.model_id(model_raw)
    volume = _volume(workload, entry.get("baseline"), where)
    row = {
        "profile": name,
        "model_raw": model_raw,
        "model_id": model,
        "model_known": model is not None,
        "model_key": canonical.model_key(model_raw),
        "delivered_fraction_prior_low": lo,
        "delivered_fraction_prior_high": hi,
        "error_rate_max": error_rate_max,
        **stated_lengths(workload, where, source),
        "arrival_cv": _arrival_cv(workload, where),
        "traffic_log": None
        if not workload.get("traffic_log")
        else str((Path(source).parent / str(workload["traffic_log"])).resolve()),
        **volume,
        "slo_text": "; ".join(f"{k} <= {v:g}" for k, v in measures) + f"; error_rate <= {error_rate_max:g}",
        "source": source,
        "evidence": "requirement",
    }
    bounds = [{"profile": name, "measure": k, "bound": v} for k, v in measures]
    return row, [*bounds, {"profile": name, "measure": "error_rate", "bound": error_rate_max}]


def _arrival_cv(workload: dict[str, Any], where: str) -> float | None:
    """`workload.arrival_cv` (0 evenly spaced, 1 Poisson, above 1 bursty): the arrivals of a profile without a
    traffic log; None when not stated (Poisson is then assumed where arrivals are simulated). A log gives the
    arrivals itself, so the two together are refused."""
    if "arrival_cv" not in workload:
        return None
    if workload.get("traffic_log"):
        raise IngestError(
            f"{where}: workload.arrival_cv states the arrivals without a log, but workload.traffic_log is set "
            "(the log's own timestamps give the arrivals)"
        )
    return _ranged(workload["arrival_cv"], "workload.arrival_cv", where)


def _volume(workload: dict[str, Any], baseline: Any, where: str) -> dict[str, Any]:
    """Our traffic's volume and peaks (workload keys) and the run label of what we run today (`baseline`).

    With a `traffic_log`, the log gives the shape and `requests_per_day` (optional) the scale; without one,
    the volume is stated: `mean_requests_per_s` (or `requests_per_day`) and `peak_to_mean` together."""
    has_log = bool(workload.get("traffic_log"))
    stated = [key for key in ("mean_requests_per_s", "peak_to_mean") if key in workload]
    if has_log and stated:
        raise IngestError(
            f"{where}: workload.{stated[0]} states the traffic without a log, but workload.traffic_log is set "
            "(the log gives the mean and the peaks; scale it with workload.requests_per_day)"
        )
    if "requests_per_day" in workload and "mean_requests_per_s" in workload:
        raise IngestError(
            f"{where}: workload.requests_per_day and workload.mean_requests_per_s both state the volume; keep one"
        )
    per_day = (
        _ranged(workload["requests_per_day"], "workload.requests_per_day", where)
        if ("requests_per_day" in workload)
        else None
    )
    mean = (
        _ranged(workload["mean_requests_per_s"], "workload.mean_requests_per_s", where)
        if "mean_requests_per_s" in workload
        else None
    )
    peak_to_mean = None
    if "peak_to_mean" in workload:
        peak_to_mean = _ranged(workload["peak_to_mean"], "workload.peak_to_mean", where)
    window = (
        _ranged(workload["peak_window_s"], "workload.peak_window_s", where)
        if "peak_window_s" in workload
        else DEFAULT_PEAK_WINDOW_S
    )
    replicas = _ranged(workload.get("min_replicas", DEFAULT_MIN_REPLICAS), "workload.min_replicas", where)
    if not has_log and ("mean_requests_per_s" in workload or "requests_per_day" in workload) != (
        "peak_to_mean" in workload
    ):
        raise IngestError(
            f"{where}: without workload.traffic_log, the volume needs both a mean "
            "(workload.mean_requests_per_s or workload.requests_per_day) and workload.peak_to_mean"
        )
    if baseline is not None and (not isinstance(baseline, str) or not baseline.strip()):
        raise IngestError(f"{where}: baseline must be the run label of what we run today (got {baseline!r})")
    return {
        "requests_per_day": per_day,
        "mean_requests_per_s": mean,
        "peak_to_mean": peak_to_mean,
        "peak_window_s": window,
        "min_replicas": replicas,
        "baseline_run_label": baseline.strip() if isinstance(baseline, str) else None,
    }


def _slo(slo: Any, where: str) -> tuple[list[tuple[str, float]], float]:
    """The bounded latency percentiles (key, bound in ms) of a profile's `slo:`, and its error-rate bound."""
    if not isinstance(slo, dict) or not slo:
        raise IngestError(f"{where}: slo must map bounds like ttft_p95_ms: 1000")
    error_rate_max = DEFAULT_ERROR_RATE_MAX
    measures = []
    for key, value in slo.items():
        if key == "error_rate_max":
            error_rate_max = _ranged(value, "slo.error_rate_max", where)
            continue
        if not SLO_KEY.match(str(key)):
            raise IngestError(
                f"{where}: unknown slo key {key!r}; expected <ttft|tpot|itl|e2e>_<p50|p90|p95|p99>_ms or error_rate_max"
            )
        measures.append((str(key), _ranged(value, SLO_MS, where, f"slo.{key}")))
    return measures, error_rate_max


def _prior(prior: Any, where: str) -> tuple[float, float]:
    """A profile's delivered-fraction prior [lo, hi], each in its range (above 0.001, at most 1.5), lo <= hi."""
    if not (isinstance(prior, list) and len(prior) == 2):
        raise IngestError(f"{where}: delivered_fraction_prior must be [lo, hi]")
    lo, hi = (_ranged(p, "delivered_fraction_prior", where) for p in prior)
    if lo > hi:
        raise IngestError(f"{where}: delivered_fraction_prior [{lo}, {hi}] must have lo <= hi")
    return lo, hi


# Plausible SLO bounds, in ms: a bound outside them is most likely stated in another unit (a warning, not an error).
TTFT_MS_PLAUSIBLE = (10.0, 600_000.0)  # 10 ms to 10 minutes
TPOT_MS_AT_LEAST = 1.0


def slo_warnings(bounds: list[dict[str, Any]], source: str) -> list[str]:
    """A warning per SLO bound (requirement.slo_bounds rows) outside its plausible range, saying which unit was
    probably meant: a TTFT bound under 10 ms (seconds?) or over 10 minutes (microseconds?), a TPOT or ITL bound under
    1 ms (seconds?)."""
    found = []
    for row in bounds:
        measure, bound = row["measure"], row["bound"]
        where = f"{source}: profile {row['profile']!r}: slo.{measure} = {bound:g} ms"
        if measure.startswith("ttft_") and bound < TTFT_MS_PLAUSIBLE[0]:
            found.append(f"{where} is under 10 ms: seconds meant? ({bound:g} s is {bound * 1000:g} ms)")
        elif measure.startswith("ttft_") and bound > TTFT_MS_PLAUSIBLE[1]:
            found.append(f"{where} is over 10 minutes: microseconds meant? ({bound:g} us is {bound / 1000:g} ms)")
        elif measure.startswith(("tpot_", "itl_")) and bound < TPOT_MS_AT_LEAST:
            found.append(f"{where} is under 1 ms: seconds meant? ({bound:g} s is {bound * 1000:g} ms)")
    return found


def check_profiles(path: str | Path) -> list[str]:
    """The profiles file checked whole before any step runs (IngestError on the first mistake, naming it), and
    its plausibility warnings."""
    _rows, bounds, file = read_profiles(path)
    read_quality_bounds(path)
    return slo_warnings(bounds, file.source)


def read_profiles(path: str | Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]], SourceFile]:
    fetched = read_settings_file(path)
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


def parse_quality_bounds(content: Any, source: str) -> list[dict[str, Any]]:
    """requirement.quality_bounds rows: each profile's `quality: [{task, metric, min | max | min_relative |
    max_relative}]`; IngestError names the file, the profile, the entry and what is wrong. Call after
    parse_profiles (which checks the profiles themselves)."""
    rows: list[dict[str, Any]] = []
    for entry in content["profiles"]:
        where = f"{source}: profile {str(entry.get('name')).strip()!r}"
        rows += _quality_bounds(entry.get("quality"), entry["name"].strip(), where, source)
    return rows


def _quality_bounds(entries: Any, profile: str, where: str, source: str) -> list[dict[str, Any]]:
    if entries is None:
        return []
    if not isinstance(entries, list) or not entries:
        raise IngestError(
            f"{where}: quality must be a non-empty list of {{task, metric, one of {list(QUALITY_BOUND_KINDS)}}}"
        )
    rows: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    for i, item in enumerate(entries):
        at = f"{where}: quality[{i}]"
        if not isinstance(item, dict):
            raise IngestError(f"{at} is not a mapping")
        unknown = set(item) - {"task", "metric", *QUALITY_OPTIONAL_KEYS, *QUALITY_BOUND_KINDS}
        if unknown:
            raise IngestError(
                f"{at}: unknown keys {sorted(unknown)}; allowed task, metric, {', '.join(QUALITY_BOUND_KINDS)}, "
                "tolerance"
            )
        task, metric = (str(item.get(k) or "").strip() for k in ("task", "metric"))
        if not task or not metric:
            raise IngestError(
                f"{at}: task and metric are required (as the harness names them, e.g. gsm8k, exact_match,strict-match)"
            )
        kinds = [k for k in QUALITY_BOUND_KINDS if k in item]
        if len(kinds) != 1:
            raise IngestError(f"{at}: give exactly one of {', '.join(QUALITY_BOUND_KINDS)} (got {kinds or 'none'})")
        kind = kinds[0]
        value = item[kind]
        try:
            check(PROFILES, f"quality[].{kind}", value)
        except OutOfRange as problem:
            ratio = " (a ratio to the best-evidenced result)" if kind.endswith("_relative") else ""
            raise IngestError(f"{at}: {kind}{str(problem)[len(f'quality[].{kind}') :]}{ratio}") from None
        tolerance = item.get("tolerance", 0.0)
        try:
            check(PROFILES, "quality[].tolerance", tolerance)
        except OutOfRange as problem:
            raise IngestError(f"{at}: {problem} (in the metric's own unit)") from None
        metric = metric.removesuffix(",none")  # observed.quality names a `none`-filtered metric without it
        if (task, metric) in seen:
            raise IngestError(f"{at}: {task} {metric} is bounded twice")
        seen.add((task, metric))
        rows.append(
            {
                "profile": profile,
                "task": task,
                "metric": metric,
                "bound_kind": kind,
                "bound": float(value),
                "tolerance": float(tolerance),
                "source": source,
                "evidence": "requirement",
            }
        )
    return rows


def read_quality_bounds(path: str | Path) -> tuple[list[dict[str, Any]], SourceFile]:
    """The quality requirements of a profiles file (the profiles checked first)."""
    fetched = read_settings_file(path)
    content = parse_yaml(fetched.data, fetched.name)
    parse_profiles(content, fetched.name)
    rows = parse_quality_bounds(content, fetched.name)
    return rows, SourceFile(
        fetched.name, fetched.sha256, len(fetched.data), "profiles yaml (quality)", "read", rows=len(rows)
    )


def write_quality_bounds(conn: duckdb.DuckDBPyConnection, rows: list[dict[str, Any]], file: SourceFile) -> WriteReport:
    """requirement.quality_bounds from a profiles file's quality requirements."""
    frame = pl.DataFrame(rows, schema=QUALITY_BOUNDS_SCHEMA) if rows else pl.DataFrame(schema=QUALITY_BOUNDS_SCHEMA)
    return write_table(conn, "requirement.quality_bounds", frame, QualityBounds, [], [file])


QUALITY_BOUNDS_SCHEMA = {
    "profile": pl.String,
    "task": pl.String,
    "metric": pl.String,
    "bound_kind": pl.String,
    "bound": pl.Float64,
    "tolerance": pl.Float64,
    "source": pl.String,
    "evidence": pl.String,
}
