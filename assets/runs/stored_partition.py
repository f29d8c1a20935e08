"""One stored run partition result (`runs/<key>/<digest>/` of the warehouse or its run store): what decides whether
it is reused (each file's state, the partition's digest) and its files (rows.json, one Parquet file per frame, the
manifest written last); `partition_store` keeps them."""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from assets.core.errors import IngestError
from assets.core.records import Reject, SourceFile
from assets.inputs.files import sha256_bytes, sha256_file
from assets.runs.batch import ObservedBatch
from assets.runs.partition import RunPartition
from assets.runs.store import owned_select
from assets.warehouse.fingerprint import code_fingerprint

STORE_VERSION = "benchbill-run-partition-1"
ROW_FIELDS = ("runs", "measurements", "tool_metrics", "request_sources", "quality")
FRAME_FIELDS = ("request_stats", "request_percentiles", "stored_requests", "request_texts")
MANIFEST = "manifest.json"  # written last: a stored result without it is absent


@dataclass(frozen=True)
class FileState:
    """A file's checksum and what says it has not changed since: size, mtime, ctime, inode."""

    path: str
    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int
    sha256: str

    def unchanged(self, stat: os.stat_result) -> bool:
        return (self.size, self.mtime_ns, self.ctime_ns, self.inode) == (
            stat.st_size,
            stat.st_mtime_ns,
            stat.st_ctime_ns,
            stat.st_ino,
        )


def file_states(paths: Iterable[str], known: dict[str, FileState]) -> tuple[list[FileState], int]:
    """(each file's state, how many were hashed): the recorded checksum of a file whose size, mtime, ctime and
    inode are the recorded ones; the others hashed now, on every core (hashlib lets go of the GIL)."""
    found: list[tuple[str, os.stat_result]] = []
    for path in paths:
        try:
            found.append((path, os.stat(path)))
        except OSError as exc:
            raise IngestError(f"{path}: cannot be looked at ({exc.strerror}); check its permissions") from exc
    stale = [path for path, stat in found if path not in known or not known[path].unchanged(stat)]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        hashed = dict(zip(stale, pool.map(lambda p: sha256_file(Path(p)), stale)))
    states = [
        FileState(path, s.st_size, s.st_mtime_ns, s.st_ctime_ns, s.st_ino, hashed[path])
        if path in hashed
        else dataclasses.replace(known[path], ctime_ns=s.st_ctime_ns)
        for path, s in found
    ]
    return states, len(hashed)


@dataclass(frozen=True)
class PartitionResult:
    """Where a partition's results are stored and what it took to have them: `scanned` (its files read now)
    or reused; `files_hashed` of `files` checksummed now."""

    key: str
    label: str
    digest: str
    scanned: bool
    files: int
    files_hashed: int
    runs: int

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def partition_digest(partition: RunPartition, states: list[FileState], store_texts: bool) -> str:
    """What a partition's results depend on: itself, its files' contents, what its walk skipped, the code and the
    settings that change what is read (not where the warehouse folder is: its records are found where it is)."""
    lines = [STORE_VERSION, code_fingerprint(), f"store_texts={store_texts}", partition.root, partition.folder]
    lines += [f"file {s.path}\t{s.sha256}" for s in states]
    lines += [f"skipped {f.source}\t{f.detected_format}\t{f.note}" for f in partition.skipped]
    return sha256_bytes("\n".join(lines).encode())[:32]


def _json_value(value: Any) -> Any:
    """json.dumps' fallback: a value JSON cannot hold is an error naming it, never a silent string."""
    raise IngestError(f"run partition store: {type(value).__name__} value {value!r} cannot be stored as JSON")


def save_batch(folder: Path, batch: ObservedBatch, manifest: dict[str, Any], records_dir: Path) -> None:
    """Write a partition's results into `folder`: its rows, one Parquet file per frame, the manifest last."""
    rows: dict[str, Any] = {name: getattr(batch, name) for name in ROW_FIELDS}
    owned = {owned_select(records_dir / name): name for name in manifest["records"]}
    # an owned records file by its name (found in the warehouse's records folder wherever the warehouse is)
    rows["scans"] = [
        [key, None, owned[select]] if select in owned else [key, select, None] for key, select in batch.scans
    ]
    rows["rejects"] = [dataclasses.asdict(r) for r in batch.rejects]
    rows["request_rejects"] = [dataclasses.asdict(r) for r in batch.request_rejects]
    rows["files"] = [dataclasses.asdict(f) for f in batch.files]
    rows["quality_rejects"] = [dataclasses.asdict(r) for r in batch.quality_rejects]
    rows["quality_files"] = [dataclasses.asdict(f) for f in batch.quality_files]
    (folder / "rows.json").write_text(json.dumps(rows, default=_json_value))
    frames = {}
    for name in FRAME_FIELDS:
        frames[name] = len(getattr(batch, name))
        for index, frame in enumerate(getattr(batch, name)):
            frame.write_parquet(folder / f"{name}-{index}.parquet")
    (folder / "manifest.json").write_text(json.dumps({**manifest, "frames": frames}))


def load_batch(folder: Path, store_texts: bool, records_dir: Path) -> ObservedBatch:
    """A partition's stored results, as `collect_partition` gave them (its owned records in `records_dir`)."""
    return batch_from(
        json.loads((folder / "manifest.json").read_text()),
        json.loads((folder / "rows.json").read_text()),
        store_texts,
        lambda name: pl.read_parquet(folder / name),
        lambda name: owned_select(records_dir / name),
    )


def batch_from(
    manifest: dict[str, Any],
    rows: dict[str, Any],
    store_texts: bool,
    frame: Callable[[str], pl.DataFrame],
    records_select: Callable[[str], str],
) -> ObservedBatch:
    """A stored result as `collect_partition` gave it: its rows, its frames (`frame`: a stored file by name) and
    its scans of owned records (`records_select`: the SELECT of a records file by name, wherever they are)."""
    batch = ObservedBatch(store_texts=store_texts)
    for name in ROW_FIELDS:
        setattr(batch, name, rows[name])
    batch.scans = [(key, select or records_select(name)) for key, select, name in rows["scans"]]
    batch.rejects = [Reject(**r) for r in rows["rejects"]]
    batch.request_rejects = [Reject(**r) for r in rows["request_rejects"]]
    batch.files = [SourceFile(**f) for f in rows["files"]]
    batch.quality_rejects = [Reject(**r) for r in rows["quality_rejects"]]
    batch.quality_files = [SourceFile(**f) for f in rows["quality_files"]]
    for name, count in manifest["frames"].items():
        setattr(batch, name, [frame(f"{name}-{i}.parquet") for i in range(count)])
    return batch


def write_json(path: Path, content: Any) -> None:
    """Write `content` as JSON to `path` whole or not at all (a partial file renamed into place)."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    partial.write_text(json.dumps(content))
    os.replace(partial, path)


def manifest_for(
    partition: RunPartition, digest: str, runs: int, records: list[str], checksums: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """A stored result's manifest: its partition, its runs, the records files it reads and what each was when it
    was written (`records_checksum`: checked before it is reused)."""
    return {
        "key": partition.key,
        "label": partition.label,
        "digest": digest,
        "runs": runs,
        "records": records,
        "records_checksums": checksums,
    }
