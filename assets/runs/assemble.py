"""Runs assembled from the files read below one sidecar: measurements merged across files (a stage and
its per-request records), split into configs and workloads (split_configs); assets.runs.levels places them in load
levels and repeats and writes the rows."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from assets.core.records import Reject, SourceFile
from assets.formats.dumps.exchange import CAP, Measurement, Parsed, RequestScan, load_cap, load_generator_settings
from assets.inputs.files import Fetched, LargeFile, sha256_bytes, size_of
from assets.request_records.request_pass import Source
from assets.runs.batch import ObservedBatch
from assets.runs.quality import QualityRead
from assets.runs.sidecar import SIDECAR, SidecarProblem, run_config, unreadable_above, with_overrides


@dataclass
class Read:
    fetched: Fetched | LargeFile
    folder: PurePosixPath
    parsed: Parsed


def quarantine_file(batch: ObservedBatch, read: Read, reason: str) -> None:
    f = read.fetched
    batch.files.append(SourceFile(f.name, f.sha256, size_of(f), read.parsed.kind, "quarantined"))
    batch.rejects.append(Reject(f.name, "file", reason))


UNREADABLE_RUN = "every file it governs (below its folder) is quarantined with it; the other runs read on"


def without_unreadable(
    root: Path,
    batch: ObservedBatch,
    reads: list[Read],
    quality_reads: list[QualityRead],
    unreadable: dict[PurePosixPath, str],
) -> tuple[list[Read], list[QualityRead]]:
    """The files read that a readable run.yaml governs. A run.yaml that cannot be read (not YAML, not a mapping:
    `unreadable`, folder -> problem) costs only the runs it governs: one quarantine row for it says why, and every
    file below it is listed as quarantined, naming it (as a run.yaml with a bad key quarantines its run)."""
    for folder, problem in sorted(unreadable.items()):
        batch.rejects.append(
            Reject(str(root / folder / SIDECAR), f"run {root / folder}", f"{problem}; {UNREADABLE_RUN}")
        )
    kept: list[Read] = []
    kept_quality: list[QualityRead] = []
    for read in reads:
        above = unreadable_above(read.folder, unreadable)
        if above is None:
            kept.append(read)
        else:
            f, note = read.fetched, f"governed by {root / above / SIDECAR}, which cannot be read"
            batch.files.append(SourceFile(f.name, f.sha256, size_of(f), read.parsed.kind, "quarantined", note=note))
    for q in quality_reads:
        above = unreadable_above(q.folder, unreadable)
        if above is None:
            kept_quality.append(q)
        else:
            note = f"governed by {root / above / SIDECAR}, which cannot be read"
            batch.files.append(SourceFile(q.name, q.sha256, q.size, q.parsed.kind, "quarantined", note=note))
    return kept, kept_quality


@dataclass
class Point:
    """One measurement placed in a run: the file it came from and the merged content."""

    read: Read
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

    def source(self, run: Run) -> Source:
        """The point's per-request records as a source of the request pass (points with records only)."""
        m = self.measurement
        assert m.requests is not None
        scanned_levels = isinstance(m.requests, RequestScan) and m.requests.level_columns
        kind, nominal = (None, None) if scanned_levels else level_of(self, run.config["load_kind"])
        return Source(
            self.key(),
            self.source_name,
            m.requests,
            run.run_id,
            run.config["load_kind"],
            kind,
            nominal,
            sha_of(run, self.source_name),
        )


def merge_measurements(run_reads: list[Read]) -> list[Point]:
    """Measurements of one folder with the same merge key are one measurement (a stage file and its
    per-request records, AIPerf's aggregate and records, LLMPerf's summary and responses)."""
    points: list[Point] = []
    keyed: dict[tuple[PurePosixPath, str], Point] = {}
    for read in run_reads:
        for m in read.parsed.measurements:
            if m.merge_key is None:
                points.append(Point(read, m, read.fetched.name if m.requests is not None else None))
                continue
            scope = read.folder
            for _ in range(m.merge_up):
                scope = scope.parent
            key = (scope, m.merge_key)
            if key not in keyed:
                keyed[key] = Point(read, m, read.fetched.name if m.requests is not None else None)
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


def level_of(point: Point, run_kind: str) -> tuple[str, float | None]:
    m = point.measurement
    kind = m.load_kind or run_kind
    nominal = m.offered_rate_per_s if kind == "rate" else m.concurrency
    return kind, None if nominal is None else round(nominal, 6)


