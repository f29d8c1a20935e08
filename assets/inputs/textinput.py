"""Input bytes as text, JSON, JSON lines and YAML: the one place that knows encodings, byte-order
marks, nesting limits, YAML aliases and a last line cut short.

Every reader of a text input goes through here, so bad bytes end the same way everywhere: an
`IngestError` naming the file and saying what is wrong (UTF-16 instead of UTF-8, JSON nested
deeper than can be read, a YAML alias), never a crash deep inside a parser.
"""

from __future__ import annotations

import codecs
import json
import math
import re
import sys
from pathlib import Path
from typing import Any

import yaml

from assets.core.errors import IngestError
from assets.inputs.files import MAX_SETTINGS_FILE_BYTES

UTF8_BOM = b"\xef\xbb\xbf"
_CHUNK = 8 * 1024 * 1024
_WIDE_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),
    (b"\xfe\xff", "UTF-16"),
)


def _wide_problem(head: bytes) -> str | None:
    """Why text starting with `head` is UTF-16/32 or binary rather than UTF-8, or None."""
    for bom, name in _WIDE_BOMS:
        if head.startswith(bom):
            return f"{name} text (byte-order mark {bom.hex(' ')}); expected UTF-8: save it as UTF-8"
    head = head[:4096]
    if len(head) >= 8 and head.count(b"\x00") >= len(head) // 4:
        return "UTF-16 or binary data (NUL bytes between characters); expected UTF-8 text"
    return None


def _not_utf8(byte: int, exc: UnicodeDecodeError) -> str:
    return f"not UTF-8 text (byte {byte}: {exc.reason}); save it as UTF-8"


def encoding_problem(data: bytes) -> str | None:
    """Why `data` is not UTF-8 text (with or without a BOM), in words; None when it is."""
    problem = _wide_problem(data)
    if problem:
        return problem
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _not_utf8(exc.start, exc)
    return None


