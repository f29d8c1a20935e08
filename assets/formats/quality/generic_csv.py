"""The generic quality CSV: task-quality figures from any harness, one row per model x precision x task x
metric (comma-separated, one header row, UTF-8):

| column | required | meaning |
| --- | --- | --- |
| `model` | yes (or run.yaml's) | the model evaluated: a Hugging Face id, a quantised checkpoint's name, a local path |
| `precision` | no | its precision (`bf16`, `fp8`, `awq`, ...); empty: implied by the checkpoint's name, or run.yaml's |
| `task` | yes | the task as the harness names it (`gsm8k`, `mmlu_pro`) |
| `metric` | yes | the metric as the harness names it (`acc`, `exact_match,strict-match`) |
| `value` | yes | the figure |
| `stderr` | no | its standard error; empty or `N/A`: none (a perplexity is then a point value; else no interval) |
| `n` | no | documents evaluated |
| `source` | no | where the figure comes from (a URL, a report); default the file itself |
| `higher_is_better` | no | `true`/`false`; empty: not said |

Other columns are ignored. A row whose value is not a number or outside its metric's range (exchange.VALUE_RANGES:
an accuracy in [0, 1]), whose stderr is not finite, negative or larger than
the value's range (exchange.stderr_problem), whose n is not a whole number of documents within exchange.DOCUMENTS,
or that names no task or metric is quarantined with the reason, by its line, task and metric.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping

from assets.formats.dumps.exchange import Dump
from assets.formats.quality.exchange import (
    DOCUMENTS,
    POINT_VALUE_NOTE,
    QualityParsed,
    QualityResult,
    count_or_problem,
    is_point_value,
    stderr_problem,
    value_problem,
)

HARNESS = "generic quality CSV"
QUALITY_CSV = "generic quality CSV"
FORMATS = (QUALITY_CSV,)
SKIPPED: Mapping[str, str] = {}
REQUIRED = ("model", "task", "metric", "value")
COLUMNS = ("model", "precision", "task", "metric", "value", "stderr", "n", "source", "higher_is_better")


def _header(dump: Dump) -> list[str] | None:
    if dump.payload is not None:
        return None
    first = dump.text_head.split("\n", 1)[0].strip()
    return [c.strip().strip('"').lower() for c in first.split(",")] if "," in first else None


def recognise(dump: Dump) -> str | None:
    header = _header(dump)
    return QUALITY_CSV if header and set(REQUIRED) <= set(header) else None


def _float(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def parse(dump: Dump, kind: str) -> QualityParsed:
    parsed = QualityParsed(kind=kind, harness=HARNESS)
    if dump.partial:
        parsed.problems.append(("file", "too large for a quality CSV (read only its head)"))
        return parsed
    text = dump.data.decode("utf-8-sig", errors="replace")
    reader = csv.DictReader(io.StringIO(text))
    reader.fieldnames = [name.strip().lower() for name in reader.fieldnames or []]
    for line, row in enumerate(reader, start=2):
        where = f"line {line}"
        cells = {k: (row.get(k) or "").strip() for k in COLUMNS}
        missing = [k for k in ("task", "metric", "value") if not cells[k]]
        if missing:
            parsed.problems.append((where, f"no {', '.join(missing)} (columns {', '.join(REQUIRED)} are required)"))
            continue
        named = f"task {cells['task']!r} metric {cells['metric']!r}"
        value = _float(cells["value"])
        if value is None:
            parsed.problems.append((where, f"value is not a finite number (got {cells['value']!r})"))
            continue
        out_of_range = value_problem(cells["metric"], value)
        if out_of_range:
            parsed.problems.append((where, f"{named}: {out_of_range}"))
            continue
        stderr, note = None, None
        if cells["stderr"] and cells["stderr"].upper() != "N/A":
            stderr = _float(cells["stderr"])
            implausible = "not a number" if stderr is None else stderr_problem(value, stderr)
            if implausible:
                parsed.problems.append((where, f"{named}: stderr {cells['stderr']!r}: {implausible}"))
                continue
        elif is_point_value(cells["metric"]):
            note = POINT_VALUE_NOTE
        else:
            note = "stderr N/A in the file: no interval" if cells["stderr"] else "no stderr in the file: no interval"
        samples = None
        if cells["n"]:
            n = _float(cells["n"])
            counted = count_or_problem(cells["n"] if n is None else n, DOCUMENTS, "n (documents)")
            if isinstance(counted, str):
                parsed.problems.append((where, f"{named}: {counted}"))
                continue
            samples = counted
        better = {"true": True, "false": False}.get(cells["higher_is_better"].lower())
        if cells["higher_is_better"] and better is None:
            parsed.problems.append(
                (where, f"higher_is_better must be true or false (got {cells['higher_is_better']!r})")
            )
            continue
        parsed.results.append(
            QualityResult(
                task=cells["task"],
                metric=cells["metric"].removesuffix(",none"),
                value=value,
                stderr=stderr,
                stderr_note=note,
                point_value=stderr is None and is_point_value(cells["metric"]),
                samples=samples,
                higher_is_better=better,
                model_raw=cells["model"] or None,
                precision_raw=cells["precision"] or None,
                source_label=cells["source"] or None,
                location=where,
            )
        )
    return parsed
