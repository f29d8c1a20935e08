"""MLPerf Inference submission trees: rebuilding the round table's rows from the published logs.

Layout (MLCommons' `tools/submission/submission_structure.md`): `<division>/<submitter>/systems/<system>.json` and
`<division>/<submitter>/results/<system>/<benchmark>/<scenario>/` holding
`performance/run_1/mlperf_log_{detail,summary}.txt` (+ `spl.txt` for power runs) and
`accuracy/accuracy.txt`; precision comes from the measurements JSON
(`measurements/<system>/<benchmark>/<scenario>/<system>[_<Scenario>].json` up to v5.1,
`results/.../measurements.json` from v6.0). The result field is chosen per round, model and
scenario from the rule table, as MLCommons' checker does; results run in another scenario are
inferred with the checker's formulas. Each result also yields its run conditions (latency
percentiles, TTFT/TPOT, the limits it was held to). Where things are in a tree: `tree_layout.py`; what a result's
logs say, read as the checker reads them: `tree_checker.py`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assets.core import mlperf_names
from assets.core.errors import IngestError
from assets.core.records import Reject, SourceFile
from assets.formats.mlperf import loadgen
from assets.formats.mlperf.rows import RowProblem, blank, text
from assets.formats.mlperf.tree_checker import checker_result, parse_accuracy_txt, power_result
from assets.formats.mlperf.tree_layout import DIVISIONS, is_tree_root, measurements_file, tree_round
from assets.inputs.files import sha256_bytes, walk_files
from assets.inputs.textinput import decode_json

SUBMISSION_TREE = "submission_tree"
FORMATS = (SUBMISSION_TREE,)
SKIPPED: dict[str, str] = {}  # files of a tree that hold no result are listed as skipped, one by one


@dataclass
class TreeResult:
    """One result folder: its report-form record and its run conditions."""

    location: str
    record: dict[str, Any]
    conditions: dict[str, Any]
    sha256: str


@dataclass(frozen=True)
class TreeRoot:
    """A submission tree's root folder, and (`only`) the folder inside it a location names, when it names one."""

    root: Path
    only: Path | None = None


@dataclass
class TreeBatch:
    results: list[TreeResult] = field(default_factory=list)
    rejects: list[Reject] = field(default_factory=list)
    files: list[SourceFile] = field(default_factory=list)
    html_pages: list[Path] = field(default_factory=list)


# --- small readers ------------------------------------------------------------------------


def read_json_file(path: Path) -> Any:
    try:
        return decode_json(path.read_bytes(), str(path))
    except OSError as exc:
        raise RowProblem(f"{path}: not readable JSON ({exc})") from None
    except IngestError as exc:  # names the file and what is wrong with it
        raise RowProblem(str(exc)) from None


# --- the walk -----------------------------------------------------------------------------


def _system(path: Path) -> dict[str, Any]:
    content = read_json_file(path)
    if not isinstance(content, dict):
        raise RowProblem(f"{path}: expected a JSON object describing the system, got {type(content).__name__}")
    return content


def read_tree(root: Path, *, only: Path | None = None) -> TreeBatch:
    """Every result below a submission-tree root (or below `only`, a folder inside it)."""
    round_name = tree_round(root)
    batch = TreeBatch()
    used: set[Path] = set()
    for division in DIVISIONS:
        division_dir = root / division
        if not division_dir.is_dir():
            continue
        for submitter_dir in sorted(p for p in division_dir.iterdir() if p.is_dir()):
            if only is not None and not (
                submitter_dir.resolve().is_relative_to(only) or only.is_relative_to(submitter_dir.resolve())
            ):
                continue
            _read_submitter(batch, round_name, division, submitter_dir, used, only)
    for path in walk_files(root if only is None else only):
        if path in used or path.is_symlink() and not path.exists():
            continue
        if path.name == "summary.html" and path.parent.parent.name == "results":
            batch.html_pages.append(path)
            continue
        batch.files.append(
            SourceFile(
                str(path),
                None,
                path.stat().st_size,
                SUBMISSION_TREE,
                "skipped",
                note="part of the submission tree not used for results "
                "(code, configs, compliance, accuracy logs or notes)",
            )
        )
    return batch


def _read_submitter(
    batch: TreeBatch, round_name: str, division: str, submitter_dir: Path, used: set[Path], only: Path | None
) -> None:
    extra_mapping: dict[str, str] = {}
    mapping_file = submitter_dir / "model_mapping.json"
    if mapping_file.is_file():
        try:
            loaded = read_json_file(mapping_file)
            extra_mapping = {str(k): str(v) for k, v in loaded.items()} if isinstance(loaded, dict) else {}
            _note(batch, used, mapping_file, "model_mapping.json")
        except RowProblem as problem:
            batch.rejects.append(Reject(str(mapping_file), "file", str(problem)))
    results_dir = submitter_dir / "results"
    if not results_dir.is_dir():
        return
    for system_dir in sorted(p for p in results_dir.iterdir() if p.is_dir()):
        if only is not None and not (
            system_dir.resolve().is_relative_to(only) or only.is_relative_to(system_dir.resolve())
        ):
            continue
        system_file = submitter_dir / "systems" / f"{system_dir.name}.json"
        try:
            if not system_file.is_file():
                raise RowProblem(f"{system_file} is missing (every results/<system> needs systems/<system>.json)")
            system = _system(system_file)
            _note(batch, used, system_file, "system description JSON")
        except RowProblem as problem:
            batch.rejects.append(Reject(str(system_dir), "system", str(problem)))
            continue
        for benchmark_dir in sorted(p for p in system_dir.iterdir() if p.is_dir()):
            for scenario_dir in sorted(p for p in benchmark_dir.iterdir() if p.is_dir()):
                location = str(scenario_dir)
                try:
                    batch.results.append(
                        _result(
                            round_name,
                            division,
                            submitter_dir,
                            system_dir.name,
                            system,
                            system_file,
                            benchmark_dir.name,
                            scenario_dir,
                            extra_mapping,
                            batch,
                            used,
                        )
                    )
                except RowProblem as problem:
                    batch.rejects.append(Reject(location, "result folder", str(problem)))


