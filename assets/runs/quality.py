"""Quality files in the dump folders into observed.quality rows: each figure's base model and precision,
from a `run.yaml` above the file when it states them, else from what the file says (lm-eval's
`config.model_args`/`model_name`; the generic CSV's own columns), read through the alias and precision tables.

The precision, strongest first: run.yaml's `precision`; the CSV's `precision` column; a quantisation argument
(`quantization=`, `load_in_8bit`, `load_in_4bit`); the checkpoint's name (`-FP8`, `-AWQ`, `-GPTQ-Int4`,
`-NVFP4`, `w4a16`); an explicit `dtype`; the dtype the harness loaded (`config.model_dtype`); the reference
checkpoint's own precision (models.csv `checkpoint_precision`: what `dtype=auto`, or no dtype, loads; said
in precision_note). A model no alias table knows is kept raw (`model_known` false, `model_note` naming what was
tried) under the key runs and profiles of that model are matched on (canonical.unknown_model_key); a figure whose
precision nothing states is quarantined with the reason, never kept under a guessed precision."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import PurePosixPath
from typing import Any

import duckdb
import polars as pl

from assets.core import canonical, precisions
from assets.core.errors import costs_only_itself
from assets.core.records import Reject, SourceFile
from assets.formats.dumps.exchange import Dump
from assets.formats.quality import lm_eval, registry
from assets.formats.quality.exchange import QualityParsed, QualityResult
from assets.formats.size_limits import check_whole_read
from assets.warehouse.rows import row_for
from assets.warehouse.validate import frame_from_rows
from assets.warehouse.write import WriteReport, write_table
from schemas.observed.quality import Quality


@dataclass
class QualityRead:
    """A quality file read: its name, checksum, size, folder below the dumps folder and what it holds."""

    name: str
    sha256: str
    size: int | None
    folder: PurePosixPath
    parsed: QualityParsed


def recognise(
    dump: Dump,
    name: str,
    sha256: str,
    size: int | None,
    folder: PurePosixPath,
    whole: Callable[[], Dump] | None = None,
) -> QualityRead | None:
    """The quality file `dump` is, parsed; None when no quality reader recognises it. A file too large to hold
    whose head begins like a quality file (registry.begins_like) is read whole (`whole()`, under its size limit:
    `size_limits`) and then recognised. Whatever a reader raises is an IngestError naming the file."""
    with costs_only_itself(name):
        parsed = registry.parse(dump)
        if parsed is None and whole is not None and registry.begins_like(dump):
            check_whole_read(name, size, lm_eval.HARNESS)
            parsed = registry.parse(whole())
    return None if parsed is None else QualityRead(name, sha256, size, folder, parsed)


@dataclass(frozen=True)
class Identity:
    model: str
    model_raw: str
    model_field: str
    precision: str
    precision_raw: str
    precision_source: str
    precision_note: str | None
    model_known: bool = True
    model_note: str | None = None
    scheme: precisions.Precision | None = None  # the precision as read, with its scheme (activations, method)

    @property
    def scheme_columns(self) -> dict[str, Any]:
        """observed.quality's scheme columns: the scheme (the precision when nothing more is known), the
        activation bits and format, and the quantisation method, where stated."""
        read = self.scheme
        return {
            "scheme": (read.scheme if read and read.scheme else None) or self.precision,
            "activation_bits": read.activation_bits if read else None,
            "activation_format": read.activation_format if read else None,
            "quant_method": read.method if read else None,
        }


def _precision_word(where: str, raw: str) -> tuple[precisions.Precision | None, str | None]:
    """(the precision read, problem) of a stated precision word; None when it states none."""
    found = precisions.read_precision(raw)
    if not found.known:
        return None, f"precision {raw!r} ({where}) is not in assets/reference/precisions.csv"
    return (found if found.precision else None), None


def identify(read: QualityRead, result: QualityResult, settings: dict[str, Any], sidecar: str | None) -> Identity | str:
    """The base model and precision one figure is for, or the reason it has none."""
    parsed = read.parsed
    csv_row = result.model_raw is not None or result.precision_raw is not None
    if settings.get("model") and not (csv_row and result.model_raw):
        model_raw, model_field = str(settings["model"]).strip(), f"run.yaml ({sidecar})"
    elif csv_row and result.model_raw:
        model_raw, model_field = result.model_raw, "CSV column model"
    elif parsed.model_raw:
        model_raw, model_field = parsed.model_raw, parsed.model_field or "file"
    else:
        return (
            "no model: the file names none (config.model_args has no pretrained=, and no model_name) and no "
            "run.yaml above it states `model:`"
        )
    match = canonical.model_and_precision(model_raw)
    found = _identity(read, result, settings, sidecar, match, model_raw, model_field, csv_row)
    if isinstance(found, str) or match.model_id is not None:
        return found
    return replace(found, model_known=False, model_note=unknown_model_note(match, model_raw, model_field))


def unknown_model_note(match: canonical.ModelMatch, model_raw: str, model_field: str) -> str:
    """What was tried for a model no alias table knows, and the key it is kept and matched under."""
    tried = ", ".join(repr(name) for name in match.tried)
    return (
        f"model {model_raw!r} ({model_field}) is in no alias table (tried {tried}, each also without its "
        f"organisation, in assets/reference/model_aliases.csv): kept raw, matched to runs and profiles as "
        f"{match.key!r}; add an alias there to join it to MLPerf's results"
    )


def _identity(
    read: QualityRead,
    result: QualityResult,
    settings: dict[str, Any],
    sidecar: str | None,
    match: canonical.ModelMatch,
    model_raw: str,
    model_field: str,
    csv_row: bool,
) -> Identity | str:
    """The base model (its key) and precision of one figure once its model name is known."""
    parsed = read.parsed
    stated: list[tuple[str, str, str]] = []  # (source, where, word), strongest first
    if csv_row and result.precision_raw:
        stated.append(("quality CSV", "CSV column precision", result.precision_raw))
    if settings.get("precision") not in (None, ""):
        stated.insert(0, ("run.yaml", f"run.yaml ({sidecar})", str(settings["precision"]).strip()))
    if parsed.quantization:
        stated.append(("quantisation argument", parsed.quantization[0], parsed.quantization[1]))
    note = None
    for source, where, word in stated:
        found, problem = _precision_word(where, word)
        if problem:
            return problem
        if found and found.precision:
            precision = found.precision
            contradiction = _contradiction(source, precision, parsed, result)
            scheme = found if contradiction else precisions.fuller(found, match.implied_precision)
            return Identity(match.key, model_raw, model_field, precision, word, source, contradiction, scheme=scheme)
    implied = match.implied_precision
    if implied is not None and implied.precision:
        return Identity(
            match.key, model_raw, model_field, implied.precision, model_raw, "model name", None, scheme=implied
        )
    for source, spelled in (
        ("dtype argument", parsed.dtype),
        ("loaded dtype", ("config.model_dtype", parsed.loaded_dtype)),
    ):
        if spelled and spelled[1]:
            found, problem = _precision_word(spelled[0], spelled[1])
            if problem:
                return problem
            if found and found.precision:
                word = f"{spelled[0]}={spelled[1]}"
                return Identity(match.key, model_raw, model_field, found.precision, word, source, None, scheme=found)
    native = canonical.checkpoint_precision(match.model_id)
    if native is None:
        known = (
            f"models.csv gives no checkpoint_precision for {match.model_id}"
            if match.model_id
            else "no alias table knows the model's own checkpoint precision"
        )
        return (
            f"no precision: {model_raw!r} states no quantisation or dtype, the file no loaded dtype, and {known}; "
            "state `precision:` in a run.yaml above the file"
        )
    note = (
        f"inferred: no quantisation and no explicit dtype (auto or none) loads the checkpoint's own precision, "
        f"{native} for {match.model_id} (assets/reference/models.csv)"
    )
    return Identity(match.key, model_raw, model_field, native, "dtype auto or none", "checkpoint (models.csv)", note)


def _contradiction(source: str, precision: str, parsed: QualityParsed, result: QualityResult) -> str | None:
    """When run.yaml's precision wins over what the file itself says, and the two differ: the note saying so."""
    if source != "run.yaml":
        return None
    named = result.model_raw or parsed.model_raw
    implied = canonical.model_and_precision(named).implied_precision if named else None
    own = [(f"the checkpoint name {named!r}", implied.precision if implied else None)]
    if parsed.quantization:
        own.insert(0, (parsed.quantization[0], precisions.read_precision(parsed.quantization[1]).precision))
    for where, found in own:
        if found and found != precision:
            return f"run.yaml states {precision}; {where} implies {found}: run.yaml's is used"
    return None


