"""Reading MLPerf locations (files, folders, URLs) into one batch of canonical rows per round, each input
read once per `benchbill run` (`reading_once`); the formats are recognised by the registry."""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assets.core.errors import IngestError, costs_only_itself
from assets.core.mlperf_names import round_sort_key
from assets.core.records import Reject, SourceFile
from assets.formats.mlperf import plausibility, registry, tree, tree_layout
from assets.formats.mlperf.exchange import MlperfFile
from assets.formats.mlperf.registry import Detected
from assets.formats.mlperf.rows import Origin, RowProblem, records_to_rows, round_of
from assets.inputs.fetch import fetch_url, is_url
from assets.inputs.files import Fetched, read_local, walk_files
from assets.mlperf_rounds.merge import CROSS_CHECK_ONLY, merge


@dataclass
class Batch:
    """What reading MLPerf locations yields, ready for the warehouse."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    rejects: list[Reject] = field(default_factory=list)
    files: list[SourceFile] = field(default_factory=list)
    conditions: list[dict[str, Any]] = field(default_factory=list)
    disagreements: list[dict[str, Any]] = field(default_factory=list)

    @property
    def rounds(self) -> list[str]:
        return sorted({r["round"] for r in self.rows}, key=round_sort_key)


# --- reading each input once ---------------------------------------------------------------

# While `reading_once()` is active (one `benchbill run`: planning the rounds, then one partition run per
# round, all in one process), each URL is fetched once, each file's content is recognised and parsed
# once (keyed by its checksum), and each submission tree is read once; every round's partition then
# takes from these what holds its round. Outside it (a Dagster daemon's runs) nothing is kept.
_ONCE: dict | None = None


@contextlib.contextmanager
def reading_once() -> Iterator[None]:
    global _ONCE
    outer, _ONCE = (
        _ONCE,
        _ONCE if _ONCE is not None else {"urls": {}, "files": {}, "trees": {}, "local": {}, "walks": {}},
    )
    try:
        yield
    finally:
        _ONCE = outer


def fetch_once(location: str, allowed_hosts: list[str], log: Callable[[str], None] | None) -> Fetched:
    """A URL's bytes, fetched once while reading_once is active; a fetch that failed (its retries spent)
    fails again with the same error, without another round of attempts."""
    if _ONCE is None:
        return fetch_url(location, allowed_hosts, progress=log)
    if location not in _ONCE["urls"]:
        try:
            _ONCE["urls"][location] = fetch_url(location, allowed_hosts, progress=log)
        except IngestError as failed:
            _ONCE["urls"][location] = failed
    found = _ONCE["urls"][location]
    if isinstance(found, IngestError):
        raise found
    return found


def _read(path: Path) -> Fetched:
    if _ONCE is None:
        return read_local(path)[0]
    key = str(path)
    if key not in _ONCE["local"]:
        _ONCE["local"][key] = read_local(path)[0]
    return _ONCE["local"][key]


def _walk(folder: Path) -> list[tuple[Path, Path]]:
    """Every file below `folder` with its real path (walked once while reading_once is active)."""
    if _ONCE is not None and str(folder) in _ONCE["walks"]:
        return _ONCE["walks"][str(folder)]
    found = [(path, path.resolve()) for path in walk_files(folder)]
    if _ONCE is not None:
        _ONCE["walks"][str(folder)] = found
    return found


def _parsed(fetched: Fetched) -> tuple[Detected, tuple | IngestError | None]:
    """detect + parse_file of one file's content (rows copied, so no round's batch shares them); a file
    of a known format that cannot be parsed gives its IngestError (kept too: the caller decides whether
    it stops the run)."""
    key = (fetched.sha256, fetched.name)
    if _ONCE is not None and key in _ONCE["files"]:
        detected, parsed = _ONCE["files"][key]
    else:
        file = MlperfFile(fetched)  # its decoded JSON is dropped with it once read
        with costs_only_itself(fetched.name):  # whatever a reader raises names the file
            detected = registry.detect(file)
        try:
            with costs_only_itself(fetched.name):
                parsed = None if detected.format is None else registry.parse_file(file, detected)
        except IngestError as exc:
            parsed = exc
        if _ONCE is not None:
            _ONCE["files"][key] = (detected, parsed)
    if parsed is None or isinstance(parsed, IngestError):
        return detected, parsed
    rows, rejects, note = parsed
    return detected, ([dict(r) for r in rows], list(rejects), note)


def _tree(root: Path, only: Path | None) -> tree.TreeBatch:
    item = tree.TreeRoot(root, only)
    if _ONCE is None:
        return registry.TREE.parse(item, tree.SUBMISSION_TREE)
    key = (str(root), str(only))
    if key not in _ONCE["trees"]:
        _ONCE["trees"][key] = registry.TREE.parse(item, tree.SUBMISSION_TREE)
    return copy.deepcopy(_ONCE["trees"][key])


# --- reading locations --------------------------------------------------------------------


def _reject_round(reject: Reject) -> str | None:
    try:
        return round_of(reject.row) if isinstance(reject.row, dict) else None
    except RowProblem:
        return None


class _Reader:
    def __init__(self, round_name: str | None, log: Callable[[str], None] | None):
        self.round_name = round_name
        self.log = log
        self.batch = Batch()
        self.raw_rows: list[dict[str, Any]] = []
        self.seen: dict[str, str] = {}

    def wanted(self, round_name: str | None) -> bool:
        return self.round_name is None or round_name is None or round_name == self.round_name

    def add_file(self, fetched: Fetched, explicit: bool) -> None:
        if fetched.sha256 in self.seen:
            self.batch.files.append(
                SourceFile(
                    fetched.name,
                    fetched.sha256,
                    len(fetched.data),
                    "duplicate",
                    "skipped",
                    note=f"same content as {self.seen[fetched.sha256]}",
                )
            )
            return
        self.seen[fetched.sha256] = fetched.name
        detected, parsed = _parsed(fetched)
        if detected.format is None:
            if explicit:
                raise IngestError(
                    f"{fetched.name}: not an MLPerf result file this version reads ({detected.note}); "
                    "expected a round table (summary_results.json, summary.json, checker CSV, "
                    "summary.xlsx, cm-result.json), a result page or a submission tree"
                )
            self.batch.files.append(
                SourceFile(
                    fetched.name, fetched.sha256, len(fetched.data), "unrecognised", "skipped", note=detected.note
                )
            )
            return
        if isinstance(parsed, IngestError):
            if explicit or detected.format not in CROSS_CHECK_ONLY:
                raise parsed
            # A result page only cross-checks the other sources: one whose layout changed is set aside
            # (quarantined, with the reason) rather than stopping the round.
            self.batch.files.append(
                SourceFile(
                    fetched.name, fetched.sha256, len(fetched.data), detected.format, "quarantined", note=str(parsed)
                )
            )
            self.batch.rejects.append(Reject(fetched.name, "file", f"result page not read: {parsed}"))
            return
        assert parsed is not None  # a recognised file parsed to rows, or failed above
        rows, rejects, note = parsed
        self._keep(fetched, detected.format, rows, rejects, note)

    def _keep(self, fetched: Fetched, fmt: str, rows: list[dict[str, Any]], rejects: list[Reject], note: str) -> None:
        mine = [r for r in rows if self.wanted(r["round"])]
        my_rejects = [r for r in rejects if self.wanted(_reject_round(r))]
        if rows and not mine:
            return  # another round's file: its own partition lists it
        self.raw_rows += mine
        self.batch.rejects += my_rejects
        parts = [note] if note else []
        if my_rejects:
            parts.append(f"{len(my_rejects)} records quarantined")
        self.batch.files.append(
            SourceFile(
                fetched.name, fetched.sha256, len(fetched.data), fmt, "read", rows=len(mine), note="; ".join(parts)
            )
        )
        if self.log:
            self.log(f"read {fetched.name} ({fmt}): {len(mine)} results, {len(my_rejects)} quarantined")

    def add_tree(self, root: Path, only: Path | None) -> None:
        round_name = tree_layout.tree_round(root)
        if not self.wanted(round_name):
            return
        found = _tree(root, only)
        self.batch.files += found.files
        self.batch.rejects += found.rejects
        for result in found.results:
            origin = Origin(result.location, result.sha256, None, tree.SUBMISSION_TREE)
            rows, rejects = records_to_rows([(result.location, result.record)], origin)
            self.batch.rejects += rejects
            for row in rows:
                self.raw_rows.append(row)
                self.batch.conditions.append(
                    {
                        "result_key": row["result_key"],
                        "round": row["round"],
                        **result.conditions,
                        "source": result.location,
                        "source_sha256": result.sha256,
                    }
                )
        for page in found.html_pages:
            self.add_file(_read(page), explicit=False)
        if self.log:
            self.log(f"read submission tree {root}: {len(found.results)} results, {len(found.rejects)} quarantined")

    def add_folder(self, folder: Path) -> None:
        roots = tree_layout.find_tree_roots(folder)
        claimed = [root / division for root in roots for division in tree.DIVISIONS]
        resolved = folder.resolve()
        for root in roots:
            self.add_tree(root, resolved if resolved.is_relative_to(root) and resolved != root else None)
        for path, real in _walk(folder):
            if any(real.is_relative_to(prefix) for prefix in claimed):
                continue
            if path.is_symlink() and not path.exists():
                self.batch.files.append(SourceFile(str(path), None, None, "dangling symlink", "skipped"))
                continue
            self.add_file(_read(path), explicit=False)


def read_locations(
    locations: list[str],
    allowed_hosts: list[str],
    *,
    round_name: str | None = None,
    log: Callable[[str], None] | None = None,
) -> Batch:
    """Every result in the given files, folders and URLs (only `round_name`'s when given), one row
    per result (flagged where implausible or unofficial), with rejects, the file inventory, run conditions
    and cross-source disagreements.

    A file or URL named explicitly must be an MLPerf result file; inside a folder, files that are
    not are listed as skipped with the reason.
    """
    reader = _Reader(round_name, log)
    for location in locations:
        if is_url(location):
            reader.add_file(fetch_once(location, allowed_hosts, log), explicit=True)
            continue
        path = Path(location)
        if not path.exists():
            raise IngestError(f"{path}: no such file or folder")
        if path.is_dir():
            reader.add_folder(path)
        else:
            reader.add_file(_read(path), explicit=True)
    kept, rejects, disagreements = merge(reader.raw_rows)
    plausibility.flag_peer_outliers(kept)  # over the merged rows: one row per result, each judged once
    reader.batch.rows = kept
    reader.batch.rejects += rejects
    reader.batch.disagreements = disagreements
    reader.batch.conditions = _first_per_key(reader.batch.conditions)
    return reader.batch


def _first_per_key(conditions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen, out = set(), []
    for row in conditions:
        if row["result_key"] not in seen:
            seen.add(row["result_key"])
            out.append(row)
    return out
