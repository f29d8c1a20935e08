"""Dump folders: `run.yaml` sidecars, the one registry of dump formats, and assembling runs.

A dumps folder is any tree. A `run.yaml` describes the runs below it (keys of deeper files win
over keys of shallower ones). Everything below one (deepest) run.yaml that one tool wrote is one
run of one config; files that measure the same load level (same offered rate, or same
concurrency) are repeats of that level. Files are recognised by content, never by name, by the
format modules in `assets.dump_formats`, tried in the order of `FORMAT_MODULES`. A file whose
content was already read (same sha256, e.g. copied twice) is read once.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections import defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import polars as pl

from assets import archives, canonical
from assets.dump_formats import (
    Dump,
    Measurement,
    Parsed,
    RequestScan,
    aiperf,
    empty_point,
    generic,
    guidellm,
    inference_perf,
    llmperf,
    loadgen_run,
    sglang,
    vllm,
)
from assets.fetch import Fetched, read_local, read_whole, sha256_bytes, walk_files
from assets.request_stats import RequestPass, Source
from assets.textinput import decode_json, decode_json_lines, encoding_problem, looks_like_json, parse_yaml
from assets.warehouse import IngestError, Reject, SourceFile

Log = Callable[[str], None]
PROGRESS_EVERY_FILES = 200  # a folder of many small dumps reports its progress this often

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


# observed.request_sources rows as a frame (also the keys that place request groups in a sweep).
REQUEST_SOURCE_SCHEMA = {
    "run_id": pl.String, "load_index": pl.Int64, "repeat_index": pl.Int64, "source": pl.String,
    "source_sha256": pl.String, "reader": pl.String, "location": pl.String, "source_key": pl.String,
    "file_offered_rate_per_s": pl.Float64, "file_concurrency": pl.Float64, "level_kind": pl.String,
    "level_nominal": pl.Float64, "first_ordinal": pl.Int64,
    "first_start_s": pl.Float64, "requests": pl.Int64, "rows_quarantined": pl.Int64, "evidence": pl.String,
}


@dataclass
class ObservedBatch:
    """What the dumps folders yield: rows for observed.runs, observed.measurements,
    observed.tool_metrics and observed.request_sources; the request pass's observed.request_stats,
    observed.request_percentiles and the records to store (observed.stored_requests); the files
    read in place for the view observed.requests (`scans`: source key, checked SELECT); rejects and
    the file inventory; with `store_texts`, the prompt and response texts (observed.request_texts;
    otherwise none is kept)."""

    runs: list[dict[str, Any]] = field(default_factory=list)
    measurements: list[dict[str, Any]] = field(default_factory=list)
    tool_metrics: list[dict[str, Any]] = field(default_factory=list)
    request_sources: list[dict[str, Any]] = field(default_factory=list)
    request_stats: list[pl.DataFrame] = field(default_factory=list)
    request_percentiles: list[pl.DataFrame] = field(default_factory=list)
    stored_requests: list[pl.DataFrame] = field(default_factory=list)
    scans: list[tuple[str, str]] = field(default_factory=list)
    rejects: list[Reject] = field(default_factory=list)
    request_rejects: list[Reject] = field(default_factory=list)
    files: list[SourceFile] = field(default_factory=list)
    request_texts: list[pl.DataFrame] = field(default_factory=list)
    store_texts: bool = False  # keep prompt/response texts (observed.request_texts); off: never held

    def frame(self, name: str) -> pl.DataFrame | None:
        """One of the request pass's tables, all roots together (None when no root had any)."""
        frames = getattr(self, name)
        return pl.concat(frames, how="vertical_relaxed") if frames else None


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


# ---- reading and recognising one file ---------------------------------------------------------

