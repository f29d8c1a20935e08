"""calibrated.engine_models and calibrated.validation: every config fitted, validated, judged and written."""

from __future__ import annotations

import json
import math
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import duckdb
import numpy as np

from assets.calibrate.bounds import FitBudget, capped_levels
from assets.calibrate.fit import Fit, Simulations, calibrate
from assets.calibrate.fit_start import NoTiming
from assets.calibrate.levels import METRICS, Config, Level, read_configs, unserved_words
from assets.calibrate.record_lengths import level_lengths, with_record_lengths
from assets.calibrate.validate import Row, validate_config
from assets.warehouse.rows import row_for
from assets.warehouse.validate import frame_from_rows
from assets.warehouse.write import WriteReport, write_table
from schemas.calibrated.engine_models import EngineModels
from schemas.calibrated.validation import Validation

MIN_LEVELS = 4  # one held out, three left to fit: the least that measures the error
MIN_LEVELS_TO_FIT = 2  # below it there is no load curve to fit at all
UNRELIABLE_ABOVE = 0.25  # the rule: median held-out p95 TTFT error below the knee, or a delivered-at-SLO error
FAILED_ABOVE = 0.05  # levels with more failed requests are neither fitted nor scored


@dataclass
class Calibration:
    """One config's fit (None when too few levels), its held-out rows, its status and the time they took."""

    config: Config
    fit: Fit | None
    rows: list[Row] = field(default_factory=list)
    status: str = "fitted"
    reason: str | None = None
    seconds: float = 0.0
    fitted_levels: list[Level] | None = None  # the levels fitted on when a sweep has more than a fit takes
    failed: bool = False  # the fit raised: a fault said on the config's row, not a result to keep


def usable_levels(cfg: Config) -> int:
    """Effective levels with at most 5% failed requests."""
    return len(
        {
            (lv.workload_key, lv.effective_load)
            for lv in cfg.levels
            if (lv.measured.get("error_rate") or 0) <= FAILED_ABOVE
        }
    )


def _median(values: list[float]) -> float | None:
    return float(np.median(values)) if values else None


def status_of(levels: int, rows: list[Row]) -> tuple[str, str | None]:
    """fitted, too_few_levels or unreliable (with the reason in words) from the usable levels and held-out rows."""
    if levels < MIN_LEVELS:
        if levels <= 1:
            said = "one load level" if levels == 1 else "no usable load level"
            return "too_few_levels", f"{said}: no load curve to fit and nothing to hold out; not calibrated"
        return (
            "too_few_levels",
            f"{levels} load levels: fitted on all of them, but {MIN_LEVELS} are needed to hold one out and still fit, "
            "so its error is not measured",
        )
    reasons = []
    p95 = [r.rel_error for r in rows if r.scored and r.test == "lolo" and r.metric == "ttft_p95_ms" and r.below_knee]
    median_p95 = _median([abs(e) for e in p95])
    if median_p95 is not None and median_p95 > UNRELIABLE_ABOVE:
        reasons.append(f"median held-out error on p95 TTFT below the knee {median_p95:.0%} (over 25%)")
    for r in rows:
        if r.scored and r.test == "lowo_slo" and abs(r.rel_error) > UNRELIABLE_ABOVE:
            reasons.append(f"delivered at SLO of held-out workload {r.held_out!r} off by {r.rel_error:+.0%}")
    if reasons:
        return "unreliable", "; ".join(reasons)
    return "fitted", None


def calibrate_config(cfg: Config, validate: bool = True, log: Callable[[str], None] | None = None) -> Calibration:
    """Fit one config on all its served levels (at most MAX_LEVELS_PER_FIT of them, within a time bound: bounds.py)
    and, with 4 or more, measure its held-out error; a long fit tells `log` where it is. A config none of whose levels
    was served is not_calibrated, said."""
    t0 = time.perf_counter()
    left_out = unserved_words(cfg)
    if not cfg.levels and left_out is not None:
        why = f"no load level served anything: {left_out}; nothing to fit"
        return Calibration(cfg, None, [], "not_calibrated", why, time.perf_counter() - t0)
    n = usable_levels(cfg)
    levels, capped = capped_levels(cfg.levels)
    fitted, budget = replace(cfg, levels=levels), FitBudget(cfg.label, log)
    sims = Simulations()  # the held-out refits start where the fit ended: its last simulations are theirs
    try:
        fit = calibrate(fitted, budget=budget, sims=sims) if n >= MIN_LEVELS_TO_FIT else None
    except NoTiming as problem:  # said in words, not as the exception it raised
        return Calibration(cfg, None, [], "not_calibrated", str(problem), time.perf_counter() - t0)
    rows = validate_config(fitted, fit, budget, sims) if (validate and n >= MIN_LEVELS) else []
    if fit is not None:
        fit.notes += [note for note in (capped, budget.note) if note]
    status, reason = status_of(n, rows)
    if left_out is not None and reason is not None:
        reason = f"{reason}; {left_out}"
    if budget.note and status == "fitted":  # its error not measured on every level: marked, never bills
        status, reason = "unreliable", f"the time bound cut its fit or held-out validation short ({budget.note})"
    return Calibration(cfg, fit, rows, status, reason, time.perf_counter() - t0, levels if capped else None)