def _note(batch: TreeBatch, used: set[Path], path: Path, kind: str, status: str = "read") -> str:
    data = path.read_bytes()
    digest = sha256_bytes(data)
    if path not in used:
        used.add(path)
        batch.files.append(SourceFile(str(path), digest, len(data), f"{SUBMISSION_TREE}: {kind}", status))
    return digest


def _result(
    round_name: str,
    division: str,
    submitter_dir: Path,
    platform: str,
    system: dict[str, Any],
    system_file: Path,
    benchmark: str,
    scenario_dir: Path,
    extra_mapping: dict[str, str],
    batch: TreeBatch,
    used: set[Path],
) -> TreeResult:
    scenario = mlperf_names.normalise_scenario(scenario_dir.name)
    if scenario is None:
        raise RowProblem(f"{scenario_dir}: folder name {scenario_dir.name!r} is not a scenario")
    run_dir = scenario_dir / "performance" / "run_1"
    detail, summary = run_dir / "mlperf_log_detail.txt", run_dir / "mlperf_log_summary.txt"
    if not detail.is_file() and not summary.is_file():
        raise RowProblem(f"{run_dir}: neither mlperf_log_detail.txt nor mlperf_log_summary.txt is there")
    digests = [_note(batch, used, system_file, "system description JSON")]
    detail_text = summary_text = None
    if detail.is_file():
        digests.append(_note(batch, used, detail, "LoadGen detail log"))
        detail_text = detail.read_text(encoding="utf-8", errors="replace")
    if summary.is_file():
        digests.append(_note(batch, used, summary, "LoadGen summary"))
        summary_text = summary.read_text(encoding="utf-8", errors="replace")
    try:
        log = loadgen.read_run(detail_text, summary_text)
    except loadgen.LoadgenError as exc:
        raise RowProblem(f"{run_dir}: {exc}") from None
    mlperf_model = mlperf_names.mlperf_benchmark(benchmark, extra_mapping)
    try:
        rule = mlperf_names.mlperf_rule(mlperf_model, scenario, round_name)
    except ValueError as exc:
        raise RowProblem(f"{scenario_dir}: {exc}") from None
    value, inferred, field_used = checker_result(log, rule, scenario, str(run_dir))

    accuracy = None
    accuracy_file = scenario_dir / "accuracy" / "accuracy.txt"
    if accuracy_file.is_file():
        digests.append(_note(batch, used, accuracy_file, "accuracy.txt"))
        accuracy = parse_accuracy_txt(accuracy_file.read_text(encoding="utf-8", errors="replace")) or None
    precision = None
    measurements = measurements_file(submitter_dir, platform, benchmark, scenario_dir)
    if measurements is not None:
        digests.append(_note(batch, used, measurements, "measurements JSON"))
        content = read_json_file(measurements)
        precision = text(content.get("weight_data_types")) if isinstance(content, dict) else None
    power = power_result(run_dir, log, scenario)
    if power is not None:
        digests.append(_note(batch, used, run_dir / "spl.txt", "power samples (spl.txt)"))

    accelerator = text(system.get("accelerator_model_name"))
    record = {
        "version": round_name,
        "Submitter": text(system.get("submitter")) or submitter_dir.name,
        "Availability": (text(system.get("status")) or "").lower() or None,
        "Category": division,
        "Suite": text(system.get("system_type")),
        "System": text(system.get("system_name")),
        "Platform": platform,
        "UsedModel": benchmark,
        "Model": mlperf_model,
        "Scenario": scenario,
        "Performance_Result": value,
        "log_field": field_used,
        "Accuracy": accuracy,
        "Nodes": system.get("number_of_nodes"),
        "Processor": text(system.get("host_processor_model_name")),
        "Accelerator": None if blank(accelerator) else accelerator,
        "a#": system.get("accelerators_per_node"),
        "Software": text(system.get("framework")),
        "operating_system": text(system.get("operating_system")),
        "weight_data_types": precision,
        "inferred": inferred,
        "has_power": power is not None,
        "Power_Result": power[0] if power else None,
        "Power_Units": power[1] if power else None,
    }
    if record["Suite"] is None:
        raise RowProblem(f"{system_file}: system_type is missing (expected datacenter, edge or 'datacenter,edge')")
    conditions = loadgen.conditions(log)
    conditions["result_field"] = field_used
    conditions["log_errors"] = len(log.errors)
    conditions["log_warnings"] = len(log.warnings)
    combined = hashlib.sha256("".join(digests).encode()).hexdigest()
    return TreeResult(str(scenario_dir), record, conditions, combined)


def recognise(item: TreeRoot) -> str | None:
    return SUBMISSION_TREE if is_tree_root(item.root) else None


def parse(item: TreeRoot, kind: str) -> TreeBatch:
    return read_tree(item.root, only=item.only)