@dataclass(frozen=True)
class LargeFile:
    """A dump file larger than LARGE_FILE_BYTES: its checksum (hashed as it streams past), size and
    first and last bytes, never all of it in memory. Only the formats that are this large in practice
    (per-request records, read by DuckDB in place) use it whole; any other is read in full."""

    name: str
    sha256: str
    size: int
    head: bytes
    tail: bytes

    @property
    def data(self) -> bytes:
        """All the bytes, read now (for code that needs a file whole, like a Fetched's `data`; the size
        limit of files read into memory applies)."""
        return read_whole(Path(self.name))


LARGE_FILE_BYTES = 16 * 1024 * 1024
HEAD_BYTES = 1024 * 1024
JSON_LINES_HEAD = 64  # lines decoded to recognise a JSON-lines file
# Formats whose records DuckDB reads in place: their files are never decoded by Python.
SCANNED_KINDS = {generic.MEASUREMENT_CSV, generic.MEASUREMENT_PARQUET, generic.LOG_CSV, generic.LOG_PARQUET,
                 aiperf.RECORDS}


def read_dump_file(path: Path) -> Fetched | LargeFile:
    """A dump file with its sha256: all its bytes, or (above LARGE_FILE_BYTES) a LargeFile."""
    try:
        size = path.stat().st_size
        if size <= LARGE_FILE_BYTES:
            return read_local(path)[0]
        digest, head = hashlib.sha256(), b""
        with open(path, "rb") as handle:
            while chunk := handle.read(8 * 1024 * 1024):
                head = head or chunk[:HEAD_BYTES]
                digest.update(chunk)
            handle.seek(max(0, size - 8))
            tail = handle.read()
    except OSError as exc:
        raise IngestError(f"{path}: cannot read ({exc}); check its permissions") from exc
    return LargeFile(str(path), digest.hexdigest(), size, head, tail)


def _megabytes(paths: list[Path]) -> str:
    total = 0
    for path in paths:
        try:
            total += path.stat().st_size
        except OSError:
            continue  # read_dump_file reports it
    return f"{total / 1e6:,.1f}"


def hash_large_files(paths: list[Path], log: Log | None = None) -> dict[Path, LargeFile]:
    """The files above LARGE_FILE_BYTES, hashed on every core at once (hashlib lets go of the GIL)."""
    large = []
    for path in paths:
        try:
            if path.stat().st_size > LARGE_FILE_BYTES:
                large.append(path)
        except OSError:
            continue  # read_dump_file reports it
    if len(large) < 2:
        return {}
    if log:
        log(f"checksums of {len(large)} large files ({_megabytes(large)} MB)")
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return dict(zip(large, pool.map(read_dump_file, large)))


def _without_bytes(fetched: Fetched) -> LargeFile:
    return LargeFile(fetched.name, fetched.sha256, len(fetched.data), fetched.data[:HEAD_BYTES], fetched.data[-8:])


def size_of(fetched: Fetched | LargeFile) -> int:
    return fetched.size if isinstance(fetched, LargeFile) else len(fetched.data)


def head_of(fetched: Fetched | LargeFile) -> bytes:
    """The first bytes of a file (all of them, for a file held whole)."""
    return fetched.head if isinstance(fetched, LargeFile) else fetched.data


def _json_lines_head(head: bytes) -> list[dict] | None:
    """The first complete lines of `head` as JSON objects, when there are at least two and all are."""
    lines = [line for line in head.decode("utf-8-sig", errors="replace").splitlines()[:JSON_LINES_HEAD + 1]
             if line.strip()]
    if len(lines) > JSON_LINES_HEAD or (head.endswith(b"\n") is False and len(lines) > 1):
        lines = lines[:-1]  # the last line may be cut off
    try:
        values = [json.loads(line) for line in lines[:JSON_LINES_HEAD]]
    except (ValueError, RecursionError):  # not JSON, or nested too deeply: decoded whole (textinput) instead
        return None
    return values if len(values) >= 2 and all(isinstance(v, dict) for v in values) else None


