"""Accelerator and model names as tools write them, turned into canonical ids (and a checkpoint's name into its model
and the precision it implies).

Aliases live in CSV files under `assets/reference/`; this module only reads them (precisions: `precisions.py`;
MLPerf's rounds, units, scenarios and rules: `mlperf_names.py`). Unknown names are returned as `None` (kept raw and
flagged by the caller), never guessed.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from assets.core.mlperf_names import split_accuracy_target
from assets.core.paths import REFERENCE_DIR
from assets.core.precisions import Precision, normalise_precision, precision_entry, read_precision
from assets.core.reference_tables import read_reference_csv


def alias_key(name: str) -> str:
    """Matching key for a name: case, `(R)`/`(TM)` marks and separator runs do not matter."""
    text = re.sub(r"\((r|tm)\)", "", name.lower())
    return re.sub(r"[\s_\-]+", " ", text).strip()


@dataclass(frozen=True)
class AcceleratorMatch:
    accelerator_id: str
    accelerators_per_instance: int | None


@functools.cache
def _accelerator_aliases() -> dict[str, AcceleratorMatch]:
    known = {row["accelerator_id"] for row in read_reference_csv("accelerators.csv")}
    table: dict[str, AcceleratorMatch] = {}
    for row in read_reference_csv("accelerator_aliases.csv"):
        if row["accelerator_id"] not in known:
            raise ValueError(
                f"{REFERENCE_DIR / 'accelerator_aliases.csv'}: alias {row['alias']!r} points at "
                f"unknown accelerator_id {row['accelerator_id']!r} (not in accelerators.csv)"
            )
        per_instance = int(row["accelerators_per_instance"]) if row["accelerators_per_instance"] else None
        key = alias_key(row["alias"])
        previous = table.get(key)
        if previous is not None and previous.accelerator_id != row["accelerator_id"]:
            raise ValueError(f"accelerator alias {row['alias']!r} maps to two accelerators")
        table[key] = AcceleratorMatch(row["accelerator_id"], per_instance)
    return table


# Words around a chip's name that do not change the chip, removed when the name as written is not in
# the alias table: a VM's passthrough GPU ("Virtualized NVIDIA H100-SXM-80GB"), a parenthetical
# architecture or count ("NVIDIA GeForce RTX 4090 (Ada Lovelace)", "... (x8)"), MLPerf's trailing
# "CTS" ("NVIDIA A100-SXM-80GB CTS", "NVIDIA H200-SXM-141GB-CTS").
_ACCELERATOR_NOISE = (r"\([^)]*\)", r"^virtuali[sz]ed ", r" cts$")
_VENDOR_WORDS = r"^(nvidia|amd|intel|google) "


def _accelerator_reduced_key(name: str) -> str:
    """The alias key without the words of _ACCELERATOR_NOISE."""
    text = alias_key(name)
    for pattern in _ACCELERATOR_NOISE:
        text = re.sub(r"\s+", " ", re.sub(pattern, " ", text)).strip()
    return text


@functools.cache
def _accelerator_aliases_without_vendor() -> dict[str, AcceleratorMatch | None]:
    """The alias table keyed without a leading vendor word ("H100-SXM-80GB" as MLPerf writes it without
    "NVIDIA"), for names that still state the memory (a bare "H200" may be SXM or NVL); None for a key
    two accelerators share (never guessed)."""
    table: dict[str, AcceleratorMatch | None] = {}
    for key, match in _accelerator_aliases().items():
        bare = re.sub(_VENDOR_WORDS, "", key)
        if not re.search(r"\b\d+ ?gb?\b", bare):
            continue
        if bare in table and table[bare] != match:
            table[bare] = None
        else:
            table.setdefault(bare, match)
    return table


def match_accelerator(name: str | None) -> AcceleratorMatch | None:
    """The canonical accelerator for a name written by MLPerf, nvidia-smi, rocm-smi, a cloud
    catalog or a Kubernetes node label; None when the name is unknown or empty.

    Tried in order: the alias table as written; without _ACCELERATOR_NOISE; then without a leading
    vendor word on both sides (when that leaves one accelerator)."""
    if name is None:
        return None
    aliases = _accelerator_aliases()
    found = aliases.get(alias_key(str(name)))
    if found is not None:
        return found
    reduced = _accelerator_reduced_key(str(name))
    if not reduced:
        return None
    return aliases.get(reduced) or _accelerator_aliases_without_vendor().get(re.sub(_VENDOR_WORDS, "", reduced))


def accelerator_id(name: str | None) -> str | None:
    match = match_accelerator(name)
    return match.accelerator_id if match else None


@functools.cache
def _model_aliases() -> dict[str, str]:
    known = {row["model_id"] for row in read_reference_csv("models.csv")}
    table = {}
    for row in read_reference_csv("model_aliases.csv"):
        if row["model_id"] not in known:
            raise ValueError(f"model alias {row['alias']!r} points at unknown model_id {row['model_id']!r}")
        table[alias_key(row["alias"])] = row["model_id"]
    return table


def model_id(name: str | None) -> str | None:
    """The canonical model for a Hugging Face id or an MLPerf benchmark name (with or without
    its -99 / -99.9 accuracy suffix); None when unknown."""
    if not name:
        return None
    table = _model_aliases()
    found = table.get(alias_key(name))
    if found is None:
        base, _target = split_accuracy_target(name)
        found = table.get(alias_key(base))
    return found


@functools.cache
def _checkpoint_precisions() -> dict[str, str]:
    table = {}
    for row in read_reference_csv("models.csv"):
        if row.get("checkpoint_precision"):
            found = normalise_precision(row["checkpoint_precision"])
            if found is None:
                raise ValueError(f"models.csv: {row['model_id']}: checkpoint_precision states no precision")
            table[row["model_id"]] = found
    return table


def checkpoint_precision(model: str | None) -> str | None:
    """The precision a model's reference checkpoint is published in (what `dtype=auto` loads), from
    models.csv; None when the table does not say."""
    return _checkpoint_precisions().get(model or "")


# --- quantised checkpoints -----------------------------------------------------------------

# Words of a checkpoint's name that say how it is packaged, not which model or precision it is:
# `-GGUF` (llama.cpp files), `quantized.w8a8`, `-unsloth-bnb-4bit`, unsloth's `UD-` dynamic quants,
# group sizes (`-W4A16-G128`), `-asym`, a team's own `-custom` quantisation (`llama-3.2-3b-instruct-awq-custom`).
_CHECKPOINT_WORDS = re.compile(r"gguf|quantized|unsloth|ud|dynamic|asym|sym|custom|g\d+", re.IGNORECASE)


@dataclass(frozen=True)
class ModelMatch:
    """A model name read as a checkpoint: its canonical model (None when unknown), the precision its
    name implies (None when it implies none) and the name without its quantisation suffix."""

    model_id: str | None
    implied_precision: Precision | None
    base_name: str
    tried: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """What the model is matched on: its canonical id, else `unknown_model_key` of its base name."""
        return self.model_id or unknown_model_key(self.base_name)


def unknown_model_key(base_name: str) -> str:
    """The key of a model no alias table knows: its checkpoint name without organisation or folder, lower case,
    separator runs as one `-` (`meta-llama/Llama-3.2-3B-Instruct` and `/models/llama-3.2-3b-instruct-awq-custom`
    without its quantisation words are both `llama-3.2-3b-instruct`)."""
    last = [p for p in re.split(r"[/\\]", base_name.strip()) if p]
    return re.sub(r"[\s_\-]+", "-", (last[-1] if last else "").lower()).strip("-")


def model_key(name: str | None) -> str:
    """The one pairing rule: the key on which a model's runs, profiles, quality figures, calibrated configs and our
    traffic's projections meet. Its canonical id where an alias table knows the name (as written, or as a
    checkpoint: `model_and_precision`), else `unknown_model_key` of its name without quantisation words. MLPerf
    results pair by canonical id only: a model no alias table knows has none."""
    return model_and_precision(name).key


def _checkpoint_parts(name: str) -> tuple[str | None, str]:
    """(organisation or folder, checkpoint name) of a Hugging Face id, a local path or a GGUF file."""
    text = name.strip().rstrip("/")
    parts = [p for p in re.split(r"[/\\]", text) if p]
    if not parts:
        return None, ""
    last = parts[-1]
    if last.lower().endswith(".gguf"):
        last = last[: -len(".gguf")]
    local = text.startswith(("/", ".", "~")) or "\\" in text or re.match(r"[A-Za-z]:", text) is not None
    gguf_file = last != parts[-1]
    organisation = None
    if not local and len(parts) >= 2:
        # org/repo-GGUF/file.gguf: the organisation is the repository's
        organisation = parts[-3] if gguf_file and len(parts) >= 3 else parts[-2]
    return organisation, last


def _peel_quantisation(checkpoint: str) -> tuple[str, Precision | None]:
    """The checkpoint name without its trailing quantisation words, and the precision they state."""
    segments = checkpoint.split("-")
    head, dot, tail = segments[-1].rpartition(".")
    if dot and head and precision_entry(tail) is not None:  # `-quantized.w8a8`
        segments[-1:] = [head, tail]
    implied: Precision | None = None
    while len(segments) > 1:
        for size in (3, 2, 1):
            if len(segments) <= size:
                continue
            spelled = "-".join(segments[-size:])
            if precision_entry(spelled) is not None:
                implied = implied or read_precision(spelled)
                del segments[-size:]
                break
        else:
            if not _CHECKPOINT_WORDS.fullmatch(segments[-1]):
                break
            del segments[-1]
    return "-".join(segments), implied


@functools.cache
def _model_aliases_without_organisation() -> dict[str, str | None]:
    """The Hugging Face aliases keyed by their name after the organisation; None when two models share it."""
    table: dict[str, str | None] = {}
    for row in read_reference_csv("model_aliases.csv"):
        if "/" not in row["alias"]:
            continue
        key = alias_key(row["alias"].rsplit("/", 1)[1])
        if table.get(key, row["model_id"]) != row["model_id"]:
            table[key] = None
        else:
            table[key] = row["model_id"]
    return table


def model_and_precision(name: str | None) -> ModelMatch:
    """The canonical model of a checkpoint name and the precision its name implies:
    `neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8` -> (llama-3.1-8b-instruct, fp8),
    `unsloth/...-bnb-4bit` -> nf4, `Qwen/...-GPTQ-Int4` -> int4, `.../model-Q4_K_M.gguf` -> q4_k_m.

    The model is the alias table's for the name as written; else for the name without its quantisation
    suffix (with its organisation, then without it: quantised copies live under the quantiser's
    organisation); a local path is read by its last folder. Unknown stays None, never guessed."""
    text = (name or "").strip()
    if not text:
        return ModelMatch(None, None, "")
    organisation, checkpoint = _checkpoint_parts(text)
    base, implied = _peel_quantisation(checkpoint)
    found = model_id(text)
    tried = [text]
    if found is None:
        candidates = [f"{organisation}/{base}" if organisation else base]
        if base != checkpoint or organisation is None:
            candidates += [base]
        for candidate in candidates:
            if candidate not in tried:
                tried.append(candidate)
            found = model_id(candidate) or _model_aliases_without_organisation().get(alias_key(candidate))
            if found:
                break
    return ModelMatch(found, implied, f"{organisation}/{base}" if organisation else base, tuple(tried))
