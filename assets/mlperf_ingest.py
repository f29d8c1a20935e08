"""The one dispatcher for published MLPerf Inference results: which format a file or folder holds
(by content, never by name), the canonical rows it gives, and one row per result across sources.

Formats: the final-report JSON list (`summary_results.json`), index-keyed checker JSON
(`summary.json`), submission-checker CSVs, the final-report workbook, cm4mlperf `cm-result.json`,
submission trees (LoadGen logs + system and measurements JSON) and per-system result pages.
Where two sources hold the same result the row of the more authoritative source is kept (order
of `PRECEDENCE`) and every field on which they differ is recorded as a disagreement.
"""

from __future__ import annotations

import contextlib
import copy
import json
import math
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assets import mlperf_checker, mlperf_cm, mlperf_html, mlperf_tree, mlperf_xlsx
from assets.canonical import round_sort_key
from assets.fetch import Fetched, fetch_url, is_url, read_local, walk_files
from assets.mlperf_tables import (
    SUMMARY_RESULTS_JSON,
    Detected,
    Origin,
    RowProblem,
    decode_json,
    is_report_record,
    looks_like_json,
    records_to_rows,
    round_of,
)
from assets.textinput import encoding_problem
from assets.warehouse import IngestError, Reject, SourceFile

PRECEDENCE = [
    SUMMARY_RESULTS_JSON,
    mlperf_checker.CHECKER_JSON_INDEX,
    mlperf_xlsx.FINAL_REPORT_XLSX,
    mlperf_checker.CHECKER_CSV,
    mlperf_cm.CM_RESULT,
    mlperf_tree.SUBMISSION_TREE,
    mlperf_html.SUMMARY_HTML,
]
CROSS_CHECK_ONLY = {mlperf_html.SUMMARY_HTML}
VALUE_TOLERANCE = 1e-5        # relative, between sources that print full precision
HTML_ABSOLUTE_TOLERANCE = 0.005  # the result pages print two decimals


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


# --- detection ----------------------------------------------------------------------------


def detect(fetched: Fetched) -> Detected:
    """Which MLPerf format `fetched` holds, by content; `format` None with a reason otherwise."""
    data = fetched.data
    if not data.strip():
        return Detected(None, None, "an empty file")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return Detected(None, None, encoding_problem(data))
    if mlperf_xlsx.looks_like_xlsx(data):
        return Detected(mlperf_xlsx.FINAL_REPORT_XLSX, None)
    if looks_like_json(data):
        payload = decode_json(data, fetched.name)
        if isinstance(payload, list):
            if not payload:
                return Detected(None, None, "empty JSON list")
            # A damaged first record must not hide the format of the rest (it is quarantined instead).
            sample = payload[:50]
            if any(is_report_record(r) for r in sample):
                return Detected(SUMMARY_RESULTS_JSON, payload)
            checker = next((r for r in sample if mlperf_checker.is_checker_record(r)), None)
            if checker is not None and mlperf_cm.is_cm_records([checker]):
                return Detected(mlperf_cm.CM_RESULT, payload)
            if checker is not None:
                return Detected(mlperf_checker.CHECKER_JSON_INDEX, {str(i): r for i, r in enumerate(payload)})
            return Detected(None, None, "JSON list whose records are not MLPerf result rows (expected final-report, "
                                        "checker or cm4mlperf records" + _missing_keys(sample) + ")")
        if isinstance(payload, dict):
            values = list(payload.values())[:50]
            if any(mlperf_checker.is_checker_record(v) for v in values):
                return Detected(mlperf_checker.CHECKER_JSON_INDEX, payload)
            if any(is_report_record(v) for v in values):
                return Detected(SUMMARY_RESULTS_JSON, list(payload.values()))
            return Detected(None, None, "JSON object that is not an index-keyed MLPerf result table"
                            + _missing_keys(values))
        return Detected(None, None, "JSON that is not an MLPerf result table")
    if mlperf_checker.looks_like_checker_csv(data):
        return Detected(mlperf_checker.CHECKER_CSV, None)
    if mlperf_html.looks_like_summary_html(data):
        return Detected(mlperf_html.SUMMARY_HTML, None)
    head = data[:200000]
    if b":::MLLOG" in head or b"MLPerf Results Summary" in head:
        return Detected(None, None, "a LoadGen log outside a submission tree "
                                    "(<division>/<submitter>/results/<system>/<benchmark>/<scenario>)")
    return Detected(None, None, "not an MLPerf result file")


def _missing_keys(records: list[Any]) -> str:
    """What the first record lacks of the final-report keys, when it looks like a result record."""
    first = next((r for r in records if isinstance(r, dict)), None)
    if not first or not {"Submitter", "Model", "Scenario"} & first.keys():
        return ""
    wanted = ("Submitter", "Model", "Scenario", "Performance_Result")
    return f"; the records lack {[k for k in wanted if k not in first]} (a renamed or missing column?)"