def decode(fetched: Fetched | LargeFile, path: str | None = None) -> Dump:
    """The file with its JSON decoded when it is JSON, or with the first lines decoded when it is JSON
    lines (all of them only for a format that needs them: `complete`); IngestError names a file that
    looks like JSON and is not. `path`: where the file lies on disk (DuckDB reads scanned formats there)."""
    if isinstance(fetched, LargeFile):
        dump = Dump(fetched.name, fetched.head, path=path or fetched.name, partial=True, tail=fetched.tail)
        if looks_like_json(fetched.head):
            head_lines = _json_lines_head(fetched.head)
            if head_lines is None:  # one large JSON document (a detailed vLLM result): read it whole
                return decode(Fetched(fetched.name, fetched.data, fetched.sha256), path)
            dump.payload, dump.json_lines = head_lines, True
        return dump
    dump = Dump(fetched.name, fetched.data, path=path)
    if not looks_like_json(fetched.data):
        return dump
    head_lines = _json_lines_head(fetched.data[:HEAD_BYTES])
    if head_lines is not None:
        dump.payload, dump.json_lines, dump.partial = head_lines, True, True
        return dump
    try:
        dump.payload = decode_json(fetched.data, fetched.name)
    except IngestError as whole_file:  # names the file and the position
        dump.payload, dump.json_lines = _all_json_lines(fetched.data, fetched.name, whole_file), True
    return dump


def _all_json_lines(data: bytes, name: str, whole_file: IngestError | None = None) -> list[dict]:
    """Every line of a JSON-lines file (textinput: UTF-8, nesting limits, the line that is not JSON named,
    a last line cut short said so). `whole_file`: the error of reading the file as one JSON document
    (naming the position), raised instead when its first line is not a JSON object (not JSON lines)."""
    if whole_file is not None:
        first = data.lstrip(b"\xef\xbb\xbf \t\r\n").split(b"\n", 1)[0]
        try:
            if not isinstance(json.loads(first), dict):
                raise ValueError
        except (ValueError, RecursionError):
            raise whole_file from None
    values = decode_json_lines(data, name)  # names the line that is not JSON
    if len(values) < 2 or not all(isinstance(v, dict) for v in values):
        raise whole_file or IngestError(f"{name}: invalid JSON lines (expected one JSON object per line)")
    return values


def complete(dump: Dump, fetched: Fetched | LargeFile) -> Dump:
    """The whole file decoded, for a format that reads every line or byte itself."""
    if not dump.partial:
        return dump
    data = fetched.data
    full = Dump(dump.name, data, path=dump.path)
    if dump.json_lines:
        full.payload, full.json_lines = _all_json_lines(data, dump.name), True
    elif looks_like_json(data):
        full.payload = decode_json(data, dump.name)
    return full


def recognise(dump: Dump) -> tuple[Any, str] | None:
    """(format module, kind) of the first module that recognises the file, or None."""
    for module in FORMAT_MODULES:
        kind = module.recognise(dump)
        if kind:
            return module, kind
    return None


def parse_file(fetched: Fetched | LargeFile, path: str | None = None) -> tuple[Parsed | None, Dump]:
    dump = decode(fetched, path)
    found = recognise(dump)
    if found is None:
        return None, dump
    module, kind = found
    if kind not in SCANNED_KINDS:
        dump = complete(dump, fetched)
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
    fetched: Fetched | LargeFile
    folder: PurePosixPath
    parsed: Parsed


def _silent(message: str) -> None:
    pass


