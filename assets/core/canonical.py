"""The one place that turns names as tools write them into canonical ids.

Aliases, precisions, units and workloads live in CSV files under `assets/reference/`; this module only
reads them. Unknown names are returned as `None` (kept raw and flagged by the caller), never guessed.
"""

from __future__ import annotations

import ast
import csv
import functools
import re
from dataclasses import dataclass

from assets.core.paths import REFERENCE_DIR


def _read_csv(name: str) -> list[dict[str, str]]:
    with open(REFERENCE_DIR / name, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


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
    known = {row["accelerator_id"] for row in _read_csv("accelerators.csv")}
    table: dict[str, AcceleratorMatch] = {}
    for row in _read_csv("accelerator_aliases.csv"):
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
    known = {row["model_id"] for row in _read_csv("models.csv")}
    table = {}
    for row in _read_csv("model_aliases.csv"):
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
    for row in _read_csv("models.csv"):
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


def split_accuracy_target(mlperf_model: str) -> tuple[str, str | None]:
    """`llama2-70b-99.9` -> (`llama2-70b`, `99.9`); names without a suffix have one target."""
    match = re.fullmatch(r"(.+?)-(99(?:\.9)?)", mlperf_model.strip())
    if match:
        return match.group(1), match.group(2)
    return mlperf_model.strip(), None


def round_sort_key(round_name: str) -> int:
    """`v5.1` -> 501, so rounds order numerically."""
    match = re.fullmatch(r"v?(\d+)\.(\d+)", round_name.strip())
    if not match:
        raise ValueError(f"not an MLPerf round name: {round_name!r} (expected like 'v5.1')")
    return int(match.group(1)) * 100 + int(match.group(2))


def normalise_round(value: object) -> str:
    """`5.1`, `v5.1`, `inference-v5.1` -> `v5.1`."""
    match = re.search(r"(\d+)\.(\d+)", str(value))
    if not match:
        raise ValueError(f"not an MLPerf round: {value!r}")
    return f"v{int(match.group(1))}.{int(match.group(2))}"


# --- units --------------------------------------------------------------------------------

THROUGHPUT_UNITS = {"tokens/s", "samples/s", "queries/s", "tasks/s", "streams"}
LATENCY_UNITS = {"ms", "s"}

# How MLCommons writes units (`Units`, `Performance_Units`, HTML `Metric`) -> our unit.
_RAW_UNITS = {
    "tokens/s": "tokens/s",
    "samples/s": "samples/s",
    "queries/s": "queries/s",
    "tasks/s": "tasks/s",
    "streams": "streams",
    "latency (ms)": "ms",
    "latency (s)": "s",
}


def raw_unit(raw: str | None) -> str | None:
    """Our unit for an MLCommons unit label (None when unknown or empty)."""
    if raw is None:
        return None
    return _RAW_UNITS.get(str(raw).strip().lower())


def unit_kind(unit: str) -> str:
    return "throughput" if unit in THROUGHPUT_UNITS else "latency"


@dataclass(frozen=True)
class ResultRule:
    """What a (round, model, scenario) result is: its unit, the LoadGen detail-log key the
    submission checker takes it from, and whether the rule is model-specific or a default."""

    unit: str
    log_field: str
    note: str
    model_specific: bool


@functools.cache
def _unit_rules() -> list[dict[str, str]]:
    return _read_csv("mlperf_units.csv")


def mlperf_rule(mlperf_model: str, scenario: str, round_name: str) -> ResultRule:
    """The rule for (round, model, scenario) from `mlperf_units.csv`: the first matching row,
    model-specific rows before the `*` defaults. The `Units` column of the tables is not trusted
    for the models the table names (some rounds label an LLM's tokens/s `Samples/s` or `Queries/s`)."""
    base, _target = split_accuracy_target(mlperf_model)
    order = round_sort_key(round_name)
    for rule in _unit_rules():
        if rule["mlperf_model"] not in ("*", base):
            continue
        if scenario not in rule["scenarios"].split("|"):
            continue
        if rule["first_round"] and order < round_sort_key(rule["first_round"]):
            continue
        if rule["last_round"] and order > round_sort_key(rule["last_round"]):
            continue
        return ResultRule(rule["unit"], rule["log_field"], rule["note"], rule["mlperf_model"] != "*")
    raise ValueError(f"no unit rule for model {mlperf_model!r}, scenario {scenario!r}, round {round_name}")


@functools.cache
def _model_folders() -> dict[str, str]:
    return {row["folder"]: row["mlperf_model"] for row in _read_csv("mlperf_model_folders.csv")}


def mlperf_benchmark(folder: str, extra: dict[str, str] | None = None) -> str:
    """The official benchmark name for a submission folder name (`resnet50` -> `resnet`), using a
    submitter's own `model_mapping.json` (open division) when given; unmapped names are kept."""
    name = folder.strip()
    if extra and name in extra:
        return str(extra[name])
    return _model_folders().get(name, name)


@functools.cache
def _workloads() -> dict[str, dict[str, str]]:
    return {row["mlperf_model"]: row for row in _read_csv("mlperf_workloads.csv")}


def mlperf_dataset(mlperf_model: str) -> str | None:
    base, _target = split_accuracy_target(mlperf_model)
    row = _workloads().get(base)
    return row["dataset"] if row else None


@dataclass(frozen=True)
class AccuracyTarget:
    """One bound MLPerf's checker sets on a benchmark's accuracy metric (mlperf_accuracy_targets.csv)."""

    benchmark: str
    metric: str
    reference_value: float
    target_fraction: float
    bound: str  # min | max
    first_round: str
    last_round: str
    note: str

    @property
    def target_value(self) -> float:
        return self.reference_value * self.target_fraction


@functools.cache
def mlperf_accuracy_targets() -> tuple[AccuracyTarget, ...]:
    """The accuracy bounds of MLPerf's submission checker per benchmark and metric (see the CSV's .md)."""
    where = REFERENCE_DIR / "mlperf_accuracy_targets.csv"
    targets = []
    for line, row in enumerate(_read_csv("mlperf_accuracy_targets.csv"), start=2):
        try:
            reference, fraction = float(row["reference_value"]), float(row["target_fraction"])
        except ValueError:
            raise ValueError(f"{where} line {line}: reference_value and target_fraction must be numbers") from None
        if row["bound"] not in ("min", "max"):
            raise ValueError(f"{where} line {line}: bound must be min or max (got {row['bound']!r})")
        targets.append(
            AccuracyTarget(
                row["benchmark"],
                row["metric"],
                reference,
                fraction,
                row["bound"],
                normalise_round(row["first_round"]),
                normalise_round(row["last_round"]),
                row["note"],
            )
        )
    return tuple(targets)


# --- scenarios ----------------------------------------------------------------------------

_SCENARIOS = {
    "offline": "Offline",
    "server": "Server",
    "interactive": "Interactive",
    "singlestream": "SingleStream",
    "multistream": "MultiStream",
}


def normalise_scenario(raw: str) -> str | None:
    """`Multi Stream`, `singlestream`, `Server` -> official spelling; None when unknown."""
    return _SCENARIOS.get(re.sub(r"[\s_\-]+", "", str(raw)).lower())


# --- precision ----------------------------------------------------------------------------

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
    for line, row in enumerate(_read_csv("precisions.csv"), start=2):
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
    for row in _read_csv("model_aliases.csv"):
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


# --- runtimes -----------------------------------------------------------------------------


def split_runtime(software: str | None) -> tuple[str | None, str | None]:
    """The serving runtime and its version from an MLPerf `Software` string's first component:
    `vLLM 0.10.0, RHEL 9.6` -> (`vLLM`, `0.10.0`)."""
    if not software:
        return None, None
    first = str(software).split(",")[0].strip()
    match = re.match(r"^(.*?)\s+v?(\d+(?:\.\d+)*[\w.+\-]*)", first)
    if not match:
        return first or None, None
    return match.group(1).strip() or None, match.group(2)
