"""requirement.workload: each profile's workload resolved once, which every evidence class reads.

From requirement.profiles (the stated lengths, arrival CV and volume), requirement.traffic_shape (a traffic log's
arrivals, rates and length statistics) and a lengths-only file where one is named:

  lengths    a traffic log's own (empirical_log), a lengths file's (empirical_file), or stated (fixed, lognormal,
             percentiles: assets/config/workload_lengths.py); stated lengths fill only a side the log lacks: a log
             that has lengths beside stated ones is refused, naming both keys and the file (one fact, one statement)
  arrivals   the log's (its inter-arrival CV, its mean and peak window rates scaled to our volume), else the stated
             workload.arrival_cv (empty: Poisson assumed where arrivals are simulated) and stated volume

`lengths_of` rebuilds a side's distribution (assets.calibrate.traffic.Lengths) from a row: what the calibrated
replay draws from where it does not replay the log or the file itself."""

from __future__ import annotations

import json
from typing import Any

import duckdb

from assets.calibrate.traffic import PERCENTILE_TAIL_MAX, Lengths
from assets.config.workload_lengths import SIDES, describe
from assets.core.errors import IngestError
from assets.request_records.lengths import read_lengths_file, token_stats
from assets.request_records.traffic_shape import SECONDS_PER_DAY
from assets.warehouse.frames import query_frame
from assets.warehouse.rows import row_for
from assets.warehouse.validate import frame_from_rows
from assets.warehouse.write import WriteReport, write_table
from schemas.requirement.workload import Workload

STATS = ("mean", "p50", "p90", "p99", "cv", "max")


def stated_distribution(stated: dict[str, Any]) -> Lengths:
    """The distribution a side's statement (requirement.profiles' JSON) stands for."""
    if stated["kind"] == "fixed":
        return Lengths.fixed(stated["mean"])
    if stated["kind"] == "lognormal":
        return Lengths.lognormal(stated["mean"], stated["cv"])
    return Lengths.percentiles(stated["p50"], stated["p90"], stated["p99"])


def _stated_stats(side: str, stated: dict[str, Any]) -> dict[str, Any]:
    """A stated side's kind and statistics: p50/p90/p99 of the distribution, max its cap (fixed: the length;
    percentiles: PERCENTILE_TAIL_MAX x p99; lognormal: none, unbounded)."""
    lengths = stated_distribution(stated)
    top = {"fixed": lengths.mean, "percentiles": PERCENTILE_TAIL_MAX * lengths.quantile(0.99)}.get(stated["kind"])
    stats = {"mean": lengths.mean, "cv": lengths.cv, "max": top}
    stats |= {f"p{q}": lengths.quantile(q / 100) for q in (50, 90, 99)}
    return {f"{side}_tokens_kind": stated["kind"], **{f"{side}_tokens_{k}": stats[k] for k in STATS}}


def _measured(side: str, stats: dict[str, Any], kind: str) -> dict[str, Any]:
    return {f"{side}_tokens_kind": kind, **{f"{side}_tokens_{k}": stats.get(f"{side}_tokens_{k}") for k in STATS}}


def _none(side: str) -> dict[str, Any]:
    return {f"{side}_tokens_kind": None, **{f"{side}_tokens_{k}": None for k in STATS}}


def _said(stated: dict[str, Any] | None) -> str:
    return describe(stated) if stated else "not stated"


def _key(side: str, stated: dict[str, Any]) -> str:
    return f"workload.{side}_tokens_mean" if stated.get("cv_assumed") else f"workload.{side}_tokens"


def _lengths(profile: dict[str, Any], shape: dict[str, Any] | None, where: str) -> tuple[dict[str, Any], str, str]:
    """The length columns, the source and the lengths basis of a profile."""
    stated = {s: json.loads(profile[f"{s}_tokens_stated"]) if profile[f"{s}_tokens_stated"] else None for s in SIDES}
    columns: dict[str, Any] = {}
    if shape is not None:
        from_log = [s for s in SIDES if shape[f"{s}_tokens_mean"] is not None]
        for side in SIDES:
            side_stated = stated[side]
            if side in from_log and side_stated is not None:
                raise IngestError(
                    f"{where}: workload.traffic_log {shape['traffic_log']} has {side} lengths (mean "
                    f"{shape[f'{side}_tokens_mean']:,.0f}) and {_key(side, side_stated)} states them too; a profile "
                    f"states each fact once: remove {_key(side, side_stated)} (stated lengths fill only what a log "
                    "lacks)"
                )
            if side in from_log:
                columns |= _measured(side, shape, "empirical_log")
            else:
                columns |= _stated_stats(side, side_stated) if side_stated else _none(side)
        n = f"{shape['requests']:,}"
        said = {s: f"the log's (mean {shape[f'{s}_tokens_mean']:,.0f})" for s in from_log}
        said |= {s: f"stated, {_said(stated[s])}" for s in SIDES if s not in from_log and stated[s]}
        if len(from_log) == 2:
            means = f"{shape['input_tokens_mean']:,.0f} / {shape['output_tokens_mean']:,.0f}"
            return columns, "log", f"the log's {n} requests (mean {means} tokens)"
        source = "log_and_stated" if any(stated.values()) else "log"
        texts = "; ".join(f"{s} {said.get(s, 'not stated (the log has none)')}" for s in SIDES)
        return columns, source, f"{texts} (log of {n} requests)"
    if profile["lengths_file"]:
        frame = read_lengths_file(profile["lengths_file"])
        for side in SIDES:
            columns |= _measured(side, token_stats(side, frame.get_column(f"{side}_tokens")), "empirical_file")
        means = f"{columns['input_tokens_mean']:,.0f} / {columns['output_tokens_mean']:,.0f}"
        return columns, "lengths_file", f"the lengths file's {frame.height:,} requests (mean {means} tokens)"
    for side in SIDES:
        side_stated = stated[side]
        columns |= _stated_stats(side, side_stated) if side_stated else _none(side)
    if not any(stated.values()):
        return columns, "none", "not stated: no token mix"
    return (
        columns,
        "stated",
        "stated: " + "; ".join(f"{s} {_said(stated[s])}" for s in SIDES),
    )