def collect(root: Path, store_texts: bool = False, log: Log | None = None) -> ObservedBatch:
    """Every run below one dumps folder (prompt and response texts only with `store_texts`); `log` is told
    what is being read as it goes (a folder of large dumps takes a while)."""
    log = log or _silent
    if not root.is_dir():
        raise IngestError(f"{root}: dumps folder does not exist or is not a folder")
    batch = ObservedBatch(store_texts=store_texts)
    sidecars: dict[PurePosixPath, dict[str, Any]] = {}
    reads: list[_Read] = []
    seen: dict[str, str] = {}
    for fetched, rel, path in _inputs(root, batch, log):
        if rel.name == SIDECAR:
            sidecars[rel.parent] = read_sidecar(fetched)
            batch.files.append(SourceFile(fetched.name, fetched.sha256, size_of(fetched), "run.yaml sidecar", "read"))
            continue
        if fetched.sha256 in seen:
            batch.files.append(SourceFile(fetched.name, fetched.sha256, size_of(fetched), "duplicate", "skipped",
                                          note=f"same content as {seen[fetched.sha256]}: read once"))
            continue
        seen[fetched.sha256] = fetched.name
        parsed, _dump = parse_file(fetched, path)
        if parsed is None:
            head = head_of(fetched)
            wide = head.startswith((b"\xff\xfe", b"\xfe\xff"))  # UTF-16/32: a dump saved in the wrong encoding
            note = ("empty file (0 bytes)" if not head else encoding_problem(head) if wide
                    else "not a dump format this version reads")
            batch.files.append(SourceFile(fetched.name, fetched.sha256, size_of(fetched), "unrecognised",
                                          "quarantined" if wide else "skipped", note=note))
            if wide:
                batch.rejects.append(Reject(fetched.name, "file", note))
        elif parsed.kind in SKIPPED_KINDS or (parsed.note and not parsed.measurements and not parsed.problems):
            status = "skipped" if parsed.kind in SKIPPED_KINDS else "read"
            batch.files.append(SourceFile(fetched.name, fetched.sha256, size_of(fetched), parsed.kind, status,
                                          note=parsed.note or inference_perf.NOT_LOAD_LEVELS.get(parsed.kind, "")))
        elif parsed.kind == inference_perf.SUMMARY:
            batch.files.append(SourceFile(fetched.name, fetched.sha256, size_of(fetched), parsed.kind, "read",
                                          note=inference_perf.NOT_LOAD_LEVELS[parsed.kind]))
        else:
            if parsed.kind in SCANNED_KINDS and not isinstance(fetched, LargeFile):
                fetched = _without_bytes(fetched)  # DuckDB reads it from disk: keep no copy
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
    prepared = []
    for (sidecar_folder, tool), run_reads in sorted(runs.items()):
        chain = _governing_sidecars(sidecar_folder, sidecars)
        merged: dict[str, Any] = {}
        for link in chain:
            merged.update(sidecars[link])
        names = [str(root / link / SIDECAR) for link in chain]
        run = _prepare_run(batch, root, sidecar_folder, tool, len(tools_per_sidecar[sidecar_folder]) > 1, merged,
                           names, run_reads)
        if run is not None:
            prepared.append(run)
    points = sum(len(run.points) for run in prepared)
    log(f"{root}: {len(prepared)} run{'' if len(prepared) == 1 else 's'}, "
        f"{points} load point{'' if points == 1 else 's'}")
    with RequestPass(store_texts) as requests:
        sources = [point.source(run) for run in prepared for point in run.points
                   if point.measurement.requests is not None]
        for source in sources:
            requests.add(source)
        if sources:
            log(f"{root}: percentiles and intervals of {len(sources)} per-request record sets in one DuckDB scan")
        groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for group in requests.run().iter_rows(named=True):
            groups[group["source_key"]].append(group)
        batch.request_rejects += requests.rejects()
        for run in prepared:
            _drop_unreadable(batch, run, requests.unreadable)
            _assemble_run(batch, run, groups)
        keys = pl.DataFrame(batch.request_sources, schema=REQUEST_SOURCE_SCHEMA)
        stats, percentiles = requests.finish(keys)
        batch.request_stats, batch.request_percentiles = [stats], [percentiles]
        batch.stored_requests = [requests.stored(keys)]
        batch.scans = requests.view_scans()
        if store_texts:
            batch.request_texts = [requests.texts(keys)]
    return batch


