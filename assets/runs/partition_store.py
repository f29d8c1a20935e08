"""Each run partition's results stored in the warehouse (`runs/`) and reused while its files are unchanged.

Per partition, `runs/<key>/current.json` records every file's checksum with its size, mtime, ctime and inode: a
file whose four are unchanged is not hashed again. The partition's results (what `collect_partition` yields,
its per-request records already owned by the warehouse) are stored in `runs/<key>/<digest>/`, the digest covering
the partition, its files' checksums, the code fingerprint and the settings that change what is read; a partition
whose digest is stored is not read again. Each stored folder is written under a temporary name and renamed, so a
kill leaves no half result under a real name, and a step in its own process (the multiprocess executor, a
Kubernetes pod) writes its own partition without the warehouse's writer lock. `runs/index.json` lists the
partitions of the last plan, in order: what the observed tables are assembled from. What one stored result is (its
files, its manifest, its digest and the file states it rests on) is in `stored_partition`.

With a run store on object storage (`WarehouseLayout.object_store`: S3, GCS), `ObjectPartitionStore` keeps the same
tree there: a partition is read with its records written to a scratch folder, then the records are uploaded (named
by content: written once), then the results under their final digest name, the manifest last (no rename on an
object store: a folder without its manifest is absent), and the stored scans read the records' URLs."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from assets.core.errors import IngestError
from assets.inputs.files import sha256_file
from assets.request_records.records_files import PARQUET_MAGIC, records_checksum, records_problem
from assets.runs.batch import ObservedBatch
from assets.runs.collect import collect_partition
from assets.runs.partition import RunPartition
from assets.runs.store import own_records, owned_select
from assets.runs.stored_partition import (
    MANIFEST,
    FileState,
    PartitionResult,
    batch_from,
    file_states,
    load_batch,
    manifest_for,
    partition_digest,
    save_batch,
    write_json,
)
from assets.warehouse.layout import WarehouseLayout
from assets.warehouse.objectstore import ObjectStore

Log = Callable[[str], None]


class PartitionStore:
    """The stored run partitions of one warehouse folder."""

    def __init__(self, layout: WarehouseLayout) -> None:
        self.layout = layout
        self.dir = layout.runs_dir
        self.damaged: dict[str, list[tuple[str, str]]] = {}  # by partition: records files found damaged, and why

    def _current(self, key: str) -> dict[str, Any] | None:
        path = self.dir / key / "current.json"
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            return None

    def _manifest_of(self, key: str, digest: str) -> dict[str, Any] | None:
        try:
            return json.loads((self.dir / key / digest / MANIFEST).read_text())
        except (OSError, ValueError):
            return None

    def _complete(self, key: str, digest: str) -> bool:
        """A stored result whose manifest is in place and every records file it reads whole: there, its Parquet
        footer readable, its size and content those recorded when it was written (`records_problem`). A damaged
        one is noted (`damaged`), so that the partition is read again and the file written again."""
        manifest = self._manifest_of(key, digest)
        if manifest is None:
            return False
        recorded = manifest.get("records_checksums", {})
        damaged = []
        for name in manifest.get("records", []):
            problem = self._records_problem(name, recorded.get(name))
            if problem == "missing":
                return False
            if problem is not None:
                damaged.append((name, problem))
        if damaged:
            self.damaged[key] = damaged
        return not damaged

    def _records_problem(self, name: str, recorded: dict[str, Any] | None) -> str | None:
        return records_problem(self.layout.records_dir / name, recorded)

    def _discard_records(self, name: str) -> None:
        """A damaged records file removed, so that reading its partition again writes it again."""
        (self.layout.records_dir / name).unlink(missing_ok=True)

    def _checksums(self, records_dir: Path, records: list[str]) -> dict[str, dict[str, Any]]:
        return {name: records_checksum(records_dir / name) for name in records}

    def _stored_runs(self, key: str, digest: str) -> int:
        return json.loads((self.dir / key / digest / MANIFEST).read_text())["runs"]

    def _read_and_store(self, partition: RunPartition, digest: str, store_texts: bool, log: Log | None) -> int:
        """The partition's files read now, its records owned and its results stored; the number of its runs."""
        folder = self.dir / partition.key / digest
        batch = collect_partition(partition, store_texts, log, self.layout.records_dir)
        with duckdb.connect() as conn:
            records = own_records(conn, batch, self.layout.records_dir)
        runs = len(batch.runs)
        partial = folder.with_name(f".{digest}.{os.getpid()}.partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        try:
            manifest = manifest_for(partition, digest, runs, records, self._checksums(self.layout.records_dir, records))
            save_batch(partial, batch, manifest, self.layout.records_dir)
            if folder.exists():  # stored meanwhile by another process: the same content
                shutil.rmtree(folder)
            os.rename(partial, folder)
        finally:
            shutil.rmtree(partial, ignore_errors=True)
        return runs

    def _record_current(self, key: str, current: dict[str, Any]) -> None:
        write_json(self.dir / key / "current.json", current)

    def _remove_other_results(self, key: str, digest: str) -> None:
        for other in (self.dir / key).iterdir():  # results of earlier contents: never read again
            if other.is_dir() and other.name != digest and not other.name.startswith("."):
                shutil.rmtree(other, ignore_errors=True)

    def scan_or_reuse(self, partition: RunPartition, store_texts: bool, log: Log | None = None) -> PartitionResult:
        """The partition's stored results: reused when its digest is stored, else its files read now (as
        `collect_partition` reads them), its per-request records owned (`own_records`) and the result stored."""
        current = self._current(partition.key)
        known = {s["path"]: FileState(**s) for s in (current or {}).get("files", [])}
        states, hashed = file_states(partition.files, known)
        digest = partition_digest(partition, states, store_texts)
        scanned = not self._complete(partition.key, digest)
        for name, problem in self.damaged.get(partition.key, []):
            self._discard_records(name)
            if log is not None:
                log(
                    f"{partition.label}: its stored records file records/{name} is damaged ({problem}): its files "
                    "are read again and the records file written again"
                )
        if scanned:
            runs = self._read_and_store(partition, digest, store_texts, log)
        else:
            runs = self._stored_runs(partition.key, digest)
        self._record_current(partition.key, {"digest": digest, "files": [dataclasses.asdict(s) for s in states]})
        self._remove_other_results(partition.key, digest)
        return PartitionResult(partition.key, partition.label, digest, scanned, len(states), hashed, runs)

    def _keys(self) -> list[str]:
        """The partitions stored (each a folder of runs/)."""
        return [f.name for f in sorted(self.dir.iterdir()) if f.is_dir()] if self.dir.is_dir() else []

    def known_files(self) -> dict[str, FileState]:
        """Every file's recorded state, over all stored partitions."""
        known: dict[str, FileState] = {}
        for key in self._keys():
            known.update({s["path"]: FileState(**s) for s in (self._current(key) or {}).get("files", [])})
        return known

    def checksums(self) -> Callable[[Path], str]:
        """A file's sha256: the recorded one while its size, mtime, ctime and inode are unchanged, else hashed."""
        known = self.known_files()

        def checksum(path: Path) -> str:
            state = known.get(str(path))
            if state is not None and state.unchanged(os.stat(path)):
                return state.sha256
            return sha256_file(path)

        return checksum

    def write_index(self, results: list[PartitionResult]) -> None:
        """The partitions of this plan, in order; the stored folders of partitions no longer planned removed."""
        self.dir.mkdir(parents=True, exist_ok=True)
        write_json(self.dir / "index.json", [r.as_dict() for r in results])
        planned = {r.key for r in results}
        for other in self.dir.iterdir():
            if other.is_dir() and other.name not in planned:
                shutil.rmtree(other, ignore_errors=True)

    def _index(self) -> list[dict[str, Any]] | None:
        try:
            return json.loads((self.dir / "index.json").read_text())
        except FileNotFoundError:
            return None

    def read_index(self) -> list[PartitionResult]:
        """The partitions of the last plan (none before the first)."""
        return [PartitionResult(**r) for r in self._index() or []]

    def where(self, key: str, digest: str) -> str:
        return str(self.dir / key / digest)

    def _load(self, key: str, digest: str, store_texts: bool) -> ObservedBatch:
        return load_batch(self.dir / key / digest, store_texts, self.layout.records_dir)

    def load_all(self, store_texts: bool) -> list[ObservedBatch]:
        """The stored results of the last plan's partitions, in order."""
        batches = []
        for result in self.read_index():
            if not self._complete(result.key, result.digest):
                raise IngestError(
                    f"{self.where(result.key, result.digest)}: the stored results of run partition {result.label} "
                    "are missing, incomplete or damaged; run again to read its files"
                )
            batches.append(self._load(result.key, result.digest, store_texts))
        return batches


class ObjectPartitionStore(PartitionStore):
    """The stored run partitions and owned records of a warehouse whose run store is on object storage (the same
    `runs/` and `records/` tree below the store's URL). No rename there: a partition is read with its records
    written to a scratch folder, then each records file is uploaded unless its name (its content) is there, then
    the results under their final name, the manifest last: a result without its manifest is absent."""

    def __init__(self, layout: WarehouseLayout, remote: ObjectStore) -> None:
        super().__init__(layout)
        self.remote = remote
        self.rewrite: set[str] = set()  # records files found damaged: uploaded again

    def _json(self, *parts: str) -> Any:
        """A JSON object of the store's runs/, or None when it is not there (or not whole)."""
        text = self.remote.read_text("runs", *parts)
        try:
            return None if text is None else json.loads(text)
        except ValueError:
            return None

    def _current(self, key: str) -> dict[str, Any] | None:
        return self._json(key, "current.json")

    def _manifest_of(self, key: str, digest: str) -> dict[str, Any] | None:
        return self._json(key, digest, MANIFEST)

    def _records_problem(self, name: str, recorded: dict[str, Any] | None) -> str | None:
        """A records file in the store: there, its size that recorded when it was written, and a Parquet file's
        end (its footer's length and magic; its content is not fetched to be hashed)."""
        size = self.remote.size("records", name)
        if size is None:
            return "missing"
        if recorded is not None and size != recorded["size"]:
            return f"{size} bytes where {recorded['size']} were written: truncated or changed"
        if size < 2 * len(PARQUET_MAGIC) + 4:
            return f"{size} bytes: empty or truncated"
        tail = self.remote.read_range(size - 8, size, "records", name)
        if tail[4:] != PARQUET_MAGIC or int.from_bytes(tail[:4], "little") > size - 12:
            return "its Parquet footer cannot be read (no Parquet end)"
        return None

    def _discard_records(self, name: str) -> None:
        self.rewrite.add(name)  # uploaded again over it

    def _stored_runs(self, key: str, digest: str) -> int:
        return self._json(key, digest, MANIFEST)["runs"]

    def _read_and_store(self, partition: RunPartition, digest: str, store_texts: bool, log: Log | None) -> int:
        with tempfile.TemporaryDirectory(prefix="benchbill-partition-") as scratch:
            records_dir = Path(scratch) / "records"
            batch = collect_partition(partition, store_texts, log, records_dir)
            with duckdb.connect() as conn:
                records = own_records(conn, batch, records_dir)
            runs = len(batch.runs)
            result = Path(scratch) / "result"
            result.mkdir()
            manifest = manifest_for(partition, digest, runs, records, self._checksums(records_dir, records))
            save_batch(result, batch, manifest, records_dir)
            for name in records:  # named by content: written once (again when it was found damaged)
                if name in self.rewrite or not self.remote.exists("records", name):
                    self.remote.put_file(str(records_dir / name), "records", name)
                    self.rewrite.discard(name)
            for stored in sorted(result.iterdir(), key=lambda f: f.name == MANIFEST):  # the manifest last
                self.remote.put_file(str(stored), "runs", partition.key, digest, stored.name)
        return runs

    def _record_current(self, key: str, current: dict[str, Any]) -> None:
        self.remote.write_text(json.dumps(current), "runs", key, "current.json")

    def _remove_other_results(self, key: str, digest: str) -> None:
        for other in self.remote.folders("runs", key):
            if other != digest:
                self.remote.remove("runs", key, other)

    def _keys(self) -> list[str]:
        return self.remote.folders("runs")

    def write_index(self, results: list[PartitionResult]) -> None:
        self.remote.write_text(json.dumps([r.as_dict() for r in results]), "runs", "index.json")
        planned = {r.key for r in results}
        for other in self.remote.folders("runs"):
            if other not in planned:
                self.remote.remove("runs", other)

    def _index(self) -> list[dict[str, Any]] | None:
        return self._json("index.json")

    def where(self, key: str, digest: str) -> str:
        return self.remote.url_of("runs", key, digest)

    def _load(self, key: str, digest: str, store_texts: bool) -> ObservedBatch:
        return batch_from(
            self._json(key, digest, MANIFEST),
            self._json(key, digest, "rows.json"),
            store_texts,
            lambda name: pl.read_parquet(io.BytesIO(self.remote.read_bytes("runs", key, digest, name))),
            lambda name: owned_select(self.remote.url_of("records", name)),
        )


def partition_store(layout: WarehouseLayout) -> PartitionStore:
    """The stored run partitions of a warehouse: in its folder, or in its run store on object storage."""
    remote = layout.object_store
    return PartitionStore(layout) if remote is None else ObjectPartitionStore(layout, remote)