def _arrivals(profile: dict[str, Any], shape: dict[str, Any] | None) -> tuple[dict[str, Any], str]:
    """The arrival columns and the arrivals basis of a profile."""
    if shape is not None:
        per_day = shape["requests_per_day"]
        scaled = f"scaled to {per_day:,.0f} a day" if per_day else f"at its own {shape['mean_requests_per_s']:.3g}/s"
        columns = {
            "arrival_source": "log",
            "arrival_cv": shape["interarrival_cv"],
            "requests_per_day": per_day,
            "mean_requests_per_s": shape["mean_requests_per_s"],
            "peak_requests_per_s": shape["peak_requests_per_s"],
            "peak_to_mean": shape["peak_to_mean"],
            "peak_window_s": shape["window_s"],
            "rate_windows": shape["windows"],
        }
        cv = shape["interarrival_cv"]
        return columns, f"the log, CV {cv:.2f}, {scaled}" if cv is not None else f"the log, {scaled}"
    cv, per_day = profile["arrival_cv"], profile["requests_per_day"]
    mean = profile["mean_requests_per_s"] or (per_day / SECONDS_PER_DAY if per_day else None)
    peak = mean * profile["peak_to_mean"] if mean and profile["peak_to_mean"] else None
    columns = {
        "arrival_source": "stated" if cv is not None else "assumed",
        "arrival_cv": cv,
        "requests_per_day": per_day,
        "mean_requests_per_s": mean,
        "peak_requests_per_s": peak,
        "peak_to_mean": profile["peak_to_mean"],
        "peak_window_s": profile["peak_window_s"],
        "rate_windows": None,
    }
    said = f"stated CV {cv:g}" if cv is not None else "Poisson (CV 1 assumed: no workload.arrival_cv)"
    volume = f", mean {mean:.3g}/s, peak {peak:.3g}/s (stated)" if mean and peak else ", no volume stated"
    return columns, said + volume


def resolve(profile: dict[str, Any], shape: dict[str, Any] | None) -> dict[str, Any]:
    """A profile's requirement.workload row from its requirement.profiles row and its traffic log's
    requirement.traffic_shape row (None without a log); IngestError naming the file, the profile and the keys."""
    where = f"{profile['source']}: profile {profile['profile']!r}"
    if profile["traffic_log"] and shape is None:
        log = profile["traffic_log"]
        raise IngestError(f"{where}: workload.traffic_log {log} has no requirement.traffic_shape row (build it first)")
    lengths, source, lengths_basis = _lengths(profile, shape, where)
    arrivals, arrivals_basis = _arrivals(profile, shape)
    values = {
        "profile": profile["profile"],
        "source": source,
        "traffic_log": shape["traffic_log"] if shape is not None else None,
        "lengths_file": profile["lengths_file"],
        **lengths,
        **arrivals,
        "lengths_basis": lengths_basis,
        "arrivals_basis": arrivals_basis,
        "basis": f"lengths: {lengths_basis}; arrivals: {arrivals_basis}",
        "evidence": "requirement",
    }
    return row_for(Workload, values, origin=(profile["source"], f"profile {profile['profile']}"))


def workload_rows(conn: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """requirement.workload rows: every profile of requirement.profiles resolved with its traffic_shape row."""
    profiles = query_frame(conn, "SELECT * FROM requirement.profiles ORDER BY profile").to_dicts()
    shapes = {s["profile"]: s for s in query_frame(conn, "SELECT * FROM requirement.traffic_shape").to_dicts()}
    return [resolve(p, shapes.get(p["profile"])) for p in profiles]


def write_workload(conn: duckdb.DuckDBPyConnection) -> WriteReport:
    """requirement.workload, one row per profile."""
    return write_table(conn, "requirement.workload", frame_from_rows(workload_rows(conn), Workload), Workload)


def lengths_of(workload: dict[str, Any], side: str) -> Lengths | None:
    """The distribution a stated side of a requirement.workload row draws from (fixed, lognormal, percentiles);
    None for an empirical side (the log or the file is replayed itself) or one not stated."""
    kind, mean = workload[f"{side}_tokens_kind"], workload[f"{side}_tokens_mean"]
    if kind == "fixed":
        return Lengths.fixed(mean)
    if kind == "lognormal":
        return Lengths.lognormal(mean, workload[f"{side}_tokens_cv"])
    if kind == "percentiles":
        return Lengths.percentiles(*(workload[f"{side}_tokens_p{q}"] for q in (50, 90, 99)))
    return None
