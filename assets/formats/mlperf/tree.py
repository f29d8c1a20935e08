"""MLPerf Inference submission trees: rebuilding the round table's rows from the published logs.

Layout (MLCommons' `tools/submission/submission_structure.md`): `<division>/<submitter>/systems/<system>.json` and
`<division>/<submitter>/results/<system>/<benchmark>/<scenario>/` holding
`performance/run_1/mlperf_log_{detail,summary}.txt` (+ `spl.txt` for power runs) and
`accuracy/accuracy.txt`; precision comes from the measurements JSON
(`measurements/<system>/<benchmark>/<scenario>/<system>[_<Scenario>].json` up to v5.1,
`results/.../measurements.json` from v6.0). The result field is chosen per round, model and
scenario from the rule table, as MLCommons' checker does; results run in another scenario are
inferred with the checker's formulas. Each result also yields its run conditions (latency
percentiles, TTFT/TPOT, the limits it was held to).
"""

from __future__ import annotations

import ast
import datetime as dt
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assets.core import canonical
from assets.core.errors import IngestError
from assets.core.records import Reject, SourceFile
from assets.formats.mlperf import loadgen
from assets.formats.mlperf.rows import RowProblem, blank, text
from assets.inputs.files import sha256_bytes, walk_files
from assets.inputs.textinput import decode_json

SUBMISSION_TREE = "submission_tree"
FORMATS = (SUBMISSION_TREE,)
SKIPPED: dict[str, str] = {}  # files of a tree that hold no result are listed as skipped, one by one
DIVISIONS = ("closed", "open", "network")
_ROUND_IN_NAME = re.compile(r"(?:^|[_\-])v?(\d+\.\d+)$")


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


def is_tree_root(folder: Path) -> bool:
    """A folder holding `<division>/<submitter>/results` or `.../systems`."""
    for division in DIVISIONS:
        base = folder / division
        if base.is_dir() and any(
            (sub / "results").is_dir() or (sub / "systems").is_dir() for sub in base.iterdir() if sub.is_dir()
        ):
            return True
    return False


def find_tree_roots(folder: Path) -> list[Path]:
    """Submission-tree roots at or below `folder`, or the root above it when `folder` lies inside one."""
    folder = folder.resolve()
    for ancestor in [folder, *folder.parents]:
        if ancestor.name in DIVISIONS and is_tree_root(ancestor.parent):
            return [ancestor.parent]
    roots: list[Path] = []
    stack = [folder]
    while stack:
        current = stack.pop()
        if is_tree_root(current):
            roots.append(current)
            continue
        stack.extend(sorted((p for p in current.iterdir() if p.is_dir() and not p.name.startswith(".")), reverse=True))
    return sorted(roots)


def round_from_path(root: Path) -> str | None:
    """The round named by the tree's folder or one above it (`v5.1`, `inference_results_v5.1`)."""
    for part in [root, *root.parents]:
        match = _ROUND_IN_NAME.search(part.name)
        if match:
            return canonical.normalise_round(match.group(1))
    return None


def tree_round(root: Path) -> str:
    found = round_from_path(root)
    if found is None:
        raise IngestError(
            f"{root}: cannot tell the MLPerf round of this submission tree; expected a folder "
            "named like 'v5.1' or 'inference_results_v5.1' at or above it"
        )
    return found


# --- small readers ------------------------------------------------------------------------


def read_json_file(path: Path) -> Any:
    try:
        return decode_json(path.read_bytes(), str(path))
    except OSError as exc:
        raise RowProblem(f"{path}: not readable JSON ({exc})") from None
    except IngestError as exc:  # names the file and what is wrong with it
        raise RowProblem(str(exc)) from None


_ACCURACY_DICT_KEYS = {
    "rouge1": "ROUGE1",
    "rouge2": "ROUGE2",
    "rougeL": "ROUGEL",
    "rougeLsum": "ROUGELSUM",
    "gen_len": "GEN_LEN",
    "tokens_per_sample": "TOKENS_PER_SAMPLE",
    "gsm8k": "gsm8k_accuracy",
    "mbxp": "mbxp_accuracy",
    "exact_match": "exact_match",
    "CLIP_SCORE": "CLIP_SCORE",
    "FID_SCORE": "FID_SCORE",
    "vbench_score": "vbench_score",
    "mean-accuracy": "meanAcc",
}
_ACCURACY_LINES = [
    (re.compile(r"Word Error Rate:.*accuracy=([\d.]+)%"), "ACCURACY"),
    (re.compile(r"^accuracy=([\d.]+)%"), "acc"),
    (re.compile(r"mAP=([\d.]+)%?"), "mAP"),
    (re.compile(r"^AUC=([\d.]+)"), "AUC"),
    (re.compile(r"Accuracy:\s*mean\s*=\s*([\d.]+)"), "DICE"),
    (re.compile(r"^BLEU:\s*([\d.]+)"), "bleu"),
    (re.compile(r"""^\{["']exact_match["']:\s*[\d.]+,\s*["']f1["']:\s*([\d.]+)\}"""), "F1"),
]


