"""Dump folders: `run.yaml` sidecars, recognising dump files by content, and assembling runs.

A dumps folder is any tree. A `run.yaml` describes the runs below it (keys of deeper files win
over keys of shallower ones). Each folder holding load-level reports is one run.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from assets import canonical, inference_perf
from assets.fetch import Fetched, read_local, sha256_bytes, walk_files
from assets.mlperf_tables import decode_json, looks_like_json
from assets.warehouse import IngestError, Reject, SourceFile

SIDECAR = "run.yaml"
REQUIRED_KEYS = ("accelerator", "accelerator_count", "model", "precision", "runtime", "runtime_version", "arrival")
OPTIONAL_KEYS = ("label", "settings", "tool_version")
ARRIVALS = ("constant", "poisson", "gamma", "concurrency", "trace")


class SidecarProblem(ValueError):
    pass


@dataclass
class ObservedBatch:
    """What the dumps folders yield: rows for observed.runs and observed.load_points, plus rejects
    and the inventory of every file looked at."""

    runs: list[dict[str, Any]] = field(default_factory=list)
    load_points: list[dict[str, Any]] = field(default_factory=list)
    rejects: list[Reject] = field(default_factory=list)
    files: list[SourceFile] = field(default_factory=list)


def read_sidecar(fetched: Fetched) -> dict[str, Any]:
    """The mapping in a run.yaml; IngestError when it is not YAML or not a mapping."""
    try:
        content = yaml.safe_load(fetched.data.decode("utf-8-sig"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise IngestError(f"{fetched.name}: not a readable YAML file ({exc})") from exc
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


def _relative(path: Path, root: Path) -> PurePosixPath:
    return PurePosixPath(path.relative_to(root).as_posix())


def _governing_sidecars(folder: PurePosixPath, sidecars: dict[PurePosixPath, dict[str, Any]]) -> list[PurePosixPath]:
    """run.yaml folders from the root down to `folder` (shallowest first)."""
    chain = [folder, *folder.parents]
    return [p for p in reversed(chain) if p in sidecars]


def collect(root: Path) -> ObservedBatch:
    """Every run below one dumps folder."""
    if not root.is_dir():
        raise IngestError(f"{root}: dumps folder does not exist or is not a folder")
    batch = ObservedBatch()
    sidecars: dict[PurePosixPath, dict[str, Any]] = {}
    reports: dict[PurePosixPath, list[tuple[Fetched, str, Any]]] = defaultdict(list)
    for path in sorted(_all_files(root, batch)):
        fetched = read_local(path)[0]
        rel = _relative(path, root)
        if path.name == SIDECAR:
            sidecars[rel.parent] = read_sidecar(fetched)
            batch.files.append(SourceFile(fetched.name, fetched.sha256, len(fetched.data), "run.yaml sidecar", "read"))
            continue
        kind = None
        payload = None
        if looks_like_json(fetched.data):
            payload = decode_json(fetched.data, fetched.name)
            kind = inference_perf.recognise(payload)
        if kind == inference_perf.STAGE:
            reports[rel.parent].append((fetched, kind, payload))
        elif kind == inference_perf.SUMMARY:
            batch.files.append(SourceFile(fetched.name, fetched.sha256, len(fetched.data), kind,
                                          "read", note="whole-run aggregate over all stages; not a load level"))
        elif kind == inference_perf.PROMETHEUS:
            batch.files.append(SourceFile(fetched.name, fetched.sha256, len(fetched.data), kind,
                                          "skipped", note="server-side Prometheus metrics are not used yet"))
        else:
            batch.files.append(SourceFile(fetched.name, fetched.sha256, len(fetched.data), "unrecognised",
                                          "skipped", note="not a dump format this version reads"))

    by_sidecar: dict[PurePosixPath, list[PurePosixPath]] = defaultdict(list)
    for folder in sorted(reports):
        chain = _governing_sidecars(folder, sidecars)
        if not chain:
            for fetched, kind, _payload in reports[folder]:
                batch.files.append(SourceFile(fetched.name, fetched.sha256, len(fetched.data), kind, "quarantined"))
                batch.rejects.append(Reject(fetched.name, "file", f"no {SIDECAR} in {root} above this file "
                                            "describes its config (accelerator, model, precision, runtime)"))
            continue
        by_sidecar[chain[-1]].append(folder)

    for sidecar_folder, folders in sorted(by_sidecar.items()):
        for folder in folders:
            chain = _governing_sidecars(folder, sidecars)
            merged: dict[str, Any] = {}
            for link in chain:
                merged.update(sidecars[link])
            names = [str(root / link / SIDECAR) for link in chain]
            _add_run(batch, root, sidecar_folder, folder, len(folders) > 1, merged, names, reports[folder])
    return batch


def _all_files(root: Path, batch: ObservedBatch) -> list[Path]:
    files = []
    for path in walk_files(root):
        if path.is_symlink() and not path.exists():
            batch.files.append(SourceFile(str(path), None, None, "dangling symlink", "skipped",
                                          note=f"points at {path.readlink()} which does not exist"))
            continue
        files.append(path)
    return files


def _add_run(batch: ObservedBatch, root: Path, sidecar_folder: PurePosixPath, folder: PurePosixPath,
             several: bool, merged: dict[str, Any], sidecar_names: list[str],
             stage_files: list[tuple[Fetched, str, Any]]) -> None:
    try:
        config = run_config(merged, sidecar_names)
    except SidecarProblem as problem:
        for fetched, kind, _payload in stage_files:
            batch.files.append(SourceFile(fetched.name, fetched.sha256, len(fetched.data), kind, "quarantined"))
        batch.rejects.append(Reject(sidecar_names[-1], f"run {root / folder}", str(problem), merged))
        return
    base_label = config.pop("label") or (sidecar_folder.as_posix() if str(sidecar_folder) != "." else root.name)
    label = f"{base_label}/{folder.relative_to(sidecar_folder).as_posix()}" if several else base_label
    ordered = sorted(
        stage_files,
        key=lambda item: (
            item[2].get("load_summary", {}).get("requested_rate") or 0
            if isinstance(item[2].get("load_summary"), dict) else 0,
            inference_perf.stage_number(Path(item[0].name).name) or 0,
            item[0].name,
        ),
    )
    combined = hashlib.sha256("".join(f.sha256 for f, _k, _p in ordered).encode()).hexdigest()
    run_id = "run-" + sha256_bytes(f"{label}\n{combined}".encode())[:16]
    points = 0
    for fetched, kind, payload in ordered:
        try:
            row = inference_perf.stage_to_load_point(payload, load_kind=config["load_kind"])
        except inference_perf.LoadPointProblem as problem:
            batch.rejects.append(Reject(fetched.name, "stage file", str(problem), None))
            batch.files.append(SourceFile(fetched.name, fetched.sha256, len(fetched.data), kind, "quarantined"))
            continue
        row.update({"run_id": run_id, "load_index": points, "source": fetched.name,
                    "source_sha256": fetched.sha256, "evidence": "observed",
                    "_source": fetched.name, "_location": "stage file"})
        batch.load_points.append(row)
        batch.files.append(SourceFile(fetched.name, fetched.sha256, len(fetched.data), kind, "read", rows=1))
        points += 1
    batch.runs.append({
        "run_id": run_id,
        "run_label": label,
        "tool": inference_perf.TOOL,
        "tool_version": config.pop("tool_version"),
        **config,
        "load_points": points,
        "sidecar": " + ".join(sidecar_names),
        "report_dir": str(root / folder),
        "source_sha256": combined,
        "evidence": "observed",
        "_source": sidecar_names[-1],
        "_location": f"run {label}",
    })


def collect_all(roots: list[str]) -> ObservedBatch:
    """Runs below every dumps folder; a label used twice is quarantined the second time."""
    total = ObservedBatch()
    labels: dict[str, str] = {}
    for root in roots:
        batch = collect(Path(root))
        dropped = set()
        for run in batch.runs:
            if run["run_label"] in labels:
                dropped.add(run["run_id"])
                total.rejects.append(Reject(run["sidecar"], f"run {run['run_label']}",
                                            f"duplicate run label {run['run_label']!r}: already used by "
                                            f"{labels[run['run_label']]}; set `label` in run.yaml", run))
                continue
            labels[run["run_label"]] = run["report_dir"]
            total.runs.append(run)
        total.load_points += [p for p in batch.load_points if p["run_id"] not in dropped]
        total.rejects += batch.rejects
        total.files += batch.files
    return total
