"""Every run below the dumps folders: files walked and recognised by content (the registry of dump
formats), grouped by their deepest `run.yaml`, their per-request records read in one DuckDB pass."""

from __future__ import annotations

import dataclasses
import functools
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

import polars as pl

from assets.core.errors import IngestError
from assets.core.records import Reject, SourceFile
from assets.formats.dumps import lookalikes, registry
from assets.formats.dumps.decode import complete
from assets.inputs import archives
from assets.inputs.files import (
    Fetched,
    LargeFile,
    display,
    hash_large_files,
    head_of,
    megabytes,
    read_dump_file,
    size_of,
    walk_files,
    without_bytes,
)
from assets.inputs.textinput import encoding_problem
from assets.request_records.request_pass import RequestPass
from assets.runs import assemble, quality
from assets.runs.assemble import Read, Run, drop_unreadable, prepare_run, quarantine_file, split_configs
from assets.runs.batch import IDLE_SIDECAR_NOTE, REQUEST_SOURCE_SCHEMA, ObservedBatch, merge_batches
from assets.runs.levels import assemble_run
from assets.runs.partition import RunPartition, governing_sidecars, plan_partitions, relative
from assets.runs.sidecar import SIDECAR, merge_sidecars, read_sidecar

Log = Callable[[str], None]
PROGRESS_EVERY_FILES = 200  # a folder of many small dumps reports its progress this often


def _silent(message: str) -> None:
    pass


def _naming(log: Log, prefix: str, name: str) -> Log:
    def named(message: str) -> None:
        log(name + message[len(prefix) :] if message.startswith(prefix) else message)

    return named


def collect(
    root: Path,
    store_texts: bool = False,
    log: Log | None = None,
    links_into: Sequence[str] | None = None,
    partition: RunPartition | None = None,
    records_dir: Path | None = None,
) -> ObservedBatch:
    """Every run below one dumps folder, or of one of its partitions (prompt and response texts only with
    `store_texts`); `log` is told what is being read as it goes (a folder of large dumps takes a while); links
    lead only into `root` and the folders of `links_into` (None: anywhere; see walk_files); with `records_dir`
    (the warehouse's), the files read in place are copied there as the request pass checks them (RequestPass)."""
    log = log or _silent
    if not root.is_dir():
        raise IngestError(f"{root}: dumps folder does not exist or is not a folder")
    if partition is not None:  # its messages name the partition: "<dumps folder>: <run.yaml folder>: ..."
        log = _naming(log, f"{root}:", f"{partition.label}:")
    batch = ObservedBatch(store_texts=store_texts)
    sidecars, reads, quality_reads, damaged, unreadable = _read_files(root, batch, log, links_into, partition)
    reads, quality_reads = assemble.without_unreadable(root, batch, reads, quality_reads, unreadable)
    batch.quality, batch.quality_rejects, batch.quality_files = quality.quality_rows(
        quality_reads, lambda folder: _settings(root, folder, sidecars)
    )
    prepared = _prepare_runs(root, batch, sidecars, reads, damaged)
    points = sum(len(run.points) for run in prepared)
    log(
        f"{root}: {len(prepared)} run{'' if len(prepared) == 1 else 's'}, "
        f"{points} load point{'' if points == 1 else 's'}"
    )
    _read_requests(root, batch, prepared, store_texts, log, records_dir)
    return batch


def _settings(
    root: Path, folder: PurePosixPath, sidecars: dict[PurePosixPath, dict[str, Any]]
) -> tuple[dict[str, Any], str | None]:
    """The run.yaml keys governing `folder` (deeper files win) and the deepest run.yaml's name, if any."""
    chain = governing_sidecars(folder, sidecars)
    merged = merge_sidecars(sidecars[link] for link in chain)
    return merged, str(root / chain[-1] / SIDECAR) if chain else None