def parse_file(fetched: Fetched, detected: Detected) -> tuple[list[dict[str, Any]], list[Reject], str]:
    """Canonical rows, rejects and a note for one recognised file."""
    origin = Origin.of(fetched, detected.format)
    require_nodes = True
    if detected.format == SUMMARY_RESULTS_JSON:
        located, rejects, note = [(f"record {i}", r) for i, r in enumerate(detected.payload)], [], ""
    elif detected.format == mlperf_checker.CHECKER_JSON_INDEX:
        located, rejects, note = mlperf_checker.parse_index_json(detected.payload, fetched.name)
    elif detected.format == mlperf_checker.CHECKER_CSV:
        located, rejects, note = mlperf_checker.parse_csv(fetched.data, fetched.name)
        require_nodes = "11 columns" not in note  # the v0.7 header has no system columns
    elif detected.format == mlperf_cm.CM_RESULT:
        located, rejects, note = mlperf_cm.parse(detected.payload, fetched.name)
    elif detected.format == mlperf_xlsx.FINAL_REPORT_XLSX:
        located, rejects, note = mlperf_xlsx.parse(fetched.data, fetched.name)
    elif detected.format == mlperf_html.SUMMARY_HTML:
        located, rejects, note = mlperf_html.parse(fetched.data, fetched.name)
        require_nodes = False
    else:
        raise ValueError(f"no parser for {detected.format}")
    hint = mlperf_tree.round_from_path(Path(fetched.name).parent)
    if hint is not None:  # tables without version/ID (v0.7 checker CSVs): the round the path names
        for _location, record in located:
            if isinstance(record, dict) and not record.get("version") and not record.get("ID"):
                record["version"] = hint
    rows, bad = records_to_rows(located, origin, require_nodes=require_nodes)
    return rows, rejects + bad, note


# --- reading each input once ---------------------------------------------------------------

# While `reading_once()` is active (one `benchbill run`: planning the rounds, then one partition run per
# round, all in one process), each URL is fetched once, each file's content is recognised and parsed
# once (keyed by its checksum), and each submission tree is read once; every round's partition then
# takes from these what holds its round. Outside it (a Dagster daemon's runs) nothing is kept.
_ONCE: dict | None = None


@contextlib.contextmanager
def reading_once() -> Iterator[None]:
    global _ONCE
    outer, _ONCE = _ONCE, _ONCE if _ONCE is not None else {"urls": {}, "files": {}, "trees": {}, "local": {},
                                                           "walks": {}}
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
        detected = detect(fetched)
        try:
            parsed = None if detected.format is None else parse_file(fetched, detected)
        except IngestError as exc:
            parsed = exc
        detected = Detected(detected.format, None, detected.note)  # the decoded payload is not needed again
        if _ONCE is not None:
            _ONCE["files"][key] = (detected, parsed)
    if parsed is None or isinstance(parsed, IngestError):
        return detected, parsed
    rows, rejects, note = parsed
    return detected, ([dict(r) for r in rows], list(rejects), note)


def _tree(root: Path, only: Path | None) -> mlperf_tree.TreeBatch:
    key = (str(root), str(only))
    if _ONCE is None:
        return mlperf_tree.read_tree(root, only=only)
    if key not in _ONCE["trees"]:
        _ONCE["trees"][key] = mlperf_tree.read_tree(root, only=only)
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
            self.batch.files.append(SourceFile(fetched.name, fetched.sha256, len(fetched.data), "duplicate",
                                               "skipped", note=f"same content as {self.seen[fetched.sha256]}"))
            return
        self.seen[fetched.sha256] = fetched.name
        detected, parsed = _parsed(fetched)
        if detected.format is None:
            if explicit:
                raise IngestError(f"{fetched.name}: not an MLPerf result file this version reads ({detected.note}); "
                                  "expected a round table (summary_results.json, summary.json, checker CSV, "
                                  "summary.xlsx, cm-result.json), a result page or a submission tree")
            self.batch.files.append(SourceFile(fetched.name, fetched.sha256, len(fetched.data), "unrecognised",
                                               "skipped", note=detected.note))
            return
        if isinstance(parsed, IngestError):
            if explicit or detected.format not in CROSS_CHECK_ONLY:
                raise parsed
            # A result page only cross-checks the other sources: one whose layout changed is set aside
            # (quarantined, with the reason) rather than stopping the round.
            self.batch.files.append(SourceFile(fetched.name, fetched.sha256, len(fetched.data), detected.format,
                                               "quarantined", note=str(parsed)))
            self.batch.rejects.append(Reject(fetched.name, "file", f"result page not read: {parsed}"))
            return
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
        self.batch.files.append(SourceFile(fetched.name, fetched.sha256, len(fetched.data), fmt, "read",
                                           rows=len(mine), note="; ".join(parts)))
        if self.log:
            self.log(f"read {fetched.name} ({fmt}): {len(mine)} results, {len(my_rejects)} quarantined")

    def add_tree(self, root: Path, only: Path | None) -> None:
        round_name = mlperf_tree.tree_round(root)
        if not self.wanted(round_name):
            return
        tree = _tree(root, only)
        self.batch.files += tree.files
        self.batch.rejects += tree.rejects
        for result in tree.results:
            origin = Origin(result.location, result.sha256, None, mlperf_tree.SUBMISSION_TREE)
            rows, rejects = records_to_rows([(result.location, result.record)], origin)
            self.batch.rejects += rejects
            for row in rows:
                self.raw_rows.append(row)
                self.batch.conditions.append({"result_key": row["result_key"], "round": row["round"],
                                              **result.conditions, "source": result.location,
                                              "source_sha256": result.sha256})
        for page in tree.html_pages:
            self.add_file(_read(page), explicit=False)
        if self.log:
            self.log(f"read submission tree {root}: {len(tree.results)} results, {len(tree.rejects)} quarantined")

    def add_folder(self, folder: Path) -> None:
        roots = mlperf_tree.find_tree_roots(folder)
        claimed = [root / division for root in roots for division in mlperf_tree.DIVISIONS]
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


