"""The one registry of MLPerf forms: the file readers in the order they are tried, the submission-tree
reader for folders, and reading one file into canonical rows.

The workbook first (a zip), then the JSON tables (the final report's records before the checker's, the
cm4mlperf lists of checker rows before plain checker lists), the checker CSV, the result pages. A file no
reader recognises is named with the reason (an empty file, UTF-16, JSON of another shape and the keys its
records lack, a LoadGen log outside a tree).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assets.core.records import Reject
from assets.formats.base import Reader
from assets.formats.mlperf import checker, cm, html, summary_json, tree, tree_layout, xlsx
from assets.formats.mlperf.exchange import MlperfFile, MlperfParsed
from assets.formats.mlperf.rows import Origin, records_to_rows
from assets.inputs.files import Fetched
from assets.inputs.textinput import encoding_problem

READERS: list[Reader[MlperfFile, MlperfParsed]] = [xlsx, summary_json, cm, checker, html]
TREE: Reader[tree.TreeRoot, tree.TreeBatch] = tree  # the folder form: a submission tree of LoadGen logs


@dataclass(frozen=True)
class Detected:
    """The format a file holds and its reader, or (format None) why no reader recognised it."""

    format: str | None
    reader: Reader[MlperfFile, MlperfParsed] | None = None
    note: str = ""


def detect(fetched: Fetched | MlperfFile) -> Detected:
    """Which MLPerf format a file holds, by content; `format` None with a reason otherwise."""
    file = fetched if isinstance(fetched, MlperfFile) else MlperfFile(fetched)
    if not file.data.strip():
        return Detected(None, None, "an empty file")
    if file.data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return Detected(None, None, encoding_problem(file.data) or "")
    for reader in READERS:
        kind = reader.recognise(file)
        if kind:
            return Detected(kind, reader)
    return Detected(None, None, _unrecognised(file))


def _unrecognised(file: MlperfFile) -> str:
    payload = file.json
    if isinstance(payload, list):
        if not payload:
            return "empty JSON list"
        return (
            "JSON list whose records are not MLPerf result rows (expected final-report, checker or cm4mlperf "
            "records" + _missing_keys(payload[: summary_json.SAMPLE]) + ")"
        )
    if isinstance(payload, dict):
        return "JSON object that is not an index-keyed MLPerf result table" + _missing_keys(
            list(payload.values())[: summary_json.SAMPLE]
        )
    if file.is_json:
        return "JSON that is not an MLPerf result table"
    head = file.data[:200000]
    if b":::MLLOG" in head or b"MLPerf Results Summary" in head:
        return (
            "a LoadGen log outside a submission tree (<division>/<submitter>/results/<system>/<benchmark>/<scenario>)"
        )
    return "not an MLPerf result file"


def _missing_keys(records: list[Any]) -> str:
    """What the first record lacks of the final-report keys, when it looks like a result record."""
    first = next((r for r in records if isinstance(r, dict)), None)
    if not first or not {"Submitter", "Model", "Scenario"} & first.keys():
        return ""
    wanted = ("Submitter", "Model", "Scenario", "Performance_Result")
    return f"; the records lack {[k for k in wanted if k not in first]} (a renamed or missing column?)"


def parse_file(fetched: Fetched | MlperfFile, detected: Detected) -> tuple[list[dict[str, Any]], list[Reject], str]:
    """Canonical rows, rejects and a note for one recognised file."""
    file = fetched if isinstance(fetched, MlperfFile) else MlperfFile(fetched)
    if detected.format is None or detected.reader is None:
        raise ValueError(f"{file.name}: no MLPerf reader recognised it ({detected.note})")
    parsed = detected.reader.parse(file, detected.format)
    hint = tree_layout.round_from_path(Path(file.name).parent)
    if hint is not None:  # tables without version/ID (v0.7 checker CSVs): the round the path names
        for _location, record in parsed.records:
            if isinstance(record, dict) and not record.get("version") and not record.get("ID"):
                record["version"] = hint
    rows, bad = records_to_rows(
        parsed.records, Origin.of(file.fetched, detected.format), require_nodes=parsed.require_nodes
    )
    return rows, parsed.rejects + bad, parsed.note