def _read_files(
    root: Path,
    batch: ObservedBatch,
    log: Log,
    links_into: Sequence[str] | None = None,
    partition: RunPartition | None = None,
) -> tuple[
    dict[PurePosixPath, dict[str, Any]],
    list[Read],
    list[quality.QualityRead],
    list[PurePosixPath],
    dict[PurePosixPath, str],
]:
    """The run.yaml sidecars below `root` (by folder), the dump files read (each content once), the quality
    files (a file no dump reader recognises is offered to the quality readers), the folder of each damaged dump
    (quarantined) and why each unreadable run.yaml cannot be read (by folder; quarantined); every file looked at
    is listed in the batch's inventory (quality files when their figures are placed: assets.runs.quality)."""
    sidecars: dict[PurePosixPath, dict[str, Any]] = {}
    unreadable: dict[PurePosixPath, str] = {}  # folder -> why its run.yaml cannot be read
    reads: list[Read] = []
    quality_reads: list[quality.QualityRead] = []
    damaged: list[PurePosixPath] = []
    seen: dict[str, str] = {}
    for fetched, rel, path in _inputs(root, batch, log, links_into, partition, damaged):
        if rel.name == SIDECAR:
            try:
                sidecars[rel.parent] = read_sidecar(fetched)
            except IngestError as problem:  # it costs the runs it governs, never the build
                unreadable[rel.parent] = _without_name(str(problem), fetched.name)  # quarantined by assemble
            status = "quarantined" if rel.parent in unreadable else "read"
            note = unreadable.get(rel.parent, "")
            batch.files.append(
                SourceFile(fetched.name, fetched.sha256, size_of(fetched), "run.yaml sidecar", status, note=note)
            )
            continue
        if fetched.sha256 in seen:
            batch.files.append(
                SourceFile(
                    fetched.name,
                    fetched.sha256,
                    size_of(fetched),
                    "duplicate",
                    "skipped",
                    note=f"same content as {seen[fetched.sha256]}: read once",
                )
            )
            continue
        seen[fetched.sha256] = fetched.name
        try:
            parsed, _dump = registry.parse_file(fetched, path)
        except IngestError as problem:  # a bad file costs itself, never the run nor the build
            if _unreadable(batch, fetched, str(problem)):
                damaged.append(rel.parent)
            continue
        evaluation = None
        if parsed is None:
            try:  # a large results file begun like lm-eval's is read whole (`whole`), never skipped for its size
                whole = functools.partial(complete, _dump, fetched)
                evaluation = quality.recognise(_dump, fetched.name, fetched.sha256, size_of(fetched), rel.parent, whole)
            except IngestError as problem:
                _unreadable(batch, fetched, str(problem))
                continue
        if evaluation is not None:
            quality_reads.append(evaluation)
        elif parsed is None:
            _unrecognised(batch, fetched)
        elif parsed.note and not parsed.measurements and not parsed.problems:  # skipped, or not a load level
            status = "skipped" if parsed.kind in registry.SKIPPED else "read"
            batch.files.append(
                SourceFile(fetched.name, fetched.sha256, size_of(fetched), parsed.kind, status, note=parsed.note)
            )
        else:
            if parsed.kind in registry.READ_IN_PLACE and not isinstance(fetched, LargeFile):
                fetched = without_bytes(fetched)  # DuckDB reads it from disk: keep no copy
            reads.append(Read(fetched, rel.parent, parsed))
    return sidecars, reads, quality_reads, damaged, unreadable


def _unrecognised(batch: ObservedBatch, fetched: Fetched | LargeFile, problem: str | None = None) -> None:
    """A file no reader recognises: skipped with what it looks like where that is recognisable (`lookalikes`),
    or quarantined when it is a dump saved as UTF-16/32. `problem`: why it could not be read (a file that looked
    like JSON and is not), said when nothing more is recognisable."""
    head = head_of(fetched)
    wide = head.startswith((b"\xff\xfe", b"\xfe\xff"))
    looks = None if wide or not head else lookalikes.looks_like(fetched.name, head)
    if not head:
        note = "empty file (0 bytes)"
    elif wide:
        note = encoding_problem(head) or ""
    elif looks:
        note = f"{looks}: not read"
    else:
        what = _without_name(problem, fetched.name) if problem else lookalikes.json_shape(head)
        note = "not a dump format this version reads" + (f" ({what})" if what else "")
    batch.files.append(
        SourceFile(
            fetched.name,
            fetched.sha256,
            size_of(fetched),
            "unrecognised",
            "quarantined" if wide else "skipped",
            note=note,
        )
    )
    if wide:
        batch.rejects.append(Reject(fetched.name, "file", note))


def _without_name(problem: str, name: str) -> str:
    return problem.removeprefix(f"{name}: ")