def read_locations(locations: list[str], allowed_hosts: list[str], *, round_name: str | None = None,
                   log: Callable[[str], None] | None = None) -> Batch:
    """Every result in the given files, folders and URLs (only `round_name`'s when given), one row
    per result, with rejects, the file inventory, run conditions and cross-source disagreements.

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


# --- one row per result -------------------------------------------------------------------


def _rank(row: dict[str, Any]) -> int:
    fmt = row["source_format"]
    return PRECEDENCE.index(fmt) if fmt in PRECEDENCE else len(PRECEDENCE)


def _close(a: float, b: float, html: bool) -> bool:
    if html:
        return abs(a - b) <= HTML_ABSOLUTE_TOLERANCE + 1e-9 * max(abs(a), abs(b))
    return math.isclose(a, b, rel_tol=VALUE_TOLERANCE, abs_tol=1e-12)


def compare(kept: dict[str, Any], other: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """(field, kept value, other value) for each field on which two rows of one result differ.
    A field one source does not state is not a disagreement."""
    html = mlperf_html.SUMMARY_HTML in (kept["source_format"], other["source_format"])
    out = []
    if not _close(kept["result_value"], other["result_value"], html):
        out.append(("result_value", kept["result_value"], other["result_value"]))
    for name in ("result_unit", "precision", "total_accelerators", "inferred"):
        if kept[name] is not None and other[name] is not None and kept[name] != other[name]:
            if name == "inferred" and html:
                continue
            out.append((name, kept[name], other[name]))
    if kept["power_value"] is not None and other["power_value"] is not None \
            and not _close(kept["power_value"], other["power_value"], False):
        out.append(("power_value", kept["power_value"], other["power_value"]))
    mine = json.loads(kept["accuracy_json"]) if kept["accuracy_json"] else {}
    theirs = json.loads(other["accuracy_json"]) if other["accuracy_json"] else {}
    for key in sorted(set(mine) & set(theirs)):
        a, b = mine[key], theirs[key]
        same = _close(a, b, False) if isinstance(a, float) and isinstance(b, float) else a == b
        if not same:
            out.append((f"accuracy.{key}", a, b))
    return out


def _disagreement(row_key: str, round_name: str, name: str, kept: dict[str, Any] | None, kept_value: Any,
                  other: dict[str, Any], other_value: Any) -> dict[str, Any]:
    numeric = isinstance(kept_value, (int, float)) and isinstance(other_value, (int, float)) \
        and not isinstance(kept_value, bool) and kept_value
    return {
        "result_key": row_key,
        "round": round_name,
        "field": name,
        "kept_value": None if kept_value is None else str(kept_value),
        "other_value": None if other_value is None else str(other_value),
        "relative_difference": (other_value - kept_value) / abs(kept_value) if numeric else None,
        "kept_source_format": kept["source_format"] if kept else None,
        "kept_source": kept["source"] if kept else None,
        "kept_location": kept["source_location"] if kept else None,
        "other_source_format": other["source_format"],
        "other_source": other["source"],
        "other_location": other["source_location"],
    }


def merge(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[Reject], list[dict[str, Any]]]:
    """One row per result: the most authoritative source's row is kept; a second row of the same
    result from the same file is quarantined; a row from another source is compared field by
    field. A result only a cross-check source (the result pages) holds is recorded, not kept."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[row["result_key"]].append(row)
    kept_rows, rejects, disagreements = [], [], []
    for key, group in groups.items():
        ordered = sorted(group, key=_rank)
        primary = next((r for r in ordered if r["source_format"] not in CROSS_CHECK_ONLY), None)
        if primary is None:
            for other in ordered:
                disagreements.append(_disagreement(key, other["round"], "presence", None, None, other,
                                                   other["result_value"]))
            continue
        kept_rows.append(primary)
        for other in ordered:
            if other is primary:
                continue
            if other["source"] == primary["source"]:
                rejects.append(Reject(other["source"], other["source_location"],
                                      f"duplicate result {key} in the same file (first at {primary['source_location']})",
                                      other))
                continue
            for name, mine, theirs in compare(primary, other):
                disagreements.append(_disagreement(key, primary["round"], name, primary, mine, other, theirs))
    return kept_rows, rejects, disagreements