def _inputs(root: Path, batch: ObservedBatch,
            log: Log) -> Iterator[tuple[Fetched | LargeFile, PurePosixPath, str | None]]:
    """Every file below `root` with its path relative to it and where it lies on disk (DuckDB reads the
    per-request formats there, in place); a large file is hashed as it streams past (LargeFile). An
    archive gives its members instead, as files of a folder named after it (`assets.archives`: read in
    memory, no traversal, no links, limits): a member has no place on disk, so its per-request records are
    read from a temporary copy and stored in the warehouse (observed.stored_requests) rather than read in
    place."""
    paths = sorted(_all_files(root, batch))
    log(f"{root}: {len(paths)} files, {_megabytes(paths)} MB")
    large = hash_large_files(paths, log)
    for number, path in enumerate(paths, 1):
        if number % PROGRESS_EVERY_FILES == 0:
            log(f"{root}: read {number} of {len(paths)} files")
        fetched = large.get(path) or read_dump_file(path)
        rel = _relative(path, root)
        if archives.kind_of(head_of(fetched)) is None:
            yield fetched, rel, str(path.absolute())
            continue
        whole = fetched if isinstance(fetched, Fetched) else Fetched(fetched.name, fetched.data, fetched.sha256)
        for member, member_rel in archives.expand(whole, rel, batch.files, batch.rejects):
            yield member, member_rel, None


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
    batch.files.append(SourceFile(f.name, f.sha256, size_of(f), read.parsed.kind, "quarantined"))
    batch.rejects.append(Reject(f.name, "file", reason))


@dataclass
class _Point:
    """One measurement placed in a run: the file it came from and the merged content."""

    read: _Read
    measurement: Measurement
    requests_source: str | None = None
    index: int = 0  # position among its run's merged points (names a frame's request source)

    @property
    def source_name(self) -> str:
        return self.requests_source or self.read.fetched.name

    def key(self) -> str:
        """The request source's key: the file, and for a frame the measurement it belongs to."""
        if isinstance(self.measurement.requests, RequestScan):
            return self.source_name
        return f"{self.source_name}#{self.index}:{self.measurement.location}"

    def source(self, run: _Run) -> Source:
        m = self.measurement
        scanned_levels = isinstance(m.requests, RequestScan) and m.requests.level_columns
        kind, nominal = (None, None) if scanned_levels else _level(self, run.config["load_kind"])
        return Source(self.key(), self.source_name, m.requests, run.run_id, run.config["load_kind"], kind,
                      nominal)


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


@dataclass
class _Run:
    """A run before its records are read: config, label, id, and its merged measurements."""

    root: Path
    sidecar_folder: PurePosixPath
    tool: str
    config: dict[str, Any]
    label: str
    run_id: str
    combined: str
    sidecar_names: list[str]
    reads: list[_Read]
    points: list[_Point]


def _prepare_run(batch: ObservedBatch, root: Path, sidecar_folder: PurePosixPath, tool: str, several_tools: bool,
                 merged: dict[str, Any], sidecar_names: list[str], run_reads: list[_Read]) -> _Run | None:
    try:
        config = run_config(merged, sidecar_names)
    except SidecarProblem as problem:
        for read in run_reads:
            f = read.fetched
            batch.files.append(SourceFile(f.name, f.sha256, size_of(f), read.parsed.kind, "quarantined"))
        batch.rejects.append(Reject(sidecar_names[-1], f"run {root / sidecar_folder}", str(problem), merged))
        return None
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
        batch.files.append(SourceFile(f.name, f.sha256, size_of(f), read.parsed.kind, status,
                                      rows=len(read.parsed.measurements), note=read.parsed.note))
    points = _merge(ordered_reads)
    for index, point in enumerate(points):
        point.index = index
    return _Run(root, sidecar_folder, tool, config, label, run_id, combined, sidecar_names, ordered_reads, points)


