"""Configs and their load levels as the engine model needs them, read from the warehouse's observed tables.

A *config* is everything but the workload and the load generator's settings: accelerator, count, model,
precision, runtime, its version and the engine settings (`config_key`, the one definition). A *workload* is
what the load generator sends besides the load (dataset, token targets, burstiness); the load generator's own
settings (request rate, concurrency cap, prompt count, seed) are the sweep's axis. Every run of one config,
whatever its workload, feeds one fit.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import duckdb
import numpy as np

from assets.calibrate.record_lengths import EMPIRICAL_FROM, level_lengths, records_keys, summarised_lengths
from assets.calibrate.traffic import Lengths, LoadSpec, burstiness_to_cv

# keys of observed.runs.workload that set the level, not the workload
LOAD_KEYS = {"max_concurrency", "request_rate", "num_prompts", "seed", "concurrency"}
# keys of observed.runs.runtime_settings that name things rather than set the engine
NAME_KEYS = {"model_id", "model", "server", "framework", "target", "gpu", "gateway"}
METRICS = [f"{m}_p{p}_ms" for m in ("ttft", "tpot", "itl", "e2e") for p in (50, 90, 95, 99)]

# In-flight cap of a load generator where the files do not state it but the tool has one: inference-perf's
# kubecon-na-2025 sweeps ran up to 44 workers of 10 concurrent requests (its README); Little's law on the
# saturated stages gives 430-435 requests in flight. An assumption, said in the docs.
TOOL_CLIENT_CAP = {"inference-perf": 440.0}

# What was not served is never fitted (nor billed): a level is fitted only when it completed at least this share of
# the requests sent to it. The share is of requests, not of the rate: a saturated open-loop level completes fewer
# requests per second than it is offered, yet completes what it is sent, and is what identifies the caps.
SERVED_SHARE_MIN = 0.5
UNSERVED_NAMED = 3  # levels named in a config's reasons; the rest are counted


def engine_settings(runtime_settings: str | None) -> dict[str, Any]:
    """observed.runs.runtime_settings (JSON) without the keys that only name things."""
    settings = _json(runtime_settings)
    return {k: v for k, v in settings.items() if k not in NAME_KEYS}


def config_key(
    accelerator: str,
    count: int,
    model: str,
    precision: str | None,
    runtime: str,
    runtime_version: str | None,
    settings: dict[str, Any],
) -> str:
    """The one definition of a config's key: a digest of everything but the workload and the load generator's
    settings (the canonical accelerator id where known, else as written; the model's key, canonical.model_key)."""
    identity = [accelerator, int(count), model, precision, runtime, runtime_version, settings]
    digest = hashlib.sha256(json.dumps(identity, sort_keys=True, default=str).encode()).hexdigest()
    return f"cfg-{digest[:12]}"


@dataclass
class Level:
    """One load point of one run, with the load as the tool applied it and what was measured."""

    config_key: str
    run_id: str
    run_label: str
    workload_key: str
    load_index: int
    load_kind: str  # rate | concurrency
    offered_rate: float | None
    concurrency: float | None
    n_requests: int  # per repeat
    arrival_cv: float
    client_cap: float
    inp: Lengths
    out: Lengths
    measured: dict[str, Any]  # METRICS + achieved_requests_per_s, error_rate, mean tokens
    notes: list[str] = field(default_factory=list)
    has_records: bool = False
    records_key: str = ""  # what its per-request records are (their sources), when their lengths are not read

    @property
    def effective_load(self) -> tuple[Any, ...]:
        """The load the server actually saw: a concurrency above the number of prompts is all prompts."""
        if self.load_kind == "concurrency":
            return ("c", min(self.concurrency or math.inf, self.n_requests))
        cap = min(self.client_cap, self.n_requests)
        return ("r", round(self.offered_rate or 0, 6), cap if math.isfinite(cap) else None)

    @property
    def load_size(self) -> float:
        """The effective load as one number (concurrency or rate), to order a workload's levels."""
        return float(self.effective_load[1])

    def load_spec(self) -> LoadSpec:
        if self.load_kind == "concurrency":
            return LoadSpec(n_requests=self.n_requests, client_cap=min(self.concurrency or math.inf, self.n_requests))
        return LoadSpec(
            n_requests=self.n_requests,
            rate=self.offered_rate or math.inf,
            cv=self.arrival_cv,
            client_cap=self.client_cap,
        )


@dataclass
class Config:
    """A config and every load level of its runs."""

    key: str
    label: str
    runtime: str
    runtime_version: str | None
    settings: dict[str, Any]
    accelerator: str
    count: int
    model: str  # the model's key (canonical.model_key): its canonical id where known
    precision: str | None
    levels: list[Level] = field(default_factory=list)
    unserved: list[str] = field(default_factory=list)  # the levels left out because the server did not serve them
    model_known: bool = True  # an alias table knows the model (then `model` is its canonical id)

    @property
    def workloads(self) -> list[str]:
        return sorted({lv.workload_key for lv in self.levels})

    @property
    def run_labels(self) -> list[str]:
        return sorted({lv.run_label for lv in self.levels})

    @property
    def n_levels(self) -> int:
        return len({(lv.workload_key, lv.effective_load) for lv in self.levels})


def _json(text: str | None) -> dict[str, Any]:
    if text is None:
        return {}
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _lengths(mean: float | None, workload: dict[str, Any], records: np.ndarray | None, which: str) -> Lengths:
    if records is not None and len(records) >= EMPIRICAL_FROM:
        return Lengths.empirical(records)
    m = float(mean) if mean and mean > 0 else 1.0
    dataset = str(workload.get("dataset_name", workload.get("data", ""))).lower()
    if "sharegpt" in dataset:
        # real chat data, only the mean known: a lognormal with the spread of ShareGPT's lengths (CV ~1)
        return Lengths.lognormal(m, 1.0)
    return Lengths.fixed(m)


def _arrival_cv(arrival: str | None, workload: dict[str, Any]) -> float:
    if arrival == "constant":
        return 0.0
    if arrival == "gamma":
        burst = workload.get("burstiness")
        return burstiness_to_cv(float(burst) if burst is not None else None)
    return 1.0


def read_configs(conn: duckdb.DuckDBPyConnection, record_lengths: bool = True) -> list[Config]:
    """Every config of observed.runs with its levels from observed.load_points (lengths from observed.requests
    where a run has per-request records, summarised: `summarised_lengths`), in config-key order. Without
    `record_lengths` the records are not read: a level that has them says which they are (`records_key`, from
    observed.request_sources) and its lengths are its means' until `with_record_lengths` reads them."""
    runs = conn.sql(
        "SELECT run_id, run_label, tool, accelerator_raw, accelerator_id, accelerator_count, model_raw, model_id, "
        "model_key, precision, runtime, runtime_version, runtime_settings, workload, arrival FROM observed.runs "
        "ORDER BY run_label"
    ).pl()
    points = conn.sql("SELECT * FROM observed.load_points ORDER BY run_id, load_index").pl()
    lengths = level_lengths(conn) if record_lengths else {}
    keys = {} if record_lengths else records_keys(conn)
    by_run: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for lp in points.iter_rows(named=True):
        by_run[lp["run_id"]].append(lp)
    configs: dict[str, Config] = {}
    for run in runs.iter_rows(named=True):
        settings = engine_settings(run["runtime_settings"])
        acc = run["accelerator_id"] or run["accelerator_raw"]
        key = config_key(
            acc,
            run["accelerator_count"],
            run["model_key"],
            run["precision"],
            run["runtime"],
            run["runtime_version"],
            settings,
        )
        cfg = configs.get(key)
        if cfg is None:
            count = int(run["accelerator_count"])
            version = f" {run['runtime_version']}" if run["runtime_version"] else ""
            model = run["model_id"] or run["model_raw"]
            label = f"{model}, {count}x {acc}, {run['precision'] or 'precision unknown'}, {run['runtime']}{version}"
            cfg = configs[key] = Config(
                key, label, run["runtime"], run["runtime_version"], settings, acc, count, run["model_key"],
                run["precision"], model_known=run["model_id"] is not None,
            )  # fmt: skip
        workload = _json(run["workload"])
        core = json.dumps({k: v for k, v in workload.items() if k not in LOAD_KEYS}, sort_keys=True, default=str)
        for lp in by_run.get(run["run_id"], []):
            why = unserved(lp)
            if why is not None:
                cfg.unserved.append(f"{run['run_label']} level {lp['load_index']} ({_load_words(lp)}): {why}")
                continue
            level = _level(run, lp, key, core, workload, lengths.get((run["run_id"], lp["load_index"])))
            if level is not None:
                level.records_key = keys.get((run["run_id"], lp["load_index"]), "")
                level.has_records = level.has_records or bool(level.records_key)
                cfg.levels.append(level)
    for cfg in configs.values():
        _flag_implausible(cfg)
        _name_workloads(cfg)
    return [configs[k] for k in sorted(configs)]


def unserved(lp: dict[str, Any]) -> str | None:
    """Why a load level (an observed.load_points row) was not served, in words; None when it was. A level whose
    counts are unknown (no requests completed nor sent stated) but which achieved a rate was served."""
    achieved, sent, ok = lp["achieved_requests_per_s"], lp["requests_sent"] or 0, lp["requests_ok"] or 0
    if achieved is not None and achieved <= 0:
        return f"completed nothing (achieved 0 requests/s, {ok} of {sent} requests sent completed)"
    if achieved is not None and ok and sent and ok < SERVED_SHARE_MIN * sent:
        return f"completed {ok} of the {sent} requests sent ({ok / sent:.0%}, under {SERVED_SHARE_MIN:.0%})"
    return None


def unserved_words(cfg: Config) -> str | None:
    """The config's levels left out as not served, in words (the first few named, the rest counted); None: none."""
    if not cfg.unserved:
        return None
    named = "; ".join(cfg.unserved[:UNSERVED_NAMED])
    more = len(cfg.unserved) - UNSERVED_NAMED
    count = "1 load level" if len(cfg.unserved) == 1 else f"{len(cfg.unserved)} load levels"
    return (
        f"{count} not served, not fitted (each must complete at least {SERVED_SHARE_MIN:.0%} of the requests "
        f"sent to it): {named}{f'; and {more} more' if more > 0 else ''}"
    )


def _load_words(lp: dict[str, Any]) -> str:
    if lp["load_kind"] == "concurrency" and lp["concurrency"] is not None:
        return f"concurrency {lp['concurrency']:g}"
    return f"{lp['offered_rate_per_s']:g} requests/s" if lp["offered_rate_per_s"] is not None else "load not stated"


def _level(
    run: dict[str, Any],
    lp: dict[str, Any],
    key: str,
    core: str,
    workload: dict[str, Any],
    records: tuple[list[int], list[int]] | None,
) -> Level | None:
    if lp["achieved_requests_per_s"] is None:
        return None
    repeats = max(1, int(lp["repeats"] or 1))
    n_req = max(1, int(round((lp["requests_sent"] or lp["requests_ok"] or 1) / repeats)))
    cap = math.inf
    stated_cap = lp.get("max_concurrency") if lp.get("max_concurrency") is not None else workload.get("max_concurrency")
    if stated_cap is not None and lp["load_kind"] == "rate":
        cap = float(stated_cap)
    if run["tool"] in TOOL_CLIENT_CAP and lp["load_kind"] == "rate":
        cap = min(cap, TOOL_CLIENT_CAP[run["tool"]])
    measured: dict[str, Any] = {m: lp.get(m) for m in METRICS}
    measured.update(
        achieved_requests_per_s=lp["achieved_requests_per_s"],
        error_rate=lp["error_rate"],
        input_tokens_mean=lp["input_tokens_mean"],
        output_tokens_mean=lp["output_tokens_mean"],
    )
    notes: list[str] = []
    if run["tool"] == "inference-perf":
        _tpot_from_medians(measured, notes)
    inp = summarised_lengths(records[0]) if records else None
    out = summarised_lengths(records[1]) if records else None
    return Level(
        config_key=key,
        run_id=run["run_id"],
        run_label=run["run_label"],
        workload_key=core,
        load_index=lp["load_index"],
        load_kind=lp["load_kind"],
        offered_rate=lp["offered_rate_per_s"],
        concurrency=lp["concurrency"],
        n_requests=n_req,
        arrival_cv=_arrival_cv(run["arrival"], workload),
        client_cap=cap,
        inp=_lengths(lp["input_tokens_mean"], workload, inp, "input"),
        out=_lengths(lp["output_tokens_mean"], workload, out, "output"),
        measured=measured,
        notes=notes,
        has_records=records is not None,
    )


def _close(a: float, b: float, tol: float = 0.25) -> bool:
    return abs(a - b) <= tol * max(abs(a), abs(b), 1e-9)


def _name_workloads(cfg: Config) -> None:
    """One workload = the same workload settings and token means within 25% (the files do not always name the
    dataset: vLLM 0.26's runs differ only in their token means); named with its token means."""
    clusters: list[tuple[str, float, float, str]] = []
    for lv in cfg.levels:
        mi = lv.measured["input_tokens_mean"] or 0.0
        mo = lv.measured["output_tokens_mean"] or 0.0
        for base, ci, co, name in clusters:
            if base == lv.workload_key and _close(mi, ci) and _close(mo, co):
                lv.workload_key = name
                break
        else:
            name = f"{lv.workload_key} in~{mi:.0f} out~{mo:.0f}"
            clusters.append((lv.workload_key, mi, mo, name))
            lv.workload_key = name


def _flag_implausible(cfg: Config) -> None:
    """A TPOT far below what the same server decodes at its lightest load is tokens delivered in bundles
    (SGLang at 20 prompts sent at once: 0.2-0.5 ms), not a decode speed: left out, said; likewise an ITL
    median far below the TPOT median."""
    lightest: dict[str, tuple[float, float]] = {}
    for lv in cfg.levels:
        v = lv.measured.get("tpot_p50_ms")
        if v:
            k = lv.workload_key
            if k not in lightest or lv.load_size < lightest[k][0]:
                lightest[k] = (lv.load_size, v)
    for lv in cfg.levels:
        i, t = lv.measured.get("itl_p50_ms"), lv.measured.get("tpot_p50_ms")
        if i is not None and t and i < 0.25 * t:
            lv.notes.append(f"itl_p50 {i:.2f} ms far below tpot_p50 (tokens arrive in bundles): ITL left out")
            for q in (50, 90, 95, 99):
                lv.measured[f"itl_p{q}_ms"] = None
    for lv in cfg.levels:
        v = lv.measured.get("tpot_p50_ms")
        ref = lightest.get(lv.workload_key, (0.0, 0.0))[1]
        if v is not None and (v < 0.25 * ref or v < 0.5):
            lv.notes.append(f"tpot_p50 {v:.2f} ms implausible (bundled tokens): left out")
            for q in (50, 90, 95, 99):
                lv.measured[f"tpot_p{q}_ms"] = None


def _tpot_from_medians(measured: dict[str, Any], notes: list[str]) -> None:
    """One definition: TPOT = (E2E - TTFT) / (output tokens - 1). inference-perf's `time_per_output_token`
    (kubecon-na-2025 files) is about half of that at every stage, so where it disagrees with the tool's own TTFT
    and E2E medians by more than 30% the medians are used (only for inference-perf: with closed-loop bursts the
    difference of medians is not the median TPOT)."""
    t, e = measured.get("ttft_p50_ms"), measured.get("e2e_p50_ms")
    p, o = measured.get("tpot_p50_ms"), measured.get("output_tokens_mean")
    if t is None or e is None or p is None or o is None or o <= 1:
        return
    derived = (e - t) / (o - 1)
    if derived > 0 and abs(p / derived - 1) > 0.3:
        notes.append(f"tpot_p50 {p:.2f} ms disagrees with (e2e_p50 - ttft_p50)/(out-1) = {derived:.2f} ms: used that")
        measured["tpot_p50_ms"] = derived
        for q in (90, 95, 99):
            if measured.get(f"tpot_p{q}_ms") is not None:
                measured[f"tpot_p{q}_ms"] = measured[f"tpot_p{q}_ms"] * derived / p
