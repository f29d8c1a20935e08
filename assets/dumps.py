"""Dump folders: `run.yaml` sidecars, the one registry of dump formats, and assembling runs.

A dumps folder is any tree. A `run.yaml` describes the runs below it (keys of deeper files win
over keys of shallower ones). Everything below one (deepest) run.yaml that one tool wrote is one
run of one config; files that measure the same load level (same offered rate, or same
concurrency) are repeats of that level. Files are recognised by content, never by name, by the
format modules in `assets.dump_formats`, tried in the order of `FORMAT_MODULES`. A file whose
content was already read (same sha256, e.g. copied twice) is read once.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import polars as pl

from assets import archives, canonical
from assets.dump_formats import (
    TEXT_COLUMNS,
    Dump,
    Measurement,
    Parsed,
    aiperf,
    empty_point,
    generic,
    guidellm,
    inference_perf,
    llmperf,
    loadgen_run,
    sglang,
    vllm,
    with_our_tpot,
)
from assets.fetch import Fetched, read_local, sha256_bytes, walk_files
from assets.textinput import decode_json, decode_json_lines, encoding_problem, looks_like_json, parse_yaml
from assets.warehouse import IngestError, Reject, SourceFile

SIDECAR = "run.yaml"
REQUIRED_KEYS = ("accelerator", "accelerator_count", "model", "precision", "runtime", "runtime_version", "arrival")
OPTIONAL_KEYS = ("label", "settings", "tool_version")
ARRIVALS = ("constant", "poisson", "gamma", "concurrency", "trace")

# The registry: the first module whose `recognise` answers names the file. Specific shapes first;
# vLLM after SGLang (SGLang lines carry vLLM-like keys), the generic tabular format last.
FORMAT_MODULES = (inference_perf, guidellm, aiperf, llmperf, sglang, vllm, loadgen_run, generic)
SKIPPED_KINDS = {inference_perf.PROMETHEUS, aiperf.GENAI_PERF_RAW, vllm.SWEEP_SUMMARY, vllm.SWEEP_CSV,
                 generic.LOG_CSV, generic.LOG_PARQUET}


class SidecarProblem(ValueError):
    pass


@dataclass
class ObservedBatch:
    """What the dumps folders yield: rows for observed.runs, observed.measurements and
    observed.tool_metrics, a request frame for observed.requests, rejects and the file inventory."""

    runs: list[dict[str, Any]] = field(default_factory=list)
    measurements: list[dict[str, Any]] = field(default_factory=list)
    tool_metrics: list[dict[str, Any]] = field(default_factory=list)
    requests: list[pl.DataFrame] = field(default_factory=list)
    rejects: list[Reject] = field(default_factory=list)
    files: list[SourceFile] = field(default_factory=list)
    request_texts: list[pl.DataFrame] = field(default_factory=list)
    store_texts: bool = False  # keep prompt/response texts (observed.request_texts); off: never held

    def request_frame(self) -> pl.DataFrame | None:
        return pl.concat(self.requests, how="vertical") if self.requests else None


def read_sidecar(fetched: Fetched) -> dict[str, Any]:
    """The mapping in a run.yaml; IngestError when it is not YAML or not a mapping."""
    content = parse_yaml(fetched.data, fetched.name)
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


# ---- recognising one file --------------------------------------------------------------------

def decode(fetched: Fetched) -> Dump:
    """The file with its JSON decoded when it is JSON (or JSON lines); IngestError names a file
    that looks like JSON and is not (the line, for JSON lines)."""
    dump = Dump(fetched.name, fetched.data)
    if not looks_like_json(fetched.data):
        return dump
    try:
        dump.payload = decode_json(fetched.data, fetched.name)
    except IngestError as whole_file:  # names the file and the position
        first = fetched.data.lstrip(b"\xef\xbb\xbf \t\r\n").split(b"\n", 1)[0]
        try:
            if not isinstance(json.loads(first), dict):
                raise whole_file from None
        except (ValueError, RecursionError):
            raise whole_file from None
        values = decode_json_lines(fetched.data, fetched.name)  # names the line that is not JSON
        if len(values) < 2 or not all(isinstance(v, dict) for v in values):
            raise whole_file from None
        dump.payload, dump.json_lines = values, True
    return dump


def recognise(dump: Dump) -> tuple[Any, str] | None:
    """(format module, kind) of the first module that recognises the file, or None."""
    for module in FORMAT_MODULES:
        kind = module.recognise(dump)
        if kind:
            return module, kind
    return None


def parse_file(fetched: Fetched) -> tuple[Parsed | None, Dump]:
    dump = decode(fetched)
    found = recognise(dump)
    if found is None:
        return None, dump
    module, kind = found
    return module.parse(dump, kind), dump


# ---- assembling runs -------------------------------------------------------------------------

def _relative(path: Path, root: Path) -> PurePosixPath:
    return PurePosixPath(path.relative_to(root).as_posix())


def _governing_sidecars(folder: PurePosixPath, sidecars: dict[PurePosixPath, dict[str, Any]]) -> list[PurePosixPath]:
    """run.yaml folders from the root down to `folder` (shallowest first)."""
    chain = [folder, *folder.parents]
    return [p for p in reversed(chain) if p in sidecars]


@dataclass
class _Read:
    fetched: Fetched
    folder: PurePosixPath
    parsed: Parsed


def collect(root: Path, store_texts: bool = False) -> ObservedBatch:
    """Every run below one dumps folder (prompt and response texts only with `store_texts`)."""
    if not root.is_dir():
        raise IngestError(f"{root}: dumps folder does not exist or is not a folder")
    batch = ObservedBatch(store_texts=store_texts)
    sidecars: dict[PurePosixPath, dict[str, Any]] = {}
    reads: list[_Read] = []
    seen: dict[str, str] = {}
    for fetched, rel in _inputs(root, batch):
        if rel.name == SIDECAR:
            sidecars[rel.parent] = read_sidecar(fetched)
            batch.files.append(SourceFile(fetched.name, fetched.sha256, len(fetched.data), "run.yaml sidecar", "read"))
            continue
        if fetched.sha256 in seen:
            batch.files.append(SourceFile(fetched.name, fetched.sha256, len(fetched.data), "duplicate", "skipped",
                                          note=f"same content as {seen[fetched.sha256]}: read once"))
            continue
        seen[fetched.sha256] = fetched.name
        parsed, _dump = parse_file(fetched)
        if parsed is None:
            wide = fetched.data.startswith((b"\xff\xfe", b"\xfe\xff"))  # UTF-16/32: a dump saved in the wrong encoding
            note = ("empty file (0 bytes)" if not fetched.data else encoding_problem(fetched.data) if wide
                    else "not a dump format this version reads")
            batch.files.append(SourceFile(fetched.name, fetched.sha256, len(fetched.data), "unrecognised",
                                          "quarantined" if wide else "skipped", note=note))
            if wide:
                batch.rejects.append(Reject(fetched.name, "file", note))
        elif parsed.kind in SKIPPED_KINDS or (parsed.note and not parsed.measurements and not parsed.problems):
            status = "skipped" if parsed.kind in SKIPPED_KINDS else "read"
            batch.files.append(SourceFile(fetched.name, fetched.sha256, len(fetched.data), parsed.kind, status,
                                          note=parsed.note or inference_perf.NOT_LOAD_LEVELS.get(parsed.kind, "")))
        elif parsed.kind == inference_perf.SUMMARY:
            batch.files.append(SourceFile(fetched.name, fetched.sha256, len(fetched.data), parsed.kind, "read",
                                          note=inference_perf.NOT_LOAD_LEVELS[parsed.kind]))
        else:
            reads.append(_Read(fetched, rel.parent, parsed))

    runs: dict[tuple[PurePosixPath, str], list[_Read]] = defaultdict(list)
    for read in reads:
        chain = _governing_sidecars(read.folder, sidecars)
        if not chain:
            _quarantine_file(batch, read, f"no {SIDECAR} in {root} above this file describes its config "
                                          "(accelerator, model, precision, runtime)")
            continue
        runs[(chain[-1], read.parsed.tool)].append(read)
    tools_per_sidecar: dict[PurePosixPath, set[str]] = defaultdict(set)
    for sidecar_folder, tool in runs:
        tools_per_sidecar[sidecar_folder].add(tool)
    for (sidecar_folder, tool), run_reads in sorted(runs.items()):
        chain = _governing_sidecars(sidecar_folder, sidecars)
        merged: dict[str, Any] = {}
        for link in chain:
            merged.update(sidecars[link])
        names = [str(root / link / SIDECAR) for link in chain]
        _add_run(batch, root, sidecar_folder, tool, len(tools_per_sidecar[sidecar_folder]) > 1, merged, names,
                 run_reads)
    return batch


def _inputs(root: Path, batch: ObservedBatch) -> Iterator[tuple[Fetched, PurePosixPath]]:
    """Every file below `root` with its path relative to it; an archive gives its members instead,
    as files of a folder named after it (`assets.archives`: read in memory, no traversal, no links, limits)."""
    for path in sorted(_all_files(root, batch)):
        yield from archives.expand(read_local(path)[0], _relative(path, root), batch.files, batch.rejects)


def _all_files(root: Path, batch: ObservedBatch) -> list[Path]:
    files = []
    for path in walk_files(root):
        if path.is_symlink() and not path.exists():
            batch.files.append(SourceFile(str(path), None, None, "dangling symlink", "skipped",
                                          note=f"points at {path.readlink()} which does not exist"))
            continue
        files.append(path)
    return files


def _quarantine_file(batch: ObservedBatch, read: _Read, reason: str) -> None:
    f = read.fetched
    batch.files.append(SourceFile(f.name, f.sha256, len(f.data), read.parsed.kind, "quarantined"))
    batch.rejects.append(Reject(f.name, "file", reason))


@dataclass
class _Point:
    """One measurement placed in a run: the file it came from and the merged content."""

    read: _Read
    measurement: Measurement
    requests_source: str | None = None


def _merge(run_reads: list[_Read]) -> list[_Point]:
    """Measurements of one folder with the same merge key are one measurement (a stage file and its
    per-request records, AIPerf's aggregate and records, LLMPerf's summary and responses)."""
    points: list[_Point] = []
    keyed: dict[tuple[PurePosixPath, str], _Point] = {}
    for read in run_reads:
        for m in read.parsed.measurements:
            if m.merge_key is None:
                points.append(_Point(read, m, read.fetched.name if m.requests is not None else None))
                continue
            key = (read.folder, m.merge_key)
            if key not in keyed:
                keyed[key] = _Point(read, m, read.fetched.name if m.requests is not None else None)
                points.append(keyed[key])
                continue
            point = keyed[key]
            if m.values and not point.measurement.values:  # the aggregate side carries the load level
                m.requests, point.read = point.measurement.requests, read
                point.measurement = m
            elif m.requests is not None and point.measurement.requests is None:
                point.measurement.requests = m.requests
                point.requests_source = read.fetched.name
                if point.measurement.load_kind is None:
                    point.measurement.load_kind = m.load_kind
    return points


def _level(point: _Point, run_kind: str) -> tuple[str, float | None]:
    m = point.measurement
    kind = m.load_kind or run_kind
    nominal = m.offered_rate_per_s if kind == "rate" else m.concurrency
    return kind, None if nominal is None else round(nominal, 6)


def _add_run(batch: ObservedBatch, root: Path, sidecar_folder: PurePosixPath, tool: str, several_tools: bool,
             merged: dict[str, Any], sidecar_names: list[str], run_reads: list[_Read]) -> None:
    try:
        config = run_config(merged, sidecar_names)
    except SidecarProblem as problem:
        for read in run_reads:
            f = read.fetched
            batch.files.append(SourceFile(f.name, f.sha256, len(f.data), read.parsed.kind, "quarantined"))
        batch.rejects.append(Reject(sidecar_names[-1], f"run {root / sidecar_folder}", str(problem), merged))
        return
    base_label = config.pop("label") or (sidecar_folder.as_posix() if str(sidecar_folder) != "." else root.name)
    label = f"{base_label}/{tool}" if several_tools else base_label
    ordered_reads = sorted(run_reads, key=lambda r: r.fetched.name)
    combined = hashlib.sha256("".join(r.fetched.sha256 for r in ordered_reads).encode()).hexdigest()
    run_id = "run-" + sha256_bytes(f"{label}\n{combined}".encode())[:16]

    for read in ordered_reads:
        f = read.fetched
        for location, reason in read.parsed.problems:
            batch.rejects.append(Reject(f.name, location, reason))
        status = "read" if read.parsed.measurements else "quarantined"
        batch.files.append(SourceFile(f.name, f.sha256, len(f.data), read.parsed.kind, status,
                                      rows=len(read.parsed.measurements), note=read.parsed.note))

    points = _merge(ordered_reads)
    levels: dict[tuple[str, float | None, int], list[_Point]] = defaultdict(list)
    for i, point in enumerate(points):
        kind, nominal = _level(point, config["load_kind"])
        levels[(kind, nominal, -1 if nominal is not None else i)].append(point)

    def level_order(item):
        (kind, nominal, _i), pts = item
        achieved = pts[0].measurement.values.get("achieved_requests_per_s") or 0.0
        return (kind != config["load_kind"], nominal if nominal is not None else achieved, pts[0].read.fetched.name)

    max_repeats, request_count, formats = 0, 0, set()
    for load_index, ((kind, _nominal, _i), pts) in enumerate(sorted(levels.items(), key=level_order)):
        pts.sort(key=lambda p: (p.read.fetched.name, p.measurement.location))
        max_repeats = max(max_repeats, len(pts))
        for repeat_index, point in enumerate(pts):
            m, read = point.measurement, point.read
            formats.add(read.parsed.kind)
            keys = {"run_id": run_id, "load_index": load_index, "repeat_index": repeat_index}
            row = {**keys, "load_kind": kind, "offered_rate_per_s": m.offered_rate_per_s,
                   "concurrency": m.concurrency}
            values = {**empty_point(), **m.values}  # every load-point column, even from requests alone
            if m.requests is not None and values.get("achieved_requests_per_s") is None:
                values.update({k: v for k, v in generic.window_values(m.requests).items() if v is not None})
            row.update(values or {})
            row.update({"has_requests": m.requests is not None, "source": read.fetched.name,
                        "source_sha256": read.fetched.sha256, "location": m.location,
                        "tool_definitions": read.parsed.definitions, "evidence": "observed",
                        "_source": read.fetched.name, "_location": m.location})
            batch.measurements.append(row)
            batch.tool_metrics += [{**keys, "tool": read.parsed.tool, "metric": metric, "statistic": stat,
                                    "value": value, "unit": unit, "tool_definitions": read.parsed.definitions}
                                   for metric, stat, value, unit in m.tool_metrics]
            if m.requests is not None:
                request_count += m.requests.height
                frame = with_our_tpot(m.requests).with_columns(
                    *[pl.lit(v).alias(k) for k, v in keys.items()],
                    pl.lit(point.requests_source or read.fetched.name).alias("source"))
                texts = [c for c in TEXT_COLUMNS if c in frame.columns]
                if texts and batch.store_texts:
                    batch.request_texts.append(frame.select(
                        *keys, "request_index", "source",
                        *[pl.col(c) if c in texts else pl.lit(None, pl.String).alias(c) for c in TEXT_COLUMNS]))
                batch.requests.append(frame.drop(texts))
    batch.runs.append({
        "run_id": run_id,
        "run_label": label,
        "tool": tool,
        "tool_version": config.pop("tool_version"),
        **config,
        "load_points": len(levels),
        "repeats_max": max_repeats,
        "requests": request_count,
        "formats": ", ".join(sorted(formats)),
        "sidecar": " + ".join(sidecar_names),
        "report_dir": str(root / sidecar_folder),
        "source_sha256": combined,
        "evidence": "observed",
        "_source": sidecar_names[-1],
        "_location": f"run {label}",
    })


def collect_all(roots: list[str], store_texts: bool = False) -> ObservedBatch:
    """Runs below every dumps folder; a label used twice is quarantined the second time."""
    total = ObservedBatch(store_texts=store_texts)
    labels: dict[str, str] = {}
    for root in roots:
        batch = collect(Path(root), store_texts)
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
        total.measurements += [m for m in batch.measurements if m["run_id"] not in dropped]
        total.tool_metrics += [m for m in batch.tool_metrics if m["run_id"] not in dropped]
        total.requests += [r for r in batch.requests if r.get_column("run_id")[0] not in dropped]
        total.request_texts += [r for r in batch.request_texts if r.get_column("run_id")[0] not in dropped]
        total.rejects += batch.rejects
        total.files += batch.files
    return total
