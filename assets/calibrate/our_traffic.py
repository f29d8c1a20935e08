"""calibrated.latency_curve and calibrated.delivered_at_slo: every profile's traffic through every config of its model.

Read from the warehouse: the profiles and their bounds (requirement.profiles, requirement.slo_bounds), the engine
models (calibrated.engine_models: the fitted parameters, nothing is refitted here) and their held-out errors
(calibrated.validation). A profile's traffic is its workload (requirement.workload): its traffic log (read by the
capacity plan's reader, assets/request_records/traffic_shape.py) scaled to its volume, else its lengths file or
stated length distributions at its arrival CV.
Whatever cannot be done (a config without a measured error, a profile without a token mix, a bound on a percentile
the config's runs never measured) is said on the profile x config's row; the rest builds.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import duckdb
import numpy as np
import polars as pl

from assets.calibrate import project
from assets.calibrate.engine import EngineParams
from assets.calibrate.levels import METRICS
from assets.calibrate.traffic import Lengths
from assets.calibrate.workload import lengths_of
from assets.core.errors import IngestError
from assets.request_records.lengths import read_lengths_file
from assets.request_records.traffic_shape import SECONDS_PER_DAY, read_traffic_arrivals
from assets.warehouse.frames import query_frame
from assets.warehouse.rows import row_for
from assets.warehouse.validate import frame_from_rows
from assets.warehouse.write import WriteReport, write_table
from schemas.calibrated.delivered_at_slo import DeliveredAtSlo
from schemas.calibrated.latency_curve import LatencyCurve

CURVED = ("fitted", "unreliable")  # the statuses whose models are run (an unreliable one is marked, never bills)
PERCENTILES = ("p50", "p90", "p95", "p99")


def params_of(model: dict[str, Any]) -> EngineParams:
    """The engine parameters of a calibrated.engine_models row."""
    return EngineParams(
        b0_ms=model["step_b0_ms"],
        b1_ms=model["step_b1_ms_per_prefill_token"],
        b2_ms=model["step_b2_ms_per_decode_token"],
        b3_ms=model["step_b3_ms_per_prefill_token_per_1k_context"],
        max_num_seqs=model["max_running_sequences"],
        max_batched_tokens=model["token_budget_per_step"],
        kv_tokens=model["kv_cache_tokens"] if model["kv_cache_tokens"] is not None else math.inf,
        mixed=model["scheduling"] == "mixed",
        chunked=bool(model["chunked_prefill"]),
        replicas=int(model["replicas"]),
        ttft_overhead_ms=model["request_overhead_ms"],
    )


def traffic_of(workload: dict[str, Any]) -> project.Traffic:
    """A profile's traffic from its requirement.workload row: its log replayed (scaled to our volume; lengths the
    log lacks drawn from the stated ones), else its lengths file resampled or its stated lengths drawn, at its
    arrival CV; NoTraffic (in words) when it gives no token mix."""
    log, per_day = workload["traffic_log"], workload["requests_per_day"]
    per_s = per_day / SECONDS_PER_DAY if per_day else (None if log else workload["mean_requests_per_s"])
    stated = (lengths_of(workload, "input"), lengths_of(workload, "output"))
    basis = f"workload {workload['basis']}"
    if log:
        try:
            frame = read_traffic_arrivals(log)
        except IngestError as problem:
            raise project.NoTraffic(str(problem)) from None
        lengths = [frame.get_column(c) for c in ("input_tokens", "output_tokens")]
        arrays = [None if s.null_count() else s.to_numpy() for s in lengths]
        starts = frame.get_column("start_offset_s").to_numpy()
        return project.from_log(starts, arrays[0], arrays[1], log, per_s, stated, basis)
    if workload["lengths_file"]:
        try:
            frame = read_lengths_file(workload["lengths_file"])
        except IngestError as problem:
            raise project.NoTraffic(str(problem)) from None
        inputs, outputs = (Lengths.empirical(frame.get_column(c).to_numpy()) for c in ("input_tokens", "output_tokens"))
        return project.from_lengths(inputs, outputs, workload["arrival_cv"], per_s, basis)
    if stated[0] is None or stated[1] is None:
        raise project.NoTraffic(
            "the workload gives no token mix (requirement.workload: "
            f"{workload['lengths_basis']}): state workload.input_tokens and output_tokens, or a traffic log"
        )
    return project.from_lengths(stated[0], stated[1], workload["arrival_cv"], per_s, basis)


def _traffic_or_why(workload: dict[str, Any]) -> project.Traffic | project.NoTraffic:
    try:
        return traffic_of(workload)
    except project.NoTraffic as problem:
        return problem


def unjudged(bounds: dict[str, float], model: dict[str, Any]) -> list[str]:
    """The profile's latency bounds the config cannot judge: a percentile none of its levels measured at that
    percentile or a higher one of the same measure (the tail the model was held to must reach the bound's)."""
    measured = set(json.loads(model["metrics_measured"] or "[]"))
    out = []
    for key in bounds:
        if key not in METRICS:
            continue
        measure, pct = key.split("_")[:2]
        higher = PERCENTILES[PERCENTILES.index(pct) :]
        if not any(f"{measure}_{p}_ms" in measured for p in higher):
            out.append(key)
    return out


@dataclass(frozen=True)
class HeldOut:
    """The held-out error a config's band carries, and which one, in words."""

    error: float | None
    basis: str | None


def held_out_error(model: dict[str, Any], slo_errors: list[float]) -> HeldOut:
    """The config's median held-out delivered-at-SLO error on workloads it never saw; with none measured, its median
    held-out p95 TTFT error below the knee; else its median held-out error over every scored metric."""
    if slo_errors:
        n = len(slo_errors)
        return HeldOut(float(np.median(slo_errors)), f"median held-out delivered-at-SLO error ({n} workloads left out)")
    p95 = model["heldout_ttft_p95_below_knee_rel_error_median"]
    if p95 is not None:
        return HeldOut(p95, "median held-out p95 TTFT error below the knee (levels left out; one workload)")
    if model["heldout_rel_error_median"] is not None:
        return HeldOut(model["heldout_rel_error_median"], "median held-out error over every scored metric")
    return HeldOut(None, None)


def _finite(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None


def curve_rows(profile: str, model: dict[str, Any], curve: list[dict[str, Any]], basis: str) -> list[dict[str, Any]]:
    rows = []
    for i, point in enumerate(curve):
        values = {
            "profile": profile,
            "config_key": model["config_key"],
            "config_label": model["config_label"],
            "model_key": model["model_key"],
            "run_labels": model["run_labels"],
            "config_status": model["status"],
            "point_index": i,
            "requests_per_s": point["requests_per_s"],
            "sent_requests_per_s": _finite(point["sent_requests_per_s"]),
            "achieved_requests_per_s": _finite(point["achieved_requests_per_s"]),
            **{m: _finite(point[m]) for m in METRICS},
            "error_rate": _finite(point["error_rate"]),
            "prefill_share": _finite(point["prefill_share"]),
            "traffic_basis": basis,
            "traffic_sample": point["traffic_sample"],
            "evidence": "calibrated",
        }
        rows.append(row_for(LatencyCurve, values, origin=(model["config_key"], f"{profile} point {i}")))
    return rows


def _judge(
    model: dict[str, Any],
    bounds: dict[str, float],
    traffic: project.Traffic,
    curve: list[dict[str, Any]],
    held: HeldOut,
) -> dict[str, Any]:
    """status, reason, band and binding bound of one profile x config from its curve."""
    found = project.delivered_at_slo(curve, bounds)
    out: dict[str, Any] = {"binding_measure": found.binding, "low": None, "high": None}
    if found.found == "lightest point misses":
        lightest = curve[0]["requests_per_s"]
        reason = f"even at {lightest:.3g} requests/s (the lightest point) {found.binding} misses its bound"
        return out | {"status": "misses_slo", "reason": reason}
    assert held.error is not None
    low, high = project.band(found.requests_per_s, held.error)
    out |= {"status": "delivered", "reason": None, "low": low, "high": high}
    if found.found == "every point meets":
        reason = "every point of the curve, to past saturation, meets the SLO: the rate is at least the band's low end"
        return out | {"status": "lower_bound", "reason": reason, "high": None}
    most = model["measured_tokens_per_s_max"]
    tokens = traffic.input_tokens_mean + traffic.output_tokens_mean
    if model["saturated_levels"] == 0 and most and found.requests_per_s * tokens > most:
        reached = most / tokens
        reason = (
            f"the config's levels never saturated (its caps are the runtime's defaults, never seen binding): the model "
            f"puts the SLO at {found.requests_per_s:.3g} requests/s, beyond the {most:,.0f} tokens/s it was measured "
            f"to serve ({reached:.3g} requests/s of our mix); the rate is at least that"
        )
        return out | {"status": "lower_bound", "reason": reason, "low": reached / (1 + held.error), "high": None}
    return out


def project_pair(
    profile: dict[str, Any],
    bounds: dict[str, float],
    model: dict[str, Any],
    slo_errors: list[float],
    traffic: project.Traffic | project.NoTraffic | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One profile x config (`profile`: its requirement.workload row, with its model_id): its
    calibrated.delivered_at_slo row and its calibrated.latency_curve rows. `traffic`: the profile's traffic (or why
    there is none) when already read, else read here (`traffic_of`)."""
    name = profile["profile"]
    held = held_out_error(model, slo_errors)
    row: dict[str, Any] = {
        "profile": name,
        "model_id": model["model_id"],
        "model_key": model["model_key"],
        "config_key": model["config_key"],
        "config_label": model["config_label"],
        "accelerator_id": model["accelerator_id"],
        "accelerator_count": model["accelerator_count"],
        "precision": model["precision"],
        "runtime": model["runtime"],
        "runtime_version": model["runtime_version"],
        "run_labels": model["run_labels"],
        "config_status": model["status"],
        "status": "not_calibrated",
        "status_reason": None,
        "bills": False,
        "slo_text": "; ".join(f"{k} <= {v:g}" for k, v in bounds.items()),
        "binding_measure": None,
        "delivered_requests_per_s_low": None,
        "delivered_requests_per_s_high": None,
        "band_rel_error": held.error,
        "band_basis": held.basis,
        "heldout_rel_error_median": model["heldout_rel_error_median"],
        "heldout_rel_error_worst": model["heldout_rel_error_worst"],
        "saturation_requests_per_s": None,
        "traffic_requests_per_s": None,
        "traffic_interarrival_cv": None,
        "input_tokens_mean": None,
        "output_tokens_mean": None,
        "traffic_basis": None,
        "traffic_sample": None,
        "evidence": "calibrated",
    }
    origin = (model["config_key"], f"profile {name}")
    if model["status"] not in CURVED or held.error is None:
        why = model["status_reason"] or "its held-out error was not measured"
        row["status_reason"] = f"no engine model with a measured error ({model['status']}: {why})"
        return row_for(DeliveredAtSlo, row, origin), []
    if traffic is None:
        traffic = _traffic_or_why(profile)
    if isinstance(traffic, project.NoTraffic):
        row |= {"status": "no_traffic", "status_reason": str(traffic)}
        return row_for(DeliveredAtSlo, row, origin), []
    row |= {
        "traffic_requests_per_s": traffic.requests_per_s,
        "traffic_interarrival_cv": _finite(traffic.interarrival_cv),
        "input_tokens_mean": traffic.input_tokens_mean,
        "output_tokens_mean": traffic.output_tokens_mean,
        "traffic_basis": traffic.basis,
    }
    try:
        curve = project.latency_curve(params_of(model), traffic)
    except project.NoTraffic as problem:
        row |= {"status": "no_traffic", "status_reason": str(problem)}
        return row_for(DeliveredAtSlo, row, origin), []
    row["saturation_requests_per_s"] = curve[-1]["requests_per_s"] / project.CURVE_HIGH
    row["traffic_sample"] = curve[0]["traffic_sample"]
    curve_out = curve_rows(name, model, curve, traffic.basis)
    missing = unjudged(bounds, model)
    if missing:
        measured = ", ".join(json.loads(model["metrics_measured"] or "[]")) or "none"
        row["status"] = "not_judged"
        row["status_reason"] = (
            f"the config's runs never measured {', '.join(missing)} (nor a higher percentile of it): the model "
            f"cannot be held to that bound (measured: {measured})"
        )
        return row_for(DeliveredAtSlo, row, origin), curve_out
    # A per-token bound no point of the curve has a value for: no answer of our mix has a second token (a zero-token
    # log), so there is no time per output token to miss; judged on the other bounds, said.
    tokenless = [k for k in bounds if k.startswith(("tpot_", "itl_")) and all(_finite(p[k]) is None for p in curve)]
    judged = _judge(model, {k: v for k, v in bounds.items() if k not in tokenless}, traffic, curve, held)
    reason = judged["reason"]
    if tokenless:
        note = f"{', '.join(tokenless)} not judged: no answer of our traffic has a second token"
        reason = f"{reason}; {note}" if reason else note
    if model["status"] == "unreliable":
        reason = (
            f"{reason + '; ' if reason else ''}the engine model is unreliable ({model['status_reason']}): never bills"
        )
    row |= {
        "status": judged["status"],
        "status_reason": reason,
        "binding_measure": judged["binding_measure"],
        "delivered_requests_per_s_low": judged["low"],
        "delivered_requests_per_s_high": judged["high"],
        "bills": judged["status"] in ("delivered", "lower_bound") and model["status"] == "fitted",
    }
    return row_for(DeliveredAtSlo, row, origin), curve_out


def project_all(
    conn: duckdb.DuckDBPyConnection, log: Callable[[str], None] | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every profile x config of its model: (delivered_at_slo rows, latency_curve rows)."""
    profiles = query_frame(
        conn,
        "SELECT p.profile, p.model_id, p.model_key, w.* EXCLUDE (profile) FROM requirement.profiles AS p "
        "JOIN requirement.workload AS w USING (profile) ORDER BY profile",
    ).to_dicts()
    bounds: dict[str, dict[str, float]] = {}
    slo = query_frame(conn, "SELECT profile, measure, bound FROM requirement.slo_bounds ORDER BY profile, measure")
    for b in slo.to_dicts():
        bounds.setdefault(b["profile"], {})[b["measure"]] = b["bound"]
    models = query_frame(conn, "SELECT * FROM calibrated.engine_models ORDER BY config_key").to_dicts()
    slo_errors: dict[str, list[float]] = {}
    for v in query_frame(
        conn,
        "SELECT config_key, relative_error FROM calibrated.validation WHERE metric = 'delivered_at_slo_requests_per_s' "
        "AND scored AND relative_error IS NOT NULL",
    ).to_dicts():
        slo_errors.setdefault(v["config_key"], []).append(v["relative_error"])
    delivered, curves = [], []
    for profile in profiles:
        pairs = [m for m in models if m["model_key"] == profile["model_key"]]  # the one rule: canonical.model_key
        traffic = _traffic_or_why(profile) if pairs else None  # a log is read once per profile
        for model in pairs:
            row, curve = project_pair(
                profile, bounds.get(profile["profile"], {}), model, slo_errors.get(model["config_key"], []), traffic
            )
            delivered.append(row)
            curves += curve
            if log is not None:
                log(f"{profile['profile']} through {model['config_label']}: {row['status']}")
    return delivered, curves


PROJECTION_TABLES = ("calibrated.latency_curve", "calibrated.delivered_at_slo")


def write_projections(
    conn: duckdb.DuckDBPyConnection, log: Callable[[str], None] | None = None, tables: list[str] | None = None
) -> dict[str, WriteReport]:
    """calibrated.latency_curve and calibrated.delivered_at_slo (those of `tables`, default both: one projection
    gives both)."""
    delivered, curves = project_all(conn, log)
    frames: dict[str, tuple[pl.DataFrame, Any]] = {
        "calibrated.latency_curve": (frame_from_rows(curves, LatencyCurve), LatencyCurve),
        "calibrated.delivered_at_slo": (frame_from_rows(delivered, DeliveredAtSlo), DeliveredAtSlo),
    }
    chosen = list(PROJECTION_TABLES) if tables is None else tables
    return {table: write_table(conn, table, *frames[table]) for table in chosen}
