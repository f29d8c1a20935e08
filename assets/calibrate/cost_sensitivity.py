"""calibrated.cost_sensitivity: what the token mix and the bursts cost, per profile x config x variant x price.

For every profile x config whose calibrated.delivered_at_slo band bills, the profile's traffic (as that table ran
it: assets/calibrate/our_traffic.py) with prompts and answers halved and doubled, and at Poisson arrivals where ours
are not, is run through the config's engine model (assets/calibrate/sensitivity.py). Each variant's delivered band
is our mix's band times the variant's rate ratio; sql/calibrated/cost_sensitivity.sql prices the bands with the cost
macros of sql/macros.sql (the arithmetic of cost.cost_per_request and marts.capacity_plan). A config whose band does
not bill is one row saying why; the rest builds.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import duckdb
import polars as pl

from assets.calibrate import project, sensitivity
from assets.calibrate.our_traffic import params_of, traffic_of
from assets.warehouse.frames import query_frame
from assets.warehouse.sqlfiles import run_sql_file
from assets.warehouse.validate import frame_from_rows
from assets.warehouse.write import WriteReport, write_table
from schemas.calibrated.cost_sensitivity import CostSensitivity

SQL = "calibrated/cost_sensitivity.sql"
RATES = "sensitivity_rates"  # the relation the SQL prices
_RATE_SCHEMA = {
    "profile": pl.String,
    "config_key": pl.String,
    "config_label": pl.String,
    "run_labels": pl.String,
    "model_id": pl.String,
    "model_key": pl.String,
    "accelerator_id": pl.String,
    "accelerator_count": pl.Int64,
    "variant": pl.String,
    "status": pl.String,
    "status_reason": pl.String,
    "input_tokens_mean": pl.Float64,
    "output_tokens_mean": pl.Float64,
    "interarrival_cv": pl.Float64,
    "rate_ratio": pl.Float64,
    "rate_found": pl.String,
    "delivered_requests_per_s_low": pl.Float64,
    "delivered_requests_per_s_high": pl.Float64,
    "delivered_requests_per_s_model": pl.Float64,
    "band_rel_error": pl.Float64,
    "band_basis": pl.String,
    "heldout_rel_error_median": pl.Float64,
    "heldout_rel_error_worst": pl.Float64,
    "prefill_share": pl.Float64,
    "traffic_basis": pl.String,
}


def _finite(value: float | None) -> float | None:
    return float(value) if value is not None and math.isfinite(value) else None


def _scaled(value: float | None, ratio: float) -> float | None:
    return value * ratio if value is not None else None


def rate_rows(delivered: dict[str, Any], variants: list[sensitivity.Variant]) -> list[dict[str, Any]]:
    """One rate row per variant: our mix's band (a calibrated.delivered_at_slo row) times the variant's rate ratio;
    the model's own rate (the band's middle) likewise."""
    base = {k: delivered[k] for k in ("profile", "config_key", "config_label", "run_labels", "model_id", "model_key")}
    base |= {k: delivered[k] for k in ("accelerator_id", "accelerator_count", "band_rel_error", "band_basis")}
    base |= {k: delivered[k] for k in ("heldout_rel_error_median", "heldout_rel_error_worst")}
    low, high, error = (
        delivered[k] for k in ("delivered_requests_per_s_low", "delivered_requests_per_s_high", "band_rel_error")
    )
    lower_bound = delivered["status"] == "lower_bound"
    rows = []
    for v in variants:
        row = base | {
            "variant": v.variant,
            "input_tokens_mean": v.input_tokens_mean,
            "output_tokens_mean": v.output_tokens_mean,
            "interarrival_cv": _finite(v.interarrival_cv),
            "rate_found": v.found,
            "prefill_share": _finite(v.prefill_share),
            "traffic_basis": delivered["traffic_basis"] if v.variant == "our_mix" else None,
            "status_reason": None,
        }
        ratio = _finite(v.rate_ratio)
        if ratio is None or ratio <= 0:
            reason = f"{v.variant}: the model finds no SLO rate ({v.found})"
            rows.append(row | {"status": "misses_slo", "status_reason": reason})
            continue
        rows.append(
            row
            | {
                "status": "lower_bound" if lower_bound else "priced",
                "status_reason": "our mix's calibrated rate is a lower bound: no high rate, no low cost"
                if lower_bound
                else None,
                "rate_ratio": ratio,
                "delivered_requests_per_s_low": low * ratio,
                "delivered_requests_per_s_high": _scaled(high, ratio),
                "delivered_requests_per_s_model": low * (1 + error) * ratio,
            }
        )
    return rows


def _unpriced(delivered: dict[str, Any], variant: str, status: str, reason: str) -> dict[str, Any]:
    keys = (
        "profile",
        "config_key",
        "config_label",
        "run_labels",
        "model_id",
        "model_key",
        "accelerator_id",
        "accelerator_count",
    )
    return {k: delivered[k] for k in keys} | {"variant": variant, "status": status, "status_reason": reason}


def sensitivity_rows(
    delivered: dict[str, Any], profile: dict[str, Any], bounds: dict[str, float], model: dict[str, Any]
) -> list[dict[str, Any]]:
    """The rate rows of one profile x config (a calibrated.delivered_at_slo row, its profile's requirement.workload
    row, its bounds and model)."""
    if not delivered["bills"]:
        reason = (
            f"the config's calibrated band does not bill ({delivered['status']}"
            f"{': ' + delivered['status_reason'] if delivered['status_reason'] else ''}): nothing to price"
        )
        return [_unpriced(delivered, "our_mix", "not_priced", reason)]
    traffic = traffic_of(profile)
    rows = rate_rows(delivered, sensitivity.variants(params_of(model), traffic, bounds))
    if not sensitivity.has_bursts(traffic):
        cv = traffic.interarrival_cv
        reason = f"our arrivals are Poisson already (inter-arrival CV {cv:g}, no traffic log): no bursts to price"
        rows.append(_unpriced(delivered, sensitivity.POISSON, "same_arrivals", reason))
    return rows


def all_rate_rows(conn: duckdb.DuckDBPyConnection, log: Callable[[str], None] | None = None) -> list[dict[str, Any]]:
    """The rate rows of every calibrated.delivered_at_slo row."""
    profiles = {p["profile"]: p for p in query_frame(conn, "SELECT * FROM requirement.workload").to_dicts()}
    models = {m["config_key"]: m for m in query_frame(conn, "SELECT * FROM calibrated.engine_models").to_dicts()}
    bounds: dict[str, dict[str, float]] = {}
    for b in query_frame(
        conn, "SELECT profile, measure, bound FROM requirement.slo_bounds ORDER BY measure"
    ).to_dicts():
        bounds.setdefault(b["profile"], {})[b["measure"]] = b["bound"]
    rows = []
    delivered = query_frame(conn, "SELECT * FROM calibrated.delivered_at_slo ORDER BY profile, config_key")
    for d in delivered.to_dicts():
        try:
            pair = sensitivity_rows(d, profiles[d["profile"]], bounds.get(d["profile"], {}), models[d["config_key"]])
        except project.NoTraffic as problem:
            pair = [_unpriced(d, "our_mix", "not_priced", str(problem))]
        rows += pair
        if log is not None:
            log(f"{d['profile']} through {d['config_label']}: {len(pair)} variant row(s)")
    return rows


def write_cost_sensitivity(conn: duckdb.DuckDBPyConnection, log: Callable[[str], None] | None = None) -> WriteReport:
    """calibrated.cost_sensitivity: the variants' rates priced by sql/calibrated/cost_sensitivity.sql."""
    rates = pl.DataFrame(all_rate_rows(conn, log), schema=_RATE_SCHEMA)
    conn.register(RATES, rates)
    try:
        priced = run_sql_file(conn, SQL)
    finally:
        conn.unregister(RATES)
    return write_table(
        conn,
        "calibrated.cost_sensitivity",
        priced if len(priced) else frame_from_rows([], CostSensitivity),
        CostSensitivity,
    )
