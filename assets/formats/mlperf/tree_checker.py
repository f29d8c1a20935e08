"""A submission tree's result read as MLCommons' checker reads it: accuracy.txt, the result field, the power."""

from __future__ import annotations

import ast
import datetime as dt
import re
from pathlib import Path

from assets.core import mlperf_names
from assets.formats.mlperf import loadgen
from assets.formats.mlperf.rows import RowProblem

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


# --- choosing the result as the checker does ----------------------------------------------


def checker_result(
    log: loadgen.LoadgenLog, rule: mlperf_names.ResultRule, scenario: str, where: str
) -> tuple[float, bool, str]:
    """(value in the rule's unit, inferred, log key) for a result run in `log`'s scenario and
    published under folder `scenario`. Server logs in Interactive folders are not inferred."""
    log_scenario = mlperf_names.normalise_scenario(str(log.get("effective_scenario", "")))
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
    if rule.unit in mlperf_names.LATENCY_UNITS:  # every LoadGen latency is in ns
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
