"""The per-request records files in the warehouse (`records/`): each file read in place, copied as it was checked
(checked SCAN_COLUMNS and `problem`, `assets.formats.dumps.scan_sql.checked_scan_sql`) into one Parquet file named
by the file's content and the code that checks it (`owned_records_name`: written once, reused while both are
unchanged and it is whole, `records_problem`; a damaged one is written again). The request pass writes them as it
checks the files (`copy_sources`: each screened for copies of rows as it is written, `may_hold_copies`), and the
observed tables' writer for a batch read without them (`assets.runs.store.own_records`); the view
observed.requests reads them."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from assets.inputs.files import sha256_bytes, sha256_file
from assets.request_records.sources import SourceState
from assets.warehouse.fingerprint import code_fingerprint
from assets.warehouse.parquet import write_select

# The columns of a records file with few distinct values, dictionary-encoded (`write_select`); the rest are mostly
# distinct numbers, where a dictionary costs time and saves nothing.
RECORDS_DICTIONARY = ("phase", "status", "error", "problem", "offered_rate_per_s", "concurrency")


def owned_records_name(source_sha256: str | None, key: str) -> str:
    """The name of a file's records in the warehouse: its content (else its key) and the code that checks it."""
    return sha256_bytes(f"{source_sha256 or key}\n{code_fingerprint()}".encode())[:32] + ".parquet"


PARQUET_MAGIC = b"PAR1"  # a Parquet file's first and last four bytes


RECORDED_STAT = ("st_size", "st_mtime_ns", "st_ctime_ns", "st_ino")


def records_checksum(path: Path) -> dict[str, Any]:
    """What a records file was when it was written (recorded in its partition's manifest): its sha256, with its
    size, mtime, ctime and inode (while all four are unchanged, its content is not hashed again)."""
    stat = path.stat()
    return {"size": stat.st_size, "sha256": sha256_file(path), "stat": [getattr(stat, f) for f in RECORDED_STAT]}


def records_problem(path: Path, recorded: dict[str, Any] | None = None) -> str | None:
    """Why the records file `path` cannot be reused (None when it can): missing, empty or truncated, a Parquet
    footer that cannot be read, or (with `recorded`, `records_checksum` when it was written) another size or
    content (hashed unless its size, mtime, ctime and inode are those recorded)."""
    try:
        stat = path.stat()
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    size = stat.st_size
    if recorded is not None and size != recorded["size"]:
        return f"{size} bytes where {recorded['size']} were written: truncated or changed"
    if size < 2 * len(PARQUET_MAGIC) + 4:
        return f"{size} bytes: empty or truncated"
    try:
        pq.read_metadata(path)
    except (OSError, pa.ArrowException) as exc:
        return f"its Parquet footer cannot be read ({str(exc).splitlines()[0]})"
    unchanged = recorded is not None and recorded.get("stat") == [getattr(stat, f) for f in RECORDED_STAT]
    if recorded is not None and not unchanged and sha256_file(path) != recorded["sha256"]:
        return "its content's checksum differs from the one recorded when it was written"
    return None


def reusable_records(target: Path) -> bool:
    """Whether the records file `target` is there whole (`records_problem`); a damaged one is removed, so that it
    is written again from its source."""
    problem = records_problem(target)
    if problem is None:
        return True
    if problem != "missing":
        target.unlink(missing_ok=True)
    return False


def write_records(
    conn: duckdb.DuckDBPyConnection,
    select: str,
    target: Path,
    withhold: str | None = None,
    per_thread: bool = False,
) -> list[pa.Array]:
    """The rows of `select` (a checked scan), in its order, written to the records file `target` under a temporary
    name, then renamed: a kill leaves no half file under the real name (`per_thread`: a temporary name per thread,
    for files written at once). The column `withhold` is written as nulls and its values returned (`write_select`).
    A DuckDB error is raised as the duckdb.Error it is, leaving nothing behind."""
    thread = f".{threading.get_ident()}" if per_thread else ""
    partial = target.with_name(f".{target.name}.{os.getpid()}{thread}.partial")
    try:
        values = write_select(conn, select, partial, RECORDS_DICTIONARY, withhold=withhold)
        os.replace(partial, target)
        return values
    finally:
        partial.unlink(missing_ok=True)


def may_hold_copies(row_hashes: list[pa.Array]) -> bool:
    """Whether a file's rows may hold copies of rows, from their hashes (withheld as its records were written):
    sorted, two equal neighbours say so (then only a window over the file finds them); sorting costs a tenth of
    DuckDB's count(DISTINCT) over the same hashes."""
    values = np.sort(pa.chunked_array(row_hashes, pa.uint64()).to_numpy())
    return bool(values.size > 1 and (values[1:] == values[:-1]).any())


def copy_sources(
    conn: duckdb.DuckDBPyConnection,
    states: Iterable[SourceState],
    records_dir: Path,
    write_again: Callable[[SourceState, Path], bool],
) -> None:
    """Each source read in place, copied into `records_dir` as the pass checks it (unless its copy is there
    already: `reused`); the pass then reads the copies (`owned`). The copies are written on every core at once (one
    DuckDB cursor per file: a file's own write keeps its rows in order and so uses about one core); a file whose
    typed read fails is then written again on its own (`write_again`: the pass's, which knows what to do about a
    file DuckDB cannot read; False when it could not). A file whose rows may hold copies of rows (`screened`) is
    written again with them found and quarantined."""
    records_dir.mkdir(parents=True, exist_ok=True)
    targets: list[tuple[SourceState, Path]] = []
    for state in states:
        if state.scan is None or not state.source.in_place:
            continue
        target = records_dir / owned_records_name(state.source.sha256, state.key)
        if reusable_records(target):
            state.reused, state.owned = True, target
        else:
            targets.append((state, target))
    conn.execute("SET preserve_insertion_order = true")
    try:
        with ThreadPoolExecutor(max_workers=max(1, min(len(targets), os.cpu_count() or 1))) as pool:
            written = list(pool.map(lambda item: _try_copy(conn, *item), targets))
    finally:
        conn.execute("SET preserve_insertion_order = false")
    for (state, target), ok in zip(targets, written):
        if not ok and not write_again(state, target):
            continue
        if state.screened:
            state.copies = True
            if not write_again(state, target):
                continue
        state.owned = target


def copy_checked(conn: duckdb.DuckDBPyConnection, state: SourceState, target: Path, per_thread: bool = False) -> None:
    """One file's checked rows, in the file's order, written to `target` (`write_records`). A file whose equal
    rows are copies (`read_once`) is screened for them as it is written (`may_hold_copies`: `screened`), which
    only a window over the file then finds."""
    scan = state.scan
    assert scan is not None
    screen = scan.read_once and not state.copies
    copies = "find" if state.copies else "hash" if screen else None
    withhold = "row_hash" if screen else None
    hashes = write_records(conn, state.checked(copies), target, withhold=withhold, per_thread=per_thread)
    if screen:
        state.screened = may_hold_copies(hashes)


def _try_copy(conn: duckdb.DuckDBPyConnection, state: SourceState, target: Path) -> bool:
    """One file's checked rows written to its target on a cursor of its own; False when DuckDB could not."""
    try:
        with conn.cursor() as cursor:
            copy_checked(cursor, state, target, per_thread=True)
        return True
    except duckdb.Error:
        return False
