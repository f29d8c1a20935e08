"""The one registry of dump formats: the readers in the order they are tried, and reading one file.

The first reader whose `recognise` answers names the file. Specific shapes first; vLLM after SGLang (SGLang
lines carry vLLM-like keys), the generic tabular format last. A format a reader lists in `SKIPPED` is
recognised and listed with its reason, never parsed; a format in `READ_IN_PLACE` is never decoded whole (DuckDB
reads its records where the file lies). A file too large to hold is recognised from its head: one that is no dump,
or a skipped format, is never decoded further.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from assets.formats.base import Reader
from assets.formats.dumps import aiperf, generic, guidellm, inference_perf, llmperf, loadgen_run, sglang, vllm
from assets.formats.dumps.decode import complete, decode
from assets.formats.dumps.exchange import Dump, Parsed
from assets.inputs.files import Fetched, LargeFile


class DumpReader(Reader[Dump, Parsed], Protocol):
    """A dump reader: the contract of every reader, plus the tool it reads and the formats read in place."""

    @property
    def TOOL(self) -> str: ...  # noqa: N802 - a module constant, as readers spell it

    @property
    def READ_IN_PLACE(self) -> frozenset[str]: ...  # noqa: N802


READERS: list[DumpReader] = [inference_perf, guidellm, aiperf, llmperf, sglang, vllm, loadgen_run, generic]

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
    disk (DuckDB reads the formats read in place there)."""
    dump = decode(fetched, path)
    found = recognise(dump)
    if found is not None and found[1] not in found[0].SKIPPED and found[1] not in found[0].READ_IN_PLACE:
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