@dataclass
class Run:
    """A run before its records are read: config, label, id, and its merged measurements."""

    root: Path
    sidecar_folder: PurePosixPath
    tool: str
    config: dict[str, Any]
    label: str
    run_id: str
    combined: str
    sidecar_names: list[str]
    reads: list[Read]
    points: list[Point]
    workload: dict[str, Any] = dataclasses.field(default_factory=dict)
    sidecar: dict[str, Any] = dataclasses.field(default_factory=dict)  # run.yaml's merged keys (overrides apply)


def prepare_run(
    batch: ObservedBatch,
    root: Path,
    sidecar_folder: PurePosixPath,
    tool: str,
    several_tools: bool,
    merged: dict[str, Any],
    sidecar_names: list[str],
    run_reads: list[Read],
) -> Run | None:
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
        batch.files.append(
            SourceFile(
                f.name,
                f.sha256,
                size_of(f),
                read.parsed.kind,
                status,
                rows=len(read.parsed.measurements),
                note=read.parsed.note,
            )
        )
    points = merge_measurements(ordered_reads)
    for index, point in enumerate(points):
        point.index = index
    return Run(
        root, sidecar_folder, tool, config, label, run_id, combined, sidecar_names, ordered_reads, points, {}, merged
    )


def settings_identity(settings: dict[str, Any]) -> str:
    """Settings as one canonical text (keys sorted): what tells configs and workloads apart, as stored."""
    return json.dumps(settings, sort_keys=True, default=str)


# Measurements whose files state the same workload but whose mean input or output tokens per request differ by
# more than this factor did not measure the same thing (vLLM 0.26 writes no dataset name: a random-4k run and a
# ShareGPT run at one rate look alike but for their token counts): kept apart, the observed mix in the label.
TOKEN_MIX_APART = 1.5


def _mean_tokens(point: Point) -> tuple[float, float] | None:
    values = point.measurement.values
    mean_in, mean_out = values.get("input_tokens_mean"), values.get("output_tokens_mean")
    return None if mean_in is None or mean_out is None else (float(mean_in), float(mean_out))


def _close(a: float, b: float) -> bool:
    return max(a, b) <= TOKEN_MIX_APART * min(a, b) if min(a, b) > 0 else a == b


def token_mixes(points: list[Point]) -> list[tuple[dict[str, Any], list[Point]]]:
    """`points` (one stated workload) grouped by their mean input and output tokens per request: one group, with
    no extra key, when they agree within TOKEN_MIX_APART; otherwise one per mix, named by its first point's
    rounded means (`observed_mean_input_tokens`, ...). A point whose file gives no means joins the first group
    (nothing says it differs)."""
    clusters: list[tuple[tuple[float, float], list[Point]]] = []
    unknown: list[Point] = []
    for point in points:
        mix = _mean_tokens(point)
        if mix is None:
            unknown.append(point)
            continue
        home = next((c for c in clusters if _close(c[0][0], mix[0]) and _close(c[0][1], mix[1])), None)
        if home is None:
            clusters.append((mix, [point]))
        else:
            home[1].append(point)
    if len(clusters) <= 1:
        return [({}, points)]
    clusters[0][1].extend(unknown)
    return [
        ({"observed_mean_input_tokens": round(mix[0]), "observed_mean_output_tokens": round(mix[1])}, members)
        for mix, members in clusters
    ]


def workload_identity(tool: str, workload: dict[str, Any]) -> dict[str, Any]:
    """The part of a workload that makes it a different one: the load generator's own settings are not (its level,
    cap, sample size and seed: `load_generator_settings`), they are the sweep's axis."""
    settings = load_generator_settings(tool)
    return {k: v for k, v in workload.items() if k not in settings}


def cap_settings(tool: str, workload: dict[str, Any]) -> dict[str, Any]:
    """The concurrency cap a measurement's workload states at its offered rate, as the tool spells it."""
    return {
        k: workload[k]
        for k, role in load_generator_settings(tool).items()
        if role == CAP and workload.get(k) is not None
    }


def caps_apart(tool: str, run_kind: str, points: list[Point]) -> bool:
    """Whether two of `points` sit at one load level with different concurrency caps: the level then does not tell
    them apart (neither is a repeat of the other, and the rate alone does not order them), so the caps must."""
    caps: dict[tuple[str, float], set[float | None]] = defaultdict(set)
    for point in points:
        kind, nominal = level_of(point, run_kind)
        if nominal is not None:  # a level without a nominal load is a level of its own
            caps[(kind, nominal)].add(load_cap(tool, point.measurement.workload))
    return any(len(c) > 1 for c in caps.values())


