"""EleutherAI lm-evaluation-harness results files (`results*.json`, `result.json`), both shapes.

- 0.4 and later: `results.<task>` holds `<metric>,<filter>` keys with `<metric>_stderr,<filter>` twins
  (`acc,none`, `exact_match,strict-match`, `word_perplexity,none`), beside `alias`, `name`, `sample_len`;
  group rows may also sit in `groups`; `n-samples.<task>.effective` is the evaluated count; `versions`,
  `n-shot`, `higher_is_better`; the harness version in `lm_eval_version` (else `git_hash`).
- 0.3: only `results`, `versions`, `config`; metric keys without a filter (`acc`, `acc_stderr`); no version.

`config.model_args` is a `key=value,...` string or an object; the model is its `pretrained` (or `model`,
`path`), else `config.model` when it is a hub id or a path (it holds `/`: a `simple_evaluate()` dump; otherwise it
is the model type, `hf`, `vllm`), else the top-level `model_name`. Precision words it may hold: `quantization`,
`load_in_8bit`, `load_in_4bit` (+ `bnb_4bit_quant_type`), `dtype`/`torch_dtype`; `config.model_dtype` is what the
harness loaded. A metric the filter `none` qualifies is named without it (`acc,none` -> `acc`), so both shapes name
it alike. A stderr written `N/A` (lm-eval's word when it could not compute one) is kept as no stderr, said in
`stderr_note`; without a stderr, a perplexity or bits per byte (a corpus statistic), or any metric of a task the
file says ran over its whole test set (`n-samples` effective = original), is a point value (`point_value`: judged on
its value); a value that is not a number, a stderr without its metric or a task without any metric is
a problem (a quarantined row), never a figure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeGuard

from assets.formats.dumps.exchange import Dump
from assets.formats.quality.exchange import (
    DOCUMENTS,
    POINT_VALUE_NOTE,
    SHOTS,
    QualityParsed,
    QualityResult,
    count_or_problem,
    is_point_value,
    stderr_problem,
    value_problem,
)

HARNESS = "lm-evaluation-harness"
RESULTS_04 = "lm-evaluation-harness results (0.4+)"
RESULTS_03 = "lm-evaluation-harness results (0.3)"
FORMATS = (RESULTS_04, RESULTS_03)
SKIPPED: Mapping[str, str] = {}

# Keys of a task row that are not metrics.
NOT_METRICS = frozenset({"alias", "name", "sample_len", "sample_count", "samples", " "})
# Metrics lower is better when the file does not say (0.3 files have no higher_is_better).
LOWER_IS_BETTER = frozenset({"perplexity", "word_perplexity", "byte_perplexity", "bits_per_byte", "ter"})
MODEL_KEYS = ("pretrained", "model", "path", "engine")


def _is_number(value: Any) -> TypeGuard[float]:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and value == value
        and abs(value) != float("inf")
    )


def recognise(dump: Dump) -> str | None:
    payload = dump.payload
    if not isinstance(payload, dict) or dump.json_lines:
        return None
    results = payload.get("results")
    if not isinstance(results, dict) or not results or not all(isinstance(v, dict) for v in results.values()):
        return None
    if not isinstance(payload.get("config"), dict) and "versions" not in payload:
        return None
    keys = {k for row in results.values() for k in row}
    if "lm_eval_version" in payload or "n-samples" in payload or any("," in k for k in keys):
        return RESULTS_04
    return RESULTS_03


def begins_like(head: Any) -> bool:
    """Whether the decoded head of a large JSON document begins like a results file: its first key `results`, an
    object of per-task objects (what lm-eval writes first; `config` and `versions` come later, past the head)."""
    return (
        isinstance(head, dict)
        and next(iter(head), None) == "results"
        and isinstance(head["results"], dict)
        and all(isinstance(v, dict) for v in head["results"].values())
    )


def model_args(config: Any) -> dict[str, Any]:
    """`config.model_args` as a mapping: an object as is, a `key=value,...` string split (values as text)."""
    args = config.get("model_args") if isinstance(config, dict) else None
    if isinstance(args, dict):
        return args
    if isinstance(args, str):
        pairs = (part.split("=", 1) for part in args.split(",") if "=" in part)
        return {key.strip(): value.strip() for key, value in pairs}
    return {}


def _true(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def _identity(payload: dict[str, Any], parsed: QualityParsed) -> None:
    """The model the file names and the precision words it states."""
    config = payload.get("config")
    args = model_args(config)
    for key in MODEL_KEYS:
        if isinstance(args.get(key), str) and args[key].strip():
            parsed.model_raw, parsed.model_field = args[key].strip(), f"config.model_args.{key}"
            break
    else:
        named = config.get("model") if isinstance(config, dict) else None
        if isinstance(named, str) and "/" in named.strip():  # a hub id or a path, not a model type (`hf`, `vllm`)
            parsed.model_raw, parsed.model_field = named.strip(), "config.model"
        elif isinstance(payload.get("model_name"), str) and payload["model_name"].strip():
            parsed.model_raw, parsed.model_field = payload["model_name"].strip(), "model_name"
    if isinstance(args.get("quantization"), str) and args["quantization"].strip():
        parsed.quantization = ("config.model_args.quantization", args["quantization"].strip())
    elif _true(args.get("load_in_4bit")):
        kind = str(args.get("bnb_4bit_quant_type") or "fp4").strip()
        parsed.quantization = ("config.model_args.load_in_4bit", f"bnb-{kind}")  # bitsandbytes' default is fp4
    elif _true(args.get("load_in_8bit")):
        parsed.quantization = ("config.model_args.load_in_8bit", "bnb-8bit")
    for key in ("dtype", "torch_dtype"):
        value = args.get(key)
        if isinstance(value, str) and value.strip() and value.strip().lower() != "auto":
            parsed.dtype = (f"config.model_args.{key}", value.strip())
            break
    if isinstance(config, dict) and isinstance(config.get("model_dtype"), str):
        parsed.loaded_dtype = config["model_dtype"]


def _version(payload: dict[str, Any]) -> str | None:
    if payload.get("lm_eval_version"):
        return str(payload["lm_eval_version"])
    if payload.get("git_hash"):
        return f"git {payload['git_hash']}"
    return None


def _per_task(payload: dict[str, Any], key: str, task: str) -> Any:
    table = payload.get(key)
    return table.get(task) if isinstance(table, dict) else None


def _samples(payload: dict[str, Any], task: str, row: dict[str, Any], metric_key: str) -> int | str | None:
    """How many documents the figure rests on: `n-samples.<task>.effective`, else a group row's
    `sample_count.<metric>` or `sample_len`; None when the file does not say; the problem (a text) when the first
    count it states is no plausible count (exchange.DOCUMENTS: 1e300 is a broken value, never a count)."""
    counts = _per_task(payload, "n-samples", task)
    sample_count = row.get("sample_count")  # per metric (0.4.12 groups), or one number (seen in other writers)
    candidates = [
        ("n-samples.effective", counts.get("effective") if isinstance(counts, dict) else None),
        ("sample_count", sample_count.get(metric_key) if isinstance(sample_count, dict) else sample_count),
        ("sample_len", row.get("sample_len")),
    ]
    for name, value in candidates:
        if _is_number(value) and value >= 1 and value == int(value):
            return count_or_problem(value, DOCUMENTS, name)
    return None


def _whole_test_set(payload: dict[str, Any], task: str) -> bool:
    """Whether the file says the task ran over its whole test set (`n-samples.<task>`: effective = original)."""
    counts = _per_task(payload, "n-samples", task)
    if not isinstance(counts, dict):
        return False
    original, effective = counts.get("original"), counts.get("effective")
    return _is_number(original) and _is_number(effective) and original == effective and effective >= 1


def _task_rows(payload: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """(where, task, row) of `results`, then the `groups` rows `results` does not repeat."""
    rows = [(f"results.{task}", task, row) for task, row in payload["results"].items()]
    groups = payload.get("groups")
    if isinstance(groups, dict):
        rows += [(f"groups.{task}", task, row) for task, row in groups.items() if task not in payload["results"]]
    return rows


def _task_results(payload: dict[str, Any], where: str, task: str, row: Any, parsed: QualityParsed) -> None:
    if not isinstance(row, dict):
        parsed.problems.append((where, f"expected an object of metrics, got {type(row).__name__}"))
        return
    better = _per_task(payload, "higher_is_better", task)
    version = _per_task(payload, "versions", task)
    shots_raw = _per_task(payload, "n-shot", task)
    if not (isinstance(shots_raw, (int, float)) and not isinstance(shots_raw, bool)):
        shots_raw = None  # not stated as a number: not said
    found = 0
    for key, value in row.items():
        if key in NOT_METRICS:
            continue
        base, _, filter_name = key.partition(",")
        if base.endswith("_stderr"):
            metric_key = base[: -len("_stderr")] + (f",{filter_name}" if filter_name else "")
            if metric_key not in row:
                parsed.problems.append(
                    (f"{where}.{key}", f"metric missing: {key!r} has no {metric_key!r} beside it in the file")
                )
            continue
        if not _is_number(value):
            parsed.problems.append((f"{where}.{key}", f"value is not a finite number (got {value!r})"))
            continue
        stderr_key = f"{base}_stderr" + (f",{filter_name}" if filter_name else "")
        raw_stderr = row.get(stderr_key)
        stderr, note = None, None
        if _is_number(raw_stderr) and raw_stderr >= 0:
            stderr = float(raw_stderr)
        elif isinstance(raw_stderr, str) and raw_stderr.strip().upper() == "N/A":
            note = f"{stderr_key} is N/A in the file: no interval"
        elif raw_stderr is None:
            note = f"no {stderr_key} in the file: no interval"
        else:
            parsed.problems.append(
                (f"{where}.{stderr_key}", f"stderr is not a non-negative number (got {raw_stderr!r})")
            )
            continue
        where_key = f"{where}.{key}"
        samples = _samples(payload, task, row, key)
        shots = count_or_problem(shots_raw, SHOTS, "n-shot") if shots_raw is not None else None
        implausible = value_problem(base, float(value)) or (
            stderr_problem(float(value), stderr) if stderr is not None else None
        )
        bad = next((b for b in (implausible, samples, shots) if isinstance(b, str)), None)
        if bad:  # that figure is quarantined by name (file, task, metric), never the file or the step
            parsed.problems.append((where_key, f"task {task!r} metric {key!r}: {bad}"))
            continue
        point = stderr is None and (is_point_value(base) or _whole_test_set(payload, task))
        if point:
            note = f"{POINT_VALUE_NOTE} ({stderr_key} {'N/A' if raw_stderr is not None else 'absent'})"
        found += 1
        parsed.results.append(
            QualityResult(
                task=task,
                metric=base if filter_name in ("", "none") else f"{base},{filter_name}",
                value=float(value),
                stderr=stderr,
                stderr_note=note,
                point_value=point,
                samples=samples if isinstance(samples, int) else None,  # a text was quarantined above
                higher_is_better=better.get(base)
                if isinstance(better, dict) and isinstance(better.get(base), bool)
                else (False if base in LOWER_IS_BETTER else None),
                task_version=None if version is None else str(version),
                n_shot=shots if isinstance(shots, int) else None,
                location=where_key,
            )
        )
    if not found and not any(where_ == where or where_.startswith(f"{where}.") for where_, _ in parsed.problems):
        parsed.problems.append((where, f"task {task!r} has no metric (keys: {sorted(row)})"))


def parse(dump: Dump, kind: str) -> QualityParsed:
    payload = dump.payload
    parsed = QualityParsed(kind=kind, harness=HARNESS, harness_version=_version(payload))
    _identity(payload, parsed)
    for where, task, row in _task_rows(payload):
        _task_results(payload, where, task, row, parsed)
    return parsed