def _window_values(group: dict[str, Any]) -> dict[str, Any]:
    """Throughput over the measured window of one repeat's records (first measured send -> last
    measured completion), from its request group."""
    row = empty_point()
    window = None if group["first_start_s"] is None else group["last_end_s"] - group["first_start_s"]
    row.update(requests_sent=group["requests_sent"], requests_ok=group["requests_ok"],
               requests_failed=group["requests_failed"], duration_s=window,
               mean_input_tokens=group["mean_input_tokens"], mean_output_tokens=group["mean_output_tokens"])
    if window and window > 0:
        row.update(achieved_requests_per_s=group["requests_ok"] / window,
                   input_tokens_per_s=(group["input_tokens_sum"] or 0) / window,
                   output_tokens_per_s=(group["output_tokens_sum"] or 0) / window)
        row["total_tokens_per_s"] = row["input_tokens_per_s"] + row["output_tokens_per_s"]
    return row


def _expand(run: _Run, groups: dict[str, list[dict[str, Any]]]) -> list[tuple[_Point, dict[str, Any] | None]]:
    """Each point with its request group: a generic file with level columns becomes one point per load
    level its rows hold (levels whose every row was quarantined are left out)."""
    out = []
    for point in run.points:
        m = point.measurement
        if m.requests is None:
            out.append((point, None))
            continue
        found = [g for g in groups.get(point.key(), []) if g["requests_sent"] + g["requests_warmup_excluded"]
                 + g["requests_cooldown_excluded"] > 0]
        if not (isinstance(m.requests, RequestScan) and m.requests.level_columns):
            out.append((point, found[0] if found else None))
            continue
        for group in found:
            rate, concurrency = group["file_offered_rate_per_s"], group["file_concurrency"]
            load_kind = "rate" if rate is not None else ("concurrency" if concurrency is not None else None)
            level = Measurement(location=generic.level_location(rate, concurrency, m.requests.level_columns),
                                load_kind=load_kind, offered_rate_per_s=rate, concurrency=concurrency,
                                requests=m.requests)
            out.append((_Point(point.read, level, point.requests_source, point.index), group))
    return out


def _assemble_run(batch: ObservedBatch, run: _Run, groups: dict[str, list[dict[str, Any]]]) -> None:
    """The run's load levels and repeats, its measurement rows and where its request groups sit
    (`groups`: the request pass's groups by source key)."""
    config = dict(run.config)
    placed = _expand(run, groups)
    levels: dict[tuple[str, float | None, int], list[tuple[_Point, dict | None]]] = defaultdict(list)
    for i, (point, group) in enumerate(placed):
        kind, nominal = _level(point, config["load_kind"])
        levels[(kind, nominal, -1 if nominal is not None else i)].append((point, group))

    def achieved(point: _Point, group: dict | None) -> float:
        value = point.measurement.values.get("achieved_requests_per_s")
        if value is None and group is not None:
            value = _window_values(group)["achieved_requests_per_s"]
        return value or 0.0

    def level_order(item):
        (kind, nominal, _i), pts = item
        return (kind != config["load_kind"], nominal if nominal is not None else achieved(*pts[0]),
                pts[0][0].read.fetched.name)

    max_repeats, request_count, formats = 0, 0, set()
    for load_index, ((kind, _nominal, _i), pts) in enumerate(sorted(levels.items(), key=level_order)):
        pts.sort(key=lambda p: (p[0].read.fetched.name, p[0].measurement.location))
        max_repeats = max(max_repeats, len(pts))
        for repeat_index, (point, group) in enumerate(pts):
            m, read = point.measurement, point.read
            formats.add(read.parsed.kind)
            keys = {"run_id": run.run_id, "load_index": load_index, "repeat_index": repeat_index}
            row = {**keys, "load_kind": kind, "offered_rate_per_s": m.offered_rate_per_s,
                   "concurrency": m.concurrency}
            values = {**empty_point(), **m.values}
            if group is not None and values.get("achieved_requests_per_s") is None:
                values.update({k: v for k, v in _window_values(group).items() if v is not None})
            row.update(values)
            row.update({"has_requests": group is not None, "source": read.fetched.name,
                        "source_sha256": read.fetched.sha256, "location": m.location,
                        "tool_definitions": read.parsed.definitions, "evidence": "observed",
                        "_source": read.fetched.name, "_location": m.location})
            batch.measurements.append(row)
            batch.tool_metrics += [{**keys, "tool": read.parsed.tool, "metric": metric, "statistic": stat,
                                    "value": value, "unit": unit, "tool_definitions": read.parsed.definitions}
                                   for metric, stat, value, unit in m.tool_metrics]
            if group is not None:
                request_count += group["requests_sent"] + group["requests_warmup_excluded"] \
                    + group["requests_cooldown_excluded"]
                in_place = isinstance(m.requests, RequestScan) and m.requests.data is None
                batch.request_sources.append({
                    **keys, "source": point.source_name, "source_sha256": _sha_of(run, point.source_name),
                    "reader": "read in place" if in_place else "stored in observed.stored_requests",
                    "location": m.location, "source_key": group["source_key"],
                    "file_offered_rate_per_s": group["file_offered_rate_per_s"],
                    "file_concurrency": group["file_concurrency"],
                    "first_ordinal": group["first_ordinal"], "first_start_s": group["first_start_any_s"],
                    "level_kind": group["level_kind"], "level_nominal": group["level_nominal"],
                    "requests": group["requests_sent"] + group["requests_warmup_excluded"]
                    + group["requests_cooldown_excluded"],
                    "rows_quarantined": group["rows_quarantined"], "evidence": "observed"})
    batch.runs.append({
        "run_id": run.run_id,
        "run_label": run.label,
        "tool": run.tool,
        "tool_version": config.pop("tool_version"),
        **config,
        "load_points": len(levels),
        "repeats_max": max_repeats,
        "requests": request_count,
        "formats": ", ".join(sorted(formats)),
        "sidecar": " + ".join(run.sidecar_names),
        "report_dir": str(run.root / run.sidecar_folder),
        "source_sha256": run.combined,
        "evidence": "observed",
        "_source": run.sidecar_names[-1],
        "_location": f"run {run.label}",
    })


