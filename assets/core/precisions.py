"""Precisions as written (run.yaml, MLPerf, checkpoint names), read through precisions.csv: names, bits, schemes."""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass

from assets.core.paths import REFERENCE_DIR
from assets.core.reference_tables import read_reference_csv

# Values that state no precision (MLPerf's UNSET, a dash): read as "not given".
_NO_PRECISION = {"UNSET", "N/A", "NA", "NONE", "-", "UNKNOWN", "NOT STATED"}


def precision_key(spelling: str) -> str:
    """Matching key for a precision spelling: case and `-`, `_`, spaces do not matter."""
    return re.sub(r"[\s_\-]+", "", spelling.strip().lower())


@dataclass(frozen=True)
class PrecisionEntry:
    """One canonical precision from precisions.csv: its name and bits (activation bits, activation format and
    quantisation method when the spelling says)."""

    precision: str
    weight_bits: int
    activation_bits: int | None
    activation_format: str | None = None
    method: str | None = None

    @property
    def scheme(self) -> str:
        """The readable quantisation scheme: the precision, then `w<bits>a<bits>` when the activations are stated
        (`a<format>` for float activations of integer weights: `w4afp8`), then the method: `int4-w4a16-awq`,
        `int4-w4a8`, `fp8-w8a8-dynamic`, `bf16`; a part not stated is left out (known in part: `int4`)."""
        parts = [self.precision]
        if self.activation_bits is not None:
            integer_weights = self.precision.startswith(("int", "uint"))
            float_activations = self.activation_format not in (None, "16-bit float", "int8", "int4")
            act = self.activation_format if integer_weights and float_activations else str(self.activation_bits)
            parts.append(f"w{self.weight_bits}a{act}")
        if self.method:
            parts.append(self.method)
        return "-".join(parts)


@functools.cache
def _precisions() -> dict[str, PrecisionEntry]:
    table: dict[str, PrecisionEntry] = {}
    bits: dict[str, int] = {}
    where = REFERENCE_DIR / "precisions.csv"
    for line, row in enumerate(read_reference_csv("precisions.csv"), start=2):
        try:
            weight = int(row["weight_bits"])
            activation = int(row["activation_bits"]) if row["activation_bits"] else None
        except ValueError:
            raise ValueError(f"{where} line {line}: weight_bits/activation_bits must be whole numbers") from None
        if bits.setdefault(row["precision"], weight) != weight:
            raise ValueError(
                f"{where} line {line}: {row['precision']} has {weight} weight bits here, {bits[row['precision']]} above"
            )
        key = precision_key(row["spelling"])
        entry = PrecisionEntry(
            row["precision"], weight, activation, row["activation_format"] or None, row["method"] or None
        )
        if table.get(key, entry) != entry:
            raise ValueError(f"{where} line {line}: spelling {row['spelling']!r} is already mapped differently")
        table[key] = entry
    missing = sorted(name for name in bits if table.get(precision_key(name), None) is None)
    if missing:
        raise ValueError(f"{where}: no row spells the canonical precisions {missing} as themselves")
    return table


def precision_entry(spelling: str) -> PrecisionEntry | None:
    """The table's entry for one spelling (no list), or None."""
    return _precisions().get(precision_key(spelling))


@dataclass(frozen=True)
class Precision:
    """A precision as written, read through precisions.csv.

    `precision`: the canonical name, or a comma list widest first (`fp16,fp8,int8`) for a value naming
    several (MLPerf's per-component precisions); None when nothing is stated or a part is unknown.
    `weight_bits`: the narrowest weight bits named; `activation_bits` only when one spelling states them.
    `known`: False when a part is not in the table (then `unknown` lists those parts, kept raw).
    `stated`: False for an empty value or one of _NO_PRECISION."""

    precision: str | None
    weight_bits: int | None
    activation_bits: int | None
    known: bool
    stated: bool
    unknown: tuple[str, ...] = ()
    scheme: str | None = None  # PrecisionEntry.scheme of one spelling; the precision itself for a list
    activation_format: str | None = None  # of one spelling, when it says
    method: str | None = None  # the quantisation method of one spelling (awq, gptq, smoothquant, ...), when it says


def _precision_parts(text: str) -> list[str]:
    if text.startswith("{"):
        try:
            parsed = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            return [text]
        if not isinstance(parsed, dict):
            return [text]
        return [str(v) for v in parsed.values()]
    return [part.split(":")[-1] for part in re.split(r"[,;/+]", text)]


def read_precision(raw: object) -> Precision:
    """A precision value (run.yaml, MLPerf's weight_data_types, a checkpoint's suffix) read through the
    table: case variants, torch/vLLM/llama.cpp/bitsandbytes spellings, comma lists and the stringified
    dict of v5.1 SDXL (`{'unet': 'fp8', ...}`). Never raises: an unknown part leaves `known` False."""
    text = "" if raw is None else str(raw).strip()
    if not text or text.upper() in _NO_PRECISION:
        return Precision(None, None, None, known=True, stated=False)
    entries, unknown = [], []
    for part in _precision_parts(text):
        if not part.strip():
            continue
        entry = precision_entry(part)
        if entry is None:
            unknown.append(part.strip())
        else:
            entries.append(entry)
    if unknown:
        return Precision(None, None, None, known=False, stated=True, unknown=tuple(unknown))
    if not entries:
        return Precision(None, None, None, known=True, stated=False)
    names = sorted({e.precision: e.weight_bits for e in entries}.items(), key=lambda item: (-item[1], item[0]))
    activations = {e.activation_bits for e in entries}
    precision = ",".join(name for name, _bits in names)
    return Precision(
        precision,
        min(e.weight_bits for e in entries),
        activations.pop() if len(set(entries)) == 1 else None,
        known=True,
        stated=True,
        scheme=entries[0].scheme if len(set(entries)) == 1 else precision,
        activation_format=entries[0].activation_format if len(set(entries)) == 1 else None,
        method=entries[0].method if len(set(entries)) == 1 else None,
    )


def schemes_agree(first: str, second: str) -> bool:
    """Whether two schemes can be the same quantisation: equal, or one is the other known in part (a prefix at a
    `-`: `int4` and `int4-w4a16` agree with `int4-w4a16-awq`; `int4-w4a8` never agrees with `int4-w4a16-awq`)."""
    return first == second or first.startswith(f"{second}-") or second.startswith(f"{first}-")


def fuller(stated: Precision, implied: Precision | None) -> Precision:
    """A stated precision, completed by the one a model name implies when their schemes agree (run.yaml's `int4`
    with a `-AWQ` checkpoint is `int4-w4a16-awq`); the stated one as it is when they do not."""
    if implied is None or not stated.scheme or not implied.scheme or not schemes_agree(stated.scheme, implied.scheme):
        return stated
    return implied if len(implied.scheme) > len(stated.scheme) else stated


class PrecisionError(ValueError):
    pass


def normalise_precision(raw: str | None) -> str | None:
    """The canonical precision of a value (see read_precision); None when it states none. PrecisionError
    when a part is not in precisions.csv (callers that keep the raw value catch it)."""
    found = read_precision(raw)
    if not found.known:
        raise PrecisionError(f"unknown precision {', '.join(map(repr, found.unknown))} in {str(raw).strip()!r}")
    return found.precision