def parse_accuracy_txt(content: str) -> dict[str, float]:
    """The metrics an `accuracy.txt` reports, named as the checker names them (ROUGE1, acc, mAP, F1, ...)."""
    found: dict[str, float] = {}
    for line in content.splitlines():
        line = line.strip()
        for pattern, name in _ACCURACY_LINES:
            match = pattern.search(line)
            if match:
                found.setdefault(name, float(match.group(1)))
                break
        else:
            brace = line.find("{")
            if brace < 0 or not line.endswith("}"):
                continue
            try:
                parsed = ast.literal_eval(line[brace : line.index("}", brace) + 1])
            except (ValueError, SyntaxError):
                continue
            if not isinstance(parsed, dict):
                continue
            for key, value in parsed.items():
                metric = _ACCURACY_DICT_KEYS.get(str(key))
                if metric is None:
                    continue
                try:
                    found.setdefault(metric, float(value))
                except (TypeError, ValueError):
                    continue
    return found


def measurements_file(submitter_dir: Path, platform: str, benchmark: str, scenario_dir: Path) -> Path | None:
    """The measurements JSON of a result: `results/.../measurements.json` (v6.0+), else
    `measurements/<system>/<benchmark>/<scenario>/<system>_<Scenario>.json` or `<system>.json`
    (names differ by submitter), else the only JSON in that folder."""
    inside = scenario_dir / "measurements.json"
    if inside.is_file():
        return inside
    folder = submitter_dir / "measurements" / platform / benchmark
    if not folder.is_dir():
        return None
    matches = [p for p in folder.iterdir() if p.is_dir() and p.name.lower() == scenario_dir.name.lower()]
    if not matches:
        return None
    folder = matches[0]
    for name in (f"{platform}_{scenario_dir.name}.json", f"{platform}.json"):
        if (folder / name).is_file():
            return folder / name
    candidates = sorted(p for p in folder.glob("*.json"))
    return candidates[0] if len(candidates) == 1 else None


# --- choosing the result as the checker does ----------------------------------------------


def checker_result(
    log: loadgen.LoadgenLog, rule: canonical.ResultRule, scenario: str, where: str
) -> tuple[float, bool, str]:
    """(value in the rule's unit, inferred, log key) for a result run in `log`'s scenario and
    published under folder `scenario`. Server logs in Interactive folders are not inferred."""
    log_scenario = canonical.normalise_scenario(str(log.get("effective_scenario", "")))
    if log_scenario is None:
        raise RowProblem(f"{where}: the LoadGen log names no scenario (effective_scenario/Scenario)")
    inferred = log_scenario != scenario and {log_scenario, scenario} != {"Server", "Interactive"}
    if not inferred:
        value = log.number(rule.log_field)
        if value is None:
            raise RowProblem(
                f"{where}: the LoadGen log lacks {rule.log_field}, the result field for this "
                f"model and scenario in this round ({rule.note or 'default'})"
            )
        key = rule.log_field
    elif scenario == "Offline" and log_scenario == "SingleStream":
        value, key = log.number("result_qps_without_loadgen_overhead"), "result_qps_without_loadgen_overhead"
    elif scenario == "Offline" and log_scenario == "MultiStream":
        per_query = log.number("effective_samples_per_query")
        mean_ns = log.number("result_mean_query_latency_ns") or log.number("result_mean_latency_ns")
        value = per_query * 1e9 / mean_ns if per_query and mean_ns else None
        key = "effective_samples_per_query / result_mean_query_latency_ns"
    elif scenario == "MultiStream" and log_scenario == "SingleStream":
        latency = log.number("early_stopping_latency_ms") or log.number("result_99.00_percentile_latency_ns")
        value = latency * 8 if latency else None
        key = "8 x early_stopping_latency_ms"
    else:
        raise RowProblem(
            f"{where}: a {log_scenario} log under a {scenario} folder; the checker infers only "
            "Offline from SingleStream/MultiStream and MultiStream from SingleStream"
        )
    if value is None:
        raise RowProblem(f"{where}: the LoadGen log lacks what inferring {scenario} from {log_scenario} needs")
    if rule.unit in canonical.LATENCY_UNITS:  # every LoadGen latency is in ns
        value = value / (1e6 if rule.unit == "ms" else 1e9)
    return value, inferred, key


def power_result(run_dir: Path, log: loadgen.LoadgenLog, scenario: str) -> tuple[float, str] | None:
    """(power, unit) from `spl.txt` between LoadGen's power_begin and power_end: average Watts for
    Offline/Server/Interactive, millijoules per query for SingleStream/MultiStream."""
    spl = run_dir / "spl.txt"
    if not spl.is_file() or "power_begin" not in log or "power_end" not in log:
        return None
    samples = list(loadgen.parse_power_samples(spl.read_text(encoding="utf-8", errors="replace")))
    try:
        watts, _count = loadgen.average_power_w(samples, str(log.get("power_begin")), str(log.get("power_end")))
    except loadgen.LoadgenError as exc:
        raise RowProblem(f"{spl}: {exc}") from None
    if scenario in ("Offline", "Server", "Interactive"):
        return watts, "Watts"
    begin = dt.datetime.strptime(str(log.get("power_begin")), loadgen.POWER_TIME_FORMAT)
    end = dt.datetime.strptime(str(log.get("power_end")), loadgen.POWER_TIME_FORMAT)
    queries = log.number("result_query_count")
    if not queries:
        raise RowProblem(f"{spl}: power per query needs result_query_count in the detail log")
    return watts * (end - begin).total_seconds() * 1000 / queries, "millijoules"


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
    scenario = canonical.normalise_scenario(scenario_dir.name)
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
    mlperf_model = canonical.mlperf_benchmark(benchmark, extra_mapping)
    try:
        rule = canonical.mlperf_rule(mlperf_model, scenario, round_name)
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
