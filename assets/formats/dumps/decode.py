"""A dump file as readers see it: its JSON decoded when it is JSON, only the first lines of JSON lines
until a reader needs them all, and only the head of a file too large to hold: a large JSON document is
recognised from the value its head begins (`json_head`), and decoded whole only for a reader that parses it."""

from __future__ import annotations

import json

from assets.core.errors import IngestError
from assets.formats.dumps.exchange import Dump
from assets.inputs.files import HEAD_BYTES, Fetched, LargeFile
from assets.inputs.textinput import decode_json, decode_json_lines, json_head, looks_like_json

JSON_LINES_HEAD = 64  # lines decoded to recognise a JSON-lines file


def _json_lines_head(head: bytes) -> list[dict] | None:
    """The first complete lines of `head` as JSON objects, when there are at least two and all are."""
    lines = [
        line for line in head.decode("utf-8-sig", errors="replace").splitlines()[: JSON_LINES_HEAD + 1] if line.strip()
    ]
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
            if head_lines is None:  # one large JSON document (a detailed vLLM result): its head's shape for now
                dump.payload = json_head(fetched.head)
            else:
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
    elif dump.payload is not None and looks_like_json(data):  # a head that was no JSON value: a text log
        full.payload = decode_json(data, dump.name)
    return full