class CalibrationStore(Protocol):
    """Where calibrations are kept between runs (`fit_store.FitStore`): a config's stored one while its evidence is
    unchanged, else the one `compute` gives."""

    def calibration(self, cfg: Config, compute: Callable[[], Calibration]) -> Calibration: ...

    def holds(self, cfg: Config) -> bool: ...

    def keep_only(self, configs: list[Config]) -> None: ...

    def summary(self) -> str: ...


def _calibrated(cfg: Config, log: Callable[[str], None] | None) -> Calibration:
    """`calibrate_config`, a fault said on the config's own row (`failed`) rather than raised."""
    try:
        return calibrate_config(cfg, log=log)
    except Exception as exc:  # a config the model cannot take is said on its own row; the rest builds
        detail = "".join(traceback.format_exception_only(exc)).strip()
        tb = traceback.extract_tb(exc.__traceback__)[-1]
        where = f"{Path(tb.filename).name}:{tb.lineno}"
        why = f"the model could not be fitted ({where}): {detail}"
        return Calibration(cfg, None, [], "not_calibrated", why, failed=True)


def calibrate_all(
    conn: duckdb.DuckDBPyConnection,
    log: Callable[[str], None] | None = None,
    store: CalibrationStore | None = None,
) -> list[Calibration]:
    """Every config of the warehouse, calibrated (with a `store`, a config whose evidence is unchanged reuses its
    stored calibration; the store's summary line says which were refitted)."""
    out = []
    # with a store, per-request lengths are read (in one pass) only for the configs fitted now: a stored fit needs none
    configs = read_configs(conn) if store is None else read_configs(conn, record_lengths=False)
    stale = [cfg for cfg in configs if store is not None and not store.holds(cfg)]
    runs = sorted({lv.run_id for cfg in stale for lv in cfg.levels if lv.records_key})
    lengths = level_lengths(conn, runs) if runs else {}
    for cfg in configs:
        fitted: list[Calibration] = []

        def compute(cfg: Config = cfg, fitted: list[Calibration] = fitted) -> Calibration:
            fitted.append(_calibrated(cfg if store is None else with_record_lengths(cfg, lengths), log))
            return fitted[-1]

        result = compute() if store is None else store.calibration(cfg, compute)
        if log is not None:
            how = f"{result.seconds:.1f} s" if fitted else f"stored fit reused, fitted in {result.seconds:.1f} s"
            log(f"{cfg.label}: {result.status} ({usable_levels(cfg)} levels, {how})")
        out.append(result)
    if store is not None:
        store.keep_only(configs)
        if log is not None:
            log(store.summary())
    return out


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def model_row(c: Calibration) -> dict[str, Any]:
    cfg, fit = c.config, c.fit
    p = fit.params if fit else None
    scored = [abs(r.rel_error) for r in c.rows if r.scored]
    p95 = [abs(r.rel_error) for r in c.rows if r.scored and r.test == "lolo" and r.metric == "ttft_p95_ms"]
    slo = [abs(r.rel_error) for r in c.rows if r.scored and r.test == "lowo_slo"]
    levels = sorted({f"{lv.workload_key} | {_load_text(lv.effective_load)}" for lv in c.fitted_levels or cfg.levels})
    values = {
        "config_key": cfg.key,
        "config_label": cfg.label,
        "accelerator_id": cfg.accelerator,
        "accelerator_count": cfg.count,
        "model_id": cfg.model if cfg.model_known else None,
        "model_key": cfg.model,
        "precision": cfg.precision,
        "runtime": cfg.runtime,
        "runtime_version": cfg.runtime_version,
        "engine_settings": json.dumps(cfg.settings, sort_keys=True, default=str),
        "run_labels": json.dumps(cfg.run_labels),
        "workloads": len(cfg.workloads),
        "workloads_fitted": json.dumps(cfg.workloads),
        "load_levels": usable_levels(cfg),
        "load_levels_fitted": json.dumps(levels),
        "saturated_levels": fit.saturated_levels if fit else 0,
        "metrics_measured": json.dumps(metrics_measured(cfg)),
        "measured_tokens_per_s_max": _most_tokens_per_s(cfg),
        "status": c.status,
        "status_reason": c.reason,
        "scheduling": None if p is None else ("mixed" if p.mixed else "separate"),
        "chunked_prefill": None if p is None else p.chunked,
        "replicas": None if p is None else p.replicas,
        "step_b0_ms": None if p is None else p.b0_ms,
        "step_b1_ms_per_prefill_token": None if p is None else p.b1_ms,
        "step_b2_ms_per_decode_token": None if p is None else p.b2_ms,
        "step_b3_ms_per_prefill_token_per_1k_context": None if p is None else p.b3_ms,
        "request_overhead_ms": None if p is None else p.ttft_overhead_ms,
        "token_budget_per_step": None if p is None else float(p.max_batched_tokens),
        "max_running_sequences": None if p is None else float(p.max_num_seqs),
        "kv_cache_tokens": None if p is None else _finite(p.kv_tokens),
        "fit_rel_error_median": _median(fit.in_sample_errors) if fit else None,
        "fit_rel_error_worst": max(fit.in_sample_errors) if fit and fit.in_sample_errors else None,
        "heldout_rel_error_median": _median(scored),
        "heldout_rel_error_worst": max(scored) if scored else None,
        "heldout_ttft_p95_below_knee_rel_error_median": _median(p95),
        "heldout_delivered_at_slo_rel_error_worst": max(slo) if slo else None,
        "fit_notes": "; ".join([*filter(None, [unserved_words(cfg)]), *(fit.notes if fit else [])]) or None,
        "evidence": "calibrated",
    }
    return row_for(EngineModels, values, origin=(cfg.key, "engine model"))