def file_encoding_problem(path: Path) -> str | None:
    """`encoding_problem` of a file, read a chunk at a time (a file too large to hold, read in place by DuckDB)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset = 0
    with open(path, "rb") as handle:
        chunk = handle.read(_CHUNK)
        problem = _wide_problem(chunk)
        if problem:
            return problem
        while True:
            try:
                decoder.decode(chunk, final=not chunk)
            except UnicodeDecodeError as exc:
                return _not_utf8(offset + exc.start, exc)  # about there: a character cut by a chunk starts before
            if not chunk:
                return None
            offset += len(chunk)
            chunk = handle.read(_CHUNK)


def decode_text(data: bytes, name: str) -> str:
    """UTF-8 text without its BOM; IngestError naming the file and the encoding otherwise."""
    problem = encoding_problem(data)
    if problem:
        raise IngestError(f"{name}: {problem}")
    return data.decode("utf-8-sig")


def looks_like_json(data: bytes) -> bool:
    head = data[:64].lstrip(UTF8_BOM + b" \t\r\n")
    return head[:1] in (b"[", b"{")


# A JSON token that matters to where a document can be cut: a whole string, an unterminated string (the head
# ends inside it), or a bracket or comma.
_JSON_STRUCTURE = re.compile(rb'"(?:[^"\\]|\\.)*"|"(?:[^"\\]|\\.)*\\?\Z|[\[\]{},]')
MAX_JSON_HEAD_DEPTH = 200


def json_head(head: bytes) -> Any | None:
    """The first bytes of a JSON document as the JSON value they begin: cut after the last complete value and
    every open array or object closed (`{"a": 1, "b": [1, 2` gives {"a": 1, "b": [1]}). What a large file's
    head says about its shape (its first keys, its first elements), never more than `head` parsed; None when
    the head does not begin a JSON object or array (or nests deeper than MAX_JSON_HEAD_DEPTH)."""
    body = head.removeprefix(UTF8_BOM)
    start = len(body) - len(body.lstrip(b" \t\r\n"))
    if body[start : start + 1] not in (b"{", b"["):
        return None
    closers: list[bytes] = []
    cut, cut_closers = None, b""
    for token in _JSON_STRUCTURE.finditer(body, start):
        text = token.group()
        if text[:1] == b'"':
            if len(text) < 2 or not text.endswith(b'"') or text.endswith(b'\\"') and _escaped_end(text):
                break  # the head ends inside this string
            continue
        if text in (b"{", b"["):
            closers.append(b"}" if text == b"{" else b"]")
            if len(closers) > MAX_JSON_HEAD_DEPTH:
                return None
        elif text in (b"}", b"]"):
            if not closers:
                break
            closers.pop()
            cut, cut_closers = token.end(), b"".join(reversed(closers))
            if not closers:
                break  # the whole document is in the head
        else:  # a comma: the value before it is complete
            cut, cut_closers = token.start(), b"".join(reversed(closers))
    if cut is None:  # not one complete value: the opening bracket alone
        cut, cut_closers = start + 1, b"}" if body[start : start + 1] == b"{" else b"]"
    try:
        return json.loads(body[:cut] + cut_closers, parse_int=_head_int)
    except (ValueError, RecursionError):
        return None


def _head_int(digits: str) -> int | float:
    """An integer of a head, or infinity for one too long for Python to convert: the head's shape still shows
    (the whole file's reading then says what is wrong with the number)."""
    return int(digits) if len(digits.lstrip("-")) < 4000 else math.inf


def _escaped_end(text: bytes) -> bool:
    """True when a string token's closing quote is escaped (an odd run of backslashes before it)."""
    run = len(text) - 1 - len(text[:-1].rstrip(b"\\"))
    return run % 2 == 1


def _loads(text: str, name: str, where: str = "") -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise IngestError(f"{name}: invalid JSON {where}at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except ValueError as exc:  # Python's integer-conversion limit: a number thousands of digits long
        raise IngestError(
            f"{name}: JSON {where}holds an integer of more than {sys.get_int_max_str_digits():,} digits "
            f"({str(exc).split(';')[0]}); no result file holds one"
        ) from None
    except RecursionError:
        raise IngestError(
            f"{name}: JSON {where}nested too deeply to read (arrays or objects inside each other "
            "hundreds of levels deep); no result file is shaped like that"
        ) from None


def decode_json(data: bytes, name: str) -> Any:
    """JSON from bytes (UTF-8, with or without BOM); IngestError naming the file and the problem."""
    return _loads(decode_text(data, name), name)


def _on_line(number: int, cut: bool) -> str:
    return f"on line {number}{' (the last line, cut short?) ' if cut else ' '}"


def decode_json_lines(data: bytes, name: str) -> list[Any]:
    """Every non-empty line as one JSON value; IngestError naming the line that is not JSON (a last
    line cut short says so)."""
    lines = decode_text(data, name).splitlines()
    values = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        values.append(_loads(line, name, _on_line(number, number == len(lines) and not data.endswith(b"\n"))))
    return values


def json_lines_file_problem(path: Path, name: str) -> str | None:
    """What `decode_json_lines` would say is wrong with a JSON-lines file, read a line at a time (a file
    too large to hold, read in place by DuckDB); None when every line is JSON."""
    try:
        with open(path, "rb") as handle:
            problem = _wide_problem(handle.read(4096))
            if problem:
                return f"{name}: {problem}"
            handle.seek(0)
            for number, raw in enumerate(handle, start=1):
                raw = raw.removeprefix(UTF8_BOM) if number == 1 else raw
                if not raw.strip():
                    continue
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    return f"{name}: {_not_utf8(exc.start, exc)} on line {number}"
                _loads(line, name, _on_line(number, not raw.endswith(b"\n")))
    except IngestError as exc:
        return str(exc)
    return None


class _NoAliasLoader(yaml.SafeLoader):
    """PyYAML's safe loader without aliases: `*name` repeats a node without copying it, and a few
    nested aliases expand to billions of values once the document is used (a "billion laughs")."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            raise yaml.composer.ComposerError(
                None, None, "YAML aliases (*name) are not accepted here; write the values out", mark
            )
        return super().compose_node(parent, index)


MAX_YAML_BYTES = MAX_SETTINGS_FILE_BYTES  # settings files (run.yaml, profiles, sources) are a few kilobytes
MAX_YAML_FLOW_DEPTH = 100


def _flow_depth(text: str) -> int:
    """How deeply `[` and `{` nest (quotes ignored: an over-estimate is harmless here). PyYAML's scanner
    slows down quadratically with the depth, so a deep document is refused before it is parsed."""
    depth = deepest = 0
    for bracket in re.findall(r"[\[\]{}]", text):
        depth = depth + 1 if bracket in "[{" else max(0, depth - 1)
        deepest = max(deepest, depth)
    return deepest


def parse_yaml(data: bytes, name: str) -> Any:
    """A YAML document (UTF-8, safe types only, no aliases, not huge, not nested hundreds deep);
    IngestError naming the file otherwise."""
    if len(data) > MAX_YAML_BYTES:
        raise IngestError(f"{name}: {len(data):,} bytes, too large for a settings file (limit {MAX_YAML_BYTES:,})")
    text = decode_text(data, name)
    if _flow_depth(text) > MAX_YAML_FLOW_DEPTH:
        raise IngestError(
            f"{name}: YAML nested more than {MAX_YAML_FLOW_DEPTH} levels deep; no settings file is shaped like that"
        )
    try:
        return yaml.load(text, Loader=_NoAliasLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        raise IngestError(f"{name}: not a readable YAML file ({exc})") from None
    except RecursionError:
        raise IngestError(f"{name}: YAML nested too deeply to read") from None


def cut_last_line(text: str) -> tuple[str, str | None]:
    """(the text up to its last newline, the unterminated last line or None). Every line-based
    file the tools write ends with a newline; a last line without one may have been cut short
    mid-value (`12.5` read as `12`), so line readers leave it out and say so."""
    if not text or text.endswith(("\n", "\r")):
        return text, None
    head, _sep, last = text.rpartition("\n")
    return (head + "\n" if _sep else ""), last


CUT_LINE_REASON = (
    "the file does not end with a newline, so its last line may have been cut short "
    "(a number cut mid-way reads as another number); that line was not read. If the line is "
    "complete, end the file with a newline"
)
