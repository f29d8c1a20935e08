"""The one registry of quality formats: the readers in the order they are tried. The dump registry is asked
first (a load-test file is never a quality file); a file it does not recognise is offered here."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from assets.formats.base import Reader
from assets.formats.dumps.exchange import Dump
from assets.formats.quality import generic_csv, lm_eval
from assets.formats.quality.exchange import QualityParsed


class QualityReader(Reader[Dump, QualityParsed], Protocol):
    """A quality reader: the contract of every reader (recognise by content, parse)."""


READERS: list[QualityReader] = [lm_eval, generic_csv]

SKIPPED: Mapping[str, str] = {kind: why for reader in READERS for kind, why in reader.SKIPPED.items()}


def recognise(dump: Dump) -> tuple[QualityReader, str] | None:
    """(reader, format) of the first reader that recognises the file, or None."""
    for reader in READERS:
        kind = reader.recognise(dump)
        if kind:
            return reader, kind
    return None


def begins_like(dump: Dump) -> bool:
    """Whether a file too large to hold (only its head decoded) begins like a quality file: read it whole."""
    return dump.partial and not dump.json_lines and lm_eval.begins_like(dump.payload)


def parse(dump: Dump) -> QualityParsed | None:
    """What a quality file holds; None when no quality reader recognises it."""
    found = recognise(dump)
    return None if found is None else found[0].parse(dump, found[1])