def metrics_measured(cfg: Config) -> list[str]:
    """The latency percentiles some usable level of the config measured (after the data rules of levels.py)."""
    found = set()
    for lv in cfg.levels:
        for m in METRICS:
            v = lv.measured.get(m)
            if isinstance(v, (int, float)) and math.isfinite(v) and v > 0:
                found.add(m)
    return [m for m in METRICS if m in found]


def _most_tokens_per_s(cfg: Config) -> float | None:
    """The most prompt + answer tokens/s any level of the config was measured to complete."""
    rates = [
        lv.measured["achieved_requests_per_s"]
        * ((lv.measured["input_tokens_mean"] or 0) + (lv.measured["output_tokens_mean"] or 0))
        for lv in cfg.levels
        if lv.measured.get("achieved_requests_per_s")
    ]
    return max(rates) if rates and max(rates) > 0 else None


def _load_text(load: tuple[Any, ...]) -> str:
    if load[0] == "c":
        return f"c={load[1]:g}"
    return f"r={load[1]:g}/s" + (f" cap={load[2]:g}" if load[2] is not None else "")


def validation_row(r: Row, model_key: str) -> dict[str, Any]:
    """One calibrated.validation row of a held-out prediction of a config of the model `model_key`."""
    error = r.rel_error
    values = {
        "config_key": r.config,
        "model_key": model_key,
        "heldout_kind": r.held_out_kind,
        "heldout": r.held_out,
        "workload": r.workload,
        "load": r.load,
        "metric": r.metric,
        "measured": r.measured,
        "predicted": _finite(r.predicted),
        "relative_error": abs(error) if math.isfinite(error) else None,
        "signed_relative_error": _finite(error),
        "below_knee": r.below_knee,
        "scored": r.scored,
        "note": r.note or None,
        "evidence": "calibrated",
    }
    return row_for(Validation, values, origin=(r.config, f"{r.held_out} {r.load} {r.metric}"))


def write_calibrated(
    conn: duckdb.DuckDBPyConnection,
    log: Callable[[str], None] | None = None,
    tables: list[str] | None = None,
    store: CalibrationStore | None = None,
) -> dict[str, WriteReport]:
    """Calibrate every config of the warehouse (reusing the `store`'s fits whose evidence is unchanged) and write
    calibrated.engine_models and calibrated.validation (those of `tables`, default both: one calibration gives both,
    so a subset costs the same)."""
    results = calibrate_all(conn, log, store)
    frames = {
        "calibrated.engine_models": (frame_from_rows([model_row(c) for c in results], EngineModels), EngineModels),
        "calibrated.validation": (
            frame_from_rows([validation_row(r, c.config.model) for c in results for r in c.rows], Validation),
            Validation,
        ),
    }
    chosen = list(frames) if tables is None else tables
    return {table: write_table(conn, table, *frames[table]) for table in chosen}