def split_configs(run: Run) -> list[Run]:
    """The run's measurements apart by what distinguishes them besides the load: different server settings are
    different configs, different workloads (dataset, length targets, burstiness, tool settings) are different
    measurements; each becomes its own run, its label naming only the settings that differ between them. The load
    generator's own settings (rate, concurrency cap, prompt count, seed: `load_generator_settings`) are the sweep's
    axis, not its identity: files equal in all else are one sweep, whose measurements at one load level are repeats,
    unless one level holds files with different caps, which are then kept apart by cap (`caps_apart`)."""
    stated: dict[tuple[str, str], list[Point]] = defaultdict(list)
    for point in run.points:
        m = point.measurement
        identity = workload_identity(run.tool, m.workload)
        stated[(settings_identity(m.server_settings), settings_identity(identity))].append(point)
    groups: dict[tuple[str, str], list[Point]] = {}
    for (server, workload), stated_points in stated.items():
        for mix, points in token_mixes(stated_points):
            if not caps_apart(run.tool, run.config["load_kind"], points):
                groups[(server, settings_identity({**json.loads(workload), **mix}))] = points
                continue
            for point in points:  # kept apart by cap, as before caps were the sweep's axis
                cap = cap_settings(run.tool, point.measurement.workload)
                groups.setdefault((server, settings_identity({**json.loads(workload), **mix, **cap})), []).append(point)
    if len(groups) == 1:
        (server, workload), points = next(iter(groups.items()))
        return [_with_settings(run, "", points, json.loads(server), json.loads(workload))]
    decoded = {key: (json.loads(key[0]), json.loads(key[1])) for key in groups}
    differing = {
        k
        for server, workload in decoded.values()
        for k, v in [*server.items(), *workload.items()]
        if any(v != {**s, **w}.get(k, _ABSENT) for s, w in decoded.values())
    }
    out = []
    for key, points in sorted(groups.items()):
        server, workload = decoded[key]
        named = {**server, **workload}
        suffix = " ".join(f"{k}={named[k]}" for k in sorted(differing) if k in named) or "unstated"
        out.append(_with_settings(run, suffix, points, server, workload))
    return out


_ABSENT = object()


def _with_settings(run: Run, suffix: str, points: list[Point], server: dict[str, Any], workload: dict[str, Any]) -> Run:
    """`run` narrowed to `points`: run.yaml's config with the overrides these files match (`overrides: [{when,
    set}]`), its label (`suffix`: the settings that tell it from its siblings) and id, the server settings the
    files state merged into the runtime settings (the files' win: a sweep folder is more specific than the sidecar
    above it), and the workload."""
    config, label = dict(run.config), run.label
    variant = with_overrides(run.sidecar, {**server, **workload})
    if variant != {k: v for k, v in run.sidecar.items() if k != "overrides"}:
        config = run_config(variant, run.sidecar_names)  # checked with every variant in prepare_run
        label = config.pop("label") or run.label
    else:
        config.pop("label", None)
    label = f"{label} [{suffix}]" if suffix else label
    if server:
        settings = json.loads(config["runtime_settings"]) if config.get("runtime_settings") else {}
        config["runtime_settings"] = settings_identity({**settings, **server})
    if not config.get("tool_version"):
        versions = sorted({p.read.parsed.tool_version for p in points if p.read.parsed.tool_version})
        config["tool_version"] = ", ".join(versions) or None
    names = {p.read.fetched.name for p in points} | {p.source_name for p in points}
    reads = [r for r in run.reads if r.fetched.name in names]
    combined = hashlib.sha256("".join(r.fetched.sha256 for r in reads).encode()).hexdigest()
    run_id = run.run_id if label == run.label else "run-" + sha256_bytes(f"{label}\n{combined}".encode())[:16]
    return dataclasses.replace(
        run,
        config=config,
        label=label,
        run_id=run_id,
        combined=combined,
        reads=reads,
        points=points,
        workload=workload,
    )


def drop_unreadable(batch: ObservedBatch, run: Run, unreadable: dict[str, str]) -> None:
    """Points whose per-request file DuckDB could not read: quarantined with the reason, left out."""
    kept = []
    for point in run.points:
        reason = unreadable.get(point.key()) if point.measurement.requests is not None else None
        if reason is None:
            kept.append(point)
            continue
        batch.rejects.append(Reject(point.source_name, "file", reason))
        batch.files = [
            dataclasses.replace(f, status="quarantined", rows=0) if f.source == point.source_name else f
            for f in batch.files
        ]
    run.points = kept


def sha_of(run: Run, name: str) -> str | None:
    return next((r.fetched.sha256 for r in run.reads if r.fetched.name == name), None)
