"""Each config's calibration stored in the warehouse (`fits/`) and reused while what it was fitted on is unchanged.

A config's fit and its held-out refits (`calibrate_config`) read only the config and its levels as `read_configs`
gives them: every load point's measures, load, repeats and token lengths (the per-request records summarised to at
most 1,000 order statistics per level), the workload fields that name its workloads and set its arrivals. The
*evidence fingerprint* is a digest of exactly that (`dataclasses.asdict` of the config as read without its records'
lengths: a level with records says which they are, `records_key`, so a run whose fits are all stored reads no
per-request record), of FIT_MODEL_VERSION and of the source of the modules the fit runs (`FIT_CODE`): a change to the
engine model, the fit or the held-out validation refits every config, a new sweep only its own config.

`fits/<config key>.json` holds the config's last calibration with its fingerprint and the sha256 of its content,
written under a temporary name and renamed (`partition_store`'s writer). An entry is reused only when its store
version and fingerprint are this run's and its content's sha256 is the recorded one; a stale, damaged or unreadable
entry is refitted (said) and written again, never trusted. Entries of configs the warehouse no longer holds are
removed. A config whose fit raised (not a result, a fault) is not stored: it is tried again on the next run.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from assets.calibrate.bounds import capped_levels
from assets.calibrate.engine import EngineParams
from assets.calibrate.fit import Fit
from assets.calibrate.levels import Config
from assets.calibrate.tables import Calibration
from assets.calibrate.validate import Row
from assets.inputs.files import sha256_bytes
from assets.runs.stored_partition import write_json

STORE_VERSION = "benchbill-fit-1"
# Bumped when the engine model, the fit or its held-out validation changes in a way the sources below do not show
# (a changed default read from elsewhere, a new library's numerics): every stored fit is then refitted.
FIT_MODEL_VERSION = "engine-model-2"
# The modules a config's calibration runs: their source is part of the fingerprint.
FIT_CODE = (
    "bounds",
    "engine",
    "fit",
    "fit_start",
    "levels",
    "record_lengths",
    "runtime_defaults",
    "search",
    "summary",
    "tables",
    "traffic",
    "validate",
)
Log = Callable[[str], None]


def _code_digest() -> str:
    """The sha256 of the sources of FIT_CODE, in order."""
    here = Path(__file__).resolve().parent
    return sha256_bytes(b"\0".join((here / f"{name}.py").read_bytes() for name in FIT_CODE))


_CODE = _code_digest()


def evidence_fingerprint(cfg: Config) -> str:
    """What a config's calibration depends on: the config and its levels as the fit reads them, and the model's code."""
    evidence = json.dumps(
        [STORE_VERSION, FIT_MODEL_VERSION, _CODE, dataclasses.asdict(cfg)], sort_keys=True, default=str
    ).encode()
    return sha256_bytes(evidence)[:32]


def calibration_payload(c: Calibration) -> dict[str, Any]:
    """What is stored of a calibration (the config itself is read again from the warehouse)."""
    fit = None if c.fit is None else {**dataclasses.asdict(c.fit), "params": c.fit.params.to_dict()}
    return {
        "fit": fit,
        "rows": [dataclasses.asdict(r) for r in c.rows],
        "status": c.status,
        "reason": c.reason,
        "seconds": c.seconds,
        "capped": c.fitted_levels is not None,
    }


def calibration_from(cfg: Config, payload: dict[str, Any]) -> Calibration:
    """A stored calibration of `cfg` as `calibrate_config` gave it; KeyError or TypeError when it is not whole."""
    stored = payload["fit"]
    fit = None
    if stored is not None:
        used = [(workload, tuple(load)) for workload, load in stored["levels_used"]]
        fit = Fit(**{**stored, "params": EngineParams(**stored["params"]), "levels_used": used})
    return Calibration(
        cfg,
        fit,
        [Row(**r) for r in payload["rows"]],
        payload["status"],
        payload["reason"],
        float(payload["seconds"]),
        capped_levels(cfg.levels)[0] if payload["capped"] else None,
    )


def _content_sha256(payload: Any) -> str:
    return sha256_bytes(json.dumps(payload, sort_keys=True).encode())


class FitStore:
    """The stored calibrations of one warehouse folder (`WarehouseLayout.fits_dir`)."""

    def __init__(self, fits_dir: Path, log: Log | None = None) -> None:
        self.dir = fits_dir
        self.log = log
        self.refitted: list[tuple[str, str]] = []  # (config label, why) of the configs fitted in this run
        self.reused: list[str] = []  # labels of the configs whose stored calibration was reused

    def _path(self, cfg: Config) -> Path:
        return self.dir / f"{cfg.key}.json"

    def _stored(self, cfg: Config, fingerprint: str) -> tuple[Calibration | None, str]:
        """The stored calibration of `cfg` when it may be trusted, else None and why it is fitted now."""
        path = self._path(cfg)
        if not path.exists():
            return None, "no stored fit"
        try:
            entry = json.loads(path.read_text())
            if entry["store_version"] != STORE_VERSION or entry["fingerprint"] != fingerprint:
                return None, "its evidence or the model changed since its stored fit"
            if _content_sha256(entry["calibration"]) != entry["content_sha256"]:
                return None, f"its stored fit {path} is damaged (its content is not the one written)"
            return calibration_from(cfg, entry["calibration"]), "reused"
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as problem:
            return None, f"its stored fit {path} cannot be read ({type(problem).__name__}: {problem})"

    def holds(self, cfg: Config) -> bool:
        """Whether a stored calibration of `cfg` may be reused (its fingerprint matches and its content is whole)."""
        return self._stored(cfg, evidence_fingerprint(cfg))[0] is not None

    def calibration(self, cfg: Config, compute: Callable[[], Calibration]) -> Calibration:
        """The config's stored calibration when its fingerprint matches and its content is whole; else `compute()`,
        stored unless it failed."""
        fingerprint = evidence_fingerprint(cfg)
        found, why = self._stored(cfg, fingerprint)
        if found is not None:
            self.reused.append(cfg.label)
            return found
        if self.log is not None and why != "no stored fit":
            self.log(f"{cfg.label}: fitted again: {why}")
        result = compute()
        self.refitted.append((cfg.label, why))
        if not result.failed:
            payload = calibration_payload(result)
            self.dir.mkdir(parents=True, exist_ok=True)
            entry = {
                "store_version": STORE_VERSION,
                "fingerprint": fingerprint,
                "config_label": cfg.label,
                "content_sha256": _content_sha256(payload),
                "calibration": payload,
            }
            write_json(self._path(cfg), entry)
        return result

    def keep_only(self, configs: list[Config]) -> None:
        """The stored calibrations of configs not in `configs` removed (a warehouse keeps its own configs' fits), and
        what a killed write left (a `.<key>.json.<pid>.partial` never renamed)."""
        kept = {f"{cfg.key}.json" for cfg in configs}
        for stored in sorted(self.dir.iterdir()) if self.dir.is_dir() else []:
            if stored.is_file() and stored.name not in kept:
                stored.unlink(missing_ok=True)

    def summary(self) -> str:
        """How many configs were fitted now and which, and how many stored fits were reused, in one line."""
        total = len(self.refitted) + len(self.reused)
        if not total:
            return "engine models: no run of ours to fit"
        if not self.refitted:
            return f"engine models: all {total} configs' stored fits reused (their evidence unchanged), none refitted"
        named = "; ".join(label for label, _ in self.refitted[:REFITTED_NAMED])  # a label holds commas
        more = len(self.refitted) - REFITTED_NAMED
        return (
            f"engine models: {len(self.refitted)} of {total} configs refitted ({named}"
            f"{f' and {more} more' if more > 0 else ''}), {len(self.reused)} stored fits reused"
        )


REFITTED_NAMED = 5  # configs named in the summary line; the rest are counted