Settings = Callable[[PurePosixPath], tuple[dict[str, Any], str | None]]


def quality_rows(reads: list[QualityRead], settings_for: Settings) -> tuple[list[dict], list[Reject], list[SourceFile]]:
    """observed.quality rows of the files read, their rejects and their inventory rows. `settings_for(folder)`:
    the run.yaml keys that govern a folder (merged from the root down) and the deepest run.yaml's name."""
    rows: list[dict] = []
    rejects: list[Reject] = []
    files: list[SourceFile] = []
    for read in reads:
        parsed = read.parsed
        settings, sidecar = settings_for(read.folder)
        before = len(rows)
        file_rejects = [Reject(read.name, where, reason) for where, reason in parsed.problems]
        seen: dict[tuple, str] = {}
        for result in parsed.results:
            found = identify(read, result, settings, sidecar)
            if isinstance(found, str):
                file_rejects.append(
                    Reject(read.name, result.location, found, {"task": result.task, "metric": result.metric})
                )
                continue
            scheme = found.scheme_columns
            key = (found.model, scheme["scheme"], result.task, result.metric, result.source_label)
            if key in seen:
                file_rejects.append(
                    Reject(read.name, result.location, f"duplicate of {seen[key]}: same model, scheme, task and metric")
                )
                continue
            seen[key] = result.location
            rows.append(
                row_for(
                    Quality,
                    {
                        "model": found.model,
                        "model_known": found.model_known,
                        "model_raw": found.model_raw,
                        "model_field": found.model_field,
                        "model_note": found.model_note,
                        "precision": found.precision,
                        "weight_bits": precisions.read_precision(found.precision).weight_bits,
                        **scheme,
                        "precision_raw": found.precision_raw,
                        "precision_source": found.precision_source,
                        "precision_note": found.precision_note,
                        "task": result.task,
                        "task_version": result.task_version,
                        "n_shot": result.n_shot,
                        "metric": result.metric,
                        "value": result.value,
                        "stderr": result.stderr,
                        "stderr_note": result.stderr_note,
                        "point_value": result.point_value,
                        "samples": result.samples,
                        "higher_is_better": result.higher_is_better,
                        "harness": parsed.harness,
                        "harness_version": parsed.harness_version,
                        "format": parsed.kind,
                        "source": read.name,
                        "source_note": result.source_label,
                        "location": result.location,
                        "sha256": read.sha256,
                        "evidence": "observed",
                    },
                )
            )
        rejects += file_rejects
        kept = len(rows) - before
        files.append(
            SourceFile(
                read.name,
                read.sha256,
                read.size,
                parsed.kind,
                "read" if kept else "quarantined",
                rows=kept,
                note=f"{len(file_rejects)} figures quarantined" if file_rejects else "",
            )
        )
    return rows, rejects, files


def write_quality(
    conn: duckdb.DuckDBPyConnection, rows: list[dict], rejects: list[Reject], files: list[SourceFile]
) -> WriteReport:
    """observed.quality from the figures of the dump folders' quality files."""
    frame = frame_from_rows(rows, Quality) if rows else frame_from_rows([], Quality)
    return write_table(conn, "observed.quality", frame, Quality, rejects, files)


def quality_frame(rows: list[dict]) -> pl.DataFrame:
    return frame_from_rows(rows, Quality)
