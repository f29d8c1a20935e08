"""The one registry of dump formats: the readers in the order they are tried, and reading one file.

The first reader whose `recognise` answers names the file. Specific shapes first; vLLM after SGLang (SGLang
lines carry vLLM-like keys), the generic tabular formats last (the per-level summary before the per-request one).
A format a reader lists in `SKIPPED` is recognised and listed with its reason, never parsed; a format in
`READ_IN_PLACE` is never decoded whole (DuckDB reads its records where the file lies). A file too large to hold
is recognised from its head: one that is no dump, or a skipped format, is never decoded further.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from assets.core.errors import IngestError, costs_only_itself
from assets.formats.base import Reader
from assets.formats.dumps import (
    aiperf,
    generic,
    generic_levels,
    guidellm,
    inference_perf,
    llmd_report,
    llmperf,
    loadgen_run,
    sglang,
    trtllm_bench,
    vllm,
)
from assets.formats.dumps.decode import complete, decode
from assets.formats.dumps.exchange import Dump, Parsed
from assets.formats.size_limits import check_whole_read
from assets.inputs.files import HEAD_BYTES, Fetched, LargeFile, head_of, size_of
from assets.inputs.textinput import json_head, looks_like_json


class DumpReader(Reader[Dump, Parsed], Protocol):
    """A dump reader: the contract of every reader, plus the tool it reads and the formats read in place."""

    @property
    def TOOL(self) -> str: ...  # noqa: N802 - a module constant, as readers spell it

    @property
    def READ_IN_PLACE(self) -> frozenset[str]: ...  # noqa: N802


READERS: list[DumpReader] = [
    inference_perf,
    llmd_report,
    guidellm,
    aiperf,
    llmperf,
    sglang,
    vllm,
    loadgen_run,
    trtllm_bench,
    generic_levels,
    generic,
]

SKIPPED: Mapping[str, str] = {kind: why for reader in READERS for kind, why in reader.SKIPPED.items()}
READ_IN_PLACE: frozenset[str] = frozenset().union(*(reader.READ_IN_PLACE for reader in READERS))


def recognise(dump: Dump) -> tuple[DumpReader, str] | None:
    """(reader, format) of the first reader that recognises the file, or None."""
    for reader in READERS:
        kind = reader.recognise(dump)
        if kind:
            return reader, kind
    return None


def parse_file(fetched: Fetched | LargeFile, path: str | None = None) -> tuple[Parsed | None, Dump]:
    """What one dump file holds (None when no reader recognises it), and the file as the readers saw it. A
    skipped format comes back without measurements, its reason as the note. `path`: where the file lies on
    disk (DuckDB reads the formats read in place there). Whatever a reader raises is an IngestError naming the
    file (`costs_only_itself`): the file is quarantined, the rest read."""
    with costs_only_itself(fetched.name):
        return _parse_file(fetched, path)


def _parse_file(fetched: Fetched | LargeFile, path: str | None) -> tuple[Parsed | None, Dump]:
    """`parse_file` itself: decoded, recognised, refused above its format's size limit, else read whole and parsed."""
    try:
        dump = decode(fetched, path)
    except IngestError:
        dump = _bracketed_log(fetched, path)
    found = recognise(dump)
    if found is not None and found[1] not in found[0].SKIPPED and found[1] not in found[0].READ_IN_PLACE:
        check_whole_read(fetched.name, size_of(fetched), found[1])  # refused by size before it is held whole
        head_only = dump.partial and not dump.json_lines  # a large JSON document recognised from its head
        dump = complete(dump, fetched)
        if head_only:  # the whole document decides (a key past the head may change the format)
            found = recognise(dump)
    if found is None:
        return None, dump
    reader, kind = found
    if kind in reader.SKIPPED:
        return Parsed(kind=kind, tool=reader.TOOL, definitions="", note=reader.SKIPPED[kind]), dump
    return reader.parse(dump, kind), dump


# Readers of text logs whose lines begin with a bracket (`[TRT-LLM] [I] ...`), which look like JSON to the decoder.
BRACKETED_LOG_READERS: list[DumpReader] = [trtllm_bench]


def _bracketed_log(fetched: Fetched | LargeFile, path: str | None) -> Dump:
    """A file that begins like JSON and is not: the text of a log a reader of `BRACKETED_LOG_READERS` recognises,
    else the decoder's error (a damaged JSON file stays a damaged JSON file)."""
    text = Dump(fetched.name, fetched.data, path=path)
    if any(reader.recognise(text) for reader in BRACKETED_LOG_READERS):
        return text
    return decode(fetched, path)  # raises the decoder's IngestError again


DAMAGED_JSON = "damaged JSON"  # the format of a file whose JSON begins well and cannot be read whole


def recognise_unreadable(fetched: Fetched | LargeFile) -> str | None:
    """The format of a file that could not be read (`parse_file` raised), as its head shows it: a reader's format,
    or DAMAGED_JSON for JSON that begins as a document (an object or list of values) and breaks later (cut short,
    nested too deeply, a byte that is not UTF-8): both are damaged files, quarantined with the reason. None: a
    file no reader knows, which merely looks like JSON (a Python dict printed, a log line in brackets): skipped.
    The head is decoded leniently (a byte that is not UTF-8 does not hide a vLLM result's keys)."""
    head = head_of(fetched)[:HEAD_BYTES]
    lenient = head.decode("utf-8", errors="replace").encode()
    dump = Dump(fetched.name, head, partial=True)
    if looks_like_json(lenient):
        dump.payload = json_head(lenient)
    try:
        found = recognise(dump)
    except (IngestError, ValueError, TypeError, LookupError, AttributeError, RecursionError):
        found = None  # a recogniser meeting damage it does not expect: no format known
    if found is not None:
        return found[1]
    return DAMAGED_JSON if isinstance(dump.payload, (dict, list)) and dump.payload else None