def _drop_unreadable(batch: ObservedBatch, run: _Run, unreadable: dict[str, str]) -> None:
    """Points whose per-request file DuckDB could not read: quarantined with the reason, left out."""
    kept = []
    for point in run.points:
        reason = unreadable.get(point.key()) if point.measurement.requests is not None else None
        if reason is None:
            kept.append(point)
            continue
        batch.rejects.append(Reject(point.source_name, "file", reason))
        batch.files = [dataclasses.replace(f, status="quarantined", rows=0) if f.source == point.source_name
                       else f for f in batch.files]
    run.points = kept


def _sha_of(run: _Run, name: str) -> str | None:
    return next((r.fetched.sha256 for r in run.reads if r.fetched.name == name), None)


def collect_all(roots: list[str], store_texts: bool = False, log: Log | None = None) -> ObservedBatch:
    """Runs below every dumps folder; a label used twice is quarantined the second time."""
    total = ObservedBatch(store_texts=store_texts)
    labels: dict[str, str] = {}
    for root in roots:
        batch = collect(Path(root), store_texts, log)
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
        kept = pl.col("run_id").is_in(list(dropped)).not_()
        total.measurements += [m for m in batch.measurements if m["run_id"] not in dropped]
        total.tool_metrics += [m for m in batch.tool_metrics if m["run_id"] not in dropped]
        total.request_sources += [s for s in batch.request_sources if s["run_id"] not in dropped]
        for name in ("request_stats", "request_percentiles", "stored_requests"):
            getattr(total, name).extend(frame.filter(kept) for frame in getattr(batch, name))
        dropped_keys = {s["source_key"] for s in batch.request_sources if s["run_id"] in dropped}
        total.scans += [(key, select) for key, select in batch.scans if key not in dropped_keys]
        total.request_texts += [frame.filter(kept) for frame in batch.request_texts]
        total.rejects += batch.rejects
        total.request_rejects += batch.request_rejects
        total.files += batch.files
    return total