def _unreadable(batch: ObservedBatch, fetched: Fetched | LargeFile, problem: str) -> bool:
    """A file that could not be read: quarantined with the reason when its head shows a dump or a JSON document (a
    damaged file; its run is read without it: True), else skipped as a file no reader knows (`_unrecognised`)."""
    kind = registry.recognise_unreadable(fetched)
    if kind is None:
        _unrecognised(batch, fetched, problem)
        return False
    batch.files.append(SourceFile(fetched.name, fetched.sha256, size_of(fetched), kind, "quarantined"))
    batch.rejects.append(Reject(fetched.name, "file", problem))
    return True


def _prepare_runs(
    root: Path,
    batch: ObservedBatch,
    sidecars: dict[PurePosixPath, dict[str, Any]],
    reads: list[Read],
    damaged: Sequence[PurePosixPath] = (),
) -> list[Run]:
    """The files read grouped into runs: one per deepest run.yaml and tool (a file without one is quarantined);
    a run.yaml whose every dump file was damaged (`damaged`: their folders) quarantines its run as a whole."""
    runs: dict[tuple[PurePosixPath, str], list[Read]] = defaultdict(list)
    for read in reads:
        chain = governing_sidecars(read.folder, sidecars)
        if not chain:
            quarantine_file(
                batch,
                read,
                f"no {SIDECAR} in {root} above this file describes its config (accelerator, model, precision, runtime)",
            )
            continue
        runs[(chain[-1], read.parsed.tool)].append(read)
    tools_per_sidecar: dict[PurePosixPath, set[str]] = defaultdict(set)
    for sidecar_folder, tool in runs:
        tools_per_sidecar[sidecar_folder].add(tool)
    _quarantine_emptied_runs(root, batch, sidecars, {folder for folder, _tool in runs}, damaged)
    _note_idle_sidecars(root, batch, sidecars, {folder for folder, _tool in runs})
    prepared = []
    for (sidecar_folder, tool), run_reads in sorted(runs.items()):
        chain = governing_sidecars(sidecar_folder, sidecars)
        merged = merge_sidecars(sidecars[link] for link in chain)
        names = [str(root / link / SIDECAR) for link in chain]
        run = prepare_run(
            batch, root, sidecar_folder, tool, len(tools_per_sidecar[sidecar_folder]) > 1, merged, names, run_reads
        )
        if run is not None:
            prepared += split_configs(run)
    return prepared


EMPTIED_RUN_REASON = (
    "every dump file it governs is damaged ({count} quarantined, each with its reason): "
    "the run is quarantined as a whole"
)


def _quarantine_emptied_runs(
    root: Path,
    batch: ObservedBatch,
    sidecars: dict[PurePosixPath, dict[str, Any]],
    used: set[PurePosixPath],
    damaged: Sequence[PurePosixPath],
) -> None:
    """A run.yaml that governs damaged dumps and nothing read: its run is quarantined as a whole, said (the
    run.yaml's listing carries the reason, so it is not called idle)."""
    counts: dict[PurePosixPath, int] = defaultdict(int)
    for folder in damaged:
        chain = governing_sidecars(folder, sidecars)
        if chain and chain[-1] not in used:
            counts[chain[-1]] += 1
    for folder, count in sorted(counts.items()):
        name, reason = str(root / folder / SIDECAR), EMPTIED_RUN_REASON.format(count=count)
        batch.rejects.append(Reject(name, f"run {root / folder}", reason))
        batch.files = [
            dataclasses.replace(f, note=reason) if f.detected_format == "run.yaml sidecar" and f.source == name else f
            for f in batch.files
        ]


def _note_idle_sidecars(
    root: Path, batch: ObservedBatch, sidecars: dict[PurePosixPath, dict[str, Any]], used: set[PurePosixPath]
) -> None:
    """A run.yaml that is no run's sidecar nor above one says so in the inventory (the terminal lists them)."""
    governing = {link for folder in used for link in governing_sidecars(folder, sidecars)}
    idle = {str(root / folder / SIDECAR) for folder in sidecars if folder not in governing}
    batch.files = [
        dataclasses.replace(f, note=IDLE_SIDECAR_NOTE)
        if f.detected_format == "run.yaml sidecar" and f.source in idle and not f.note
        else f
        for f in batch.files
    ]


def _read_requests(
    root: Path, batch: ObservedBatch, prepared: list[Run], store_texts: bool, log: Log, records_dir: Path | None = None
) -> None:
    """The runs' per-request records in one DuckDB pass, then each run's load levels and repeats placed."""
    with RequestPass(store_texts, records_dir) as requests:
        sources = [
            point.source(run) for run in prepared for point in run.points if point.measurement.requests is not None
        ]
        for source in sources:
            requests.add(source)
        if sources:
            log(f"{root}: percentiles and intervals of {len(sources)} per-request record sets in one DuckDB scan")
        groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for group in requests.run().iter_rows(named=True):
            groups[group["source_key"]].append(group)
        batch.request_rejects += requests.rejects()
        for run in prepared:
            drop_unreadable(batch, run, requests.unreadable)
            assemble_run(batch, run, groups)
        keys = pl.DataFrame(batch.request_sources, schema=REQUEST_SOURCE_SCHEMA)
        stats, percentiles = requests.finish(keys)
        batch.request_stats, batch.request_percentiles = [stats], [percentiles]
        batch.stored_requests = [requests.stored(keys)]
        batch.scans = requests.view_scans()
        if store_texts:
            batch.request_texts = [requests.texts(keys)]


def _inputs(
    root: Path,
    batch: ObservedBatch,
    log: Log,
    links_into: Sequence[str] | None = None,
    partition: RunPartition | None = None,
    damaged: list[PurePosixPath] | None = None,
) -> Iterator[tuple[Fetched | LargeFile, PurePosixPath, str | None]]:
    """Every file below `root` with its path relative to it and where it lies on disk (DuckDB reads the
    per-request formats there, in place); a large file is hashed as it streams past (LargeFile). An
    archive gives its members instead, as files of a folder named after it (`assets.inputs.archives`: read in
    memory, no traversal, no links, limits): a member has no place on disk, so its per-request records are
    read from a temporary copy and stored in the warehouse (observed.stored_requests) rather than read in
    place. A partition gives its files (and what its part of the walk skipped) instead of a walk. A file that
    cannot be read is quarantined with the reason, its folder added to `damaged`."""
    if partition is None:
        paths = sorted(_all_files(root, batch, links_into))
    else:
        paths = sorted(Path(p) for p in partition.files)
        batch.files += partition.skipped
    log(f"{root}: {len(paths)} files, {megabytes(paths)} MB")
    large = hash_large_files(paths, log)
    for number, path in enumerate(paths, 1):
        if number % PROGRESS_EVERY_FILES == 0:
            log(f"{root}: read {number} of {len(paths)} files")
        try:
            fetched = large.get(path) or read_dump_file(path)
        except IngestError as problem:  # unreadable (permissions, over the size limit): it costs only itself
            batch.files.append(SourceFile(display(path), None, None, "unreadable", "quarantined", note=str(problem)))
            batch.rejects.append(Reject(display(path), "file", str(problem)))
            if damaged is not None:
                damaged.append(relative(path, root).parent)
            continue
        rel = relative(path, root)
        if archives.kind_of(head_of(fetched)) is None:
            yield fetched, rel, str(path.absolute())
            continue
        whole = fetched if isinstance(fetched, Fetched) else Fetched(fetched.name, fetched.data, fetched.sha256)
        for member, member_rel in archives.expand(whole, rel, batch.files, batch.rejects):
            yield member, member_rel, None


def _all_files(root: Path, batch: ObservedBatch, links_into: Sequence[str] | None = None) -> list[Path]:
    """The regular files below `root`; what is not read (FIFOs, devices, links out, ...) listed with the reason."""

    def skipped(path: Path, kind: str, reason: str) -> None:
        batch.files.append(SourceFile(display(path), None, None, kind, "skipped", note=reason))

    return list(walk_files(root, links_into=None if links_into is None else list(links_into), skipped=skipped))


def collect_partition(
    partition: RunPartition, store_texts: bool = False, log: Log | None = None, records_dir: Path | None = None
) -> ObservedBatch:
    """The runs of one partition (`plan_partitions`): its files read as `collect` reads a whole dumps folder."""
    return collect(Path(partition.root), store_texts, log, partition=partition, records_dir=records_dir)


def collect_all(
    roots: list[str],
    store_texts: bool = False,
    log: Log | None = None,
    links_into: Sequence[str] | None = None,
    records_dir: Path | None = None,
) -> ObservedBatch:
    """Runs below every dumps folder, read partition by partition and merged
    (`assets.runs.batch.merge_batches`). A link may lead into any of the dumps folders or of `links_into` (None:
    anywhere). With `records_dir`, see `collect`."""
    partitions = plan_partitions(roots, links_into)
    return merge_batches([collect_partition(p, store_texts, log, records_dir) for p in partitions], store_texts)
