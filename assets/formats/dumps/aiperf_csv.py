"""AIPerf's `profile_export_aiperf.csv` (read where no JSON of the same export is beside it; the JSON and the
per-request records are read by `aiperf.py`): a per-request statistics table (`Metric,avg,min,max,p1...`, values to 2
decimals), a `Metric,Value` table of totals, then tables that are not load-point values (GPU telemetry)."""

from __future__ import annotations

import csv
import io
import re
from pathlib import PurePath

from assets.formats.dumps.exchange import Dump, Measurement
from assets.formats.dumps.tabular import csv_text
from assets.formats.dumps.values import count, empty_point, number

# The CSV's statistics columns and the first column's labels we read (`Label (unit)` as AIPerf prints them).
_CSV_PERCENTILES = ("p50", "p90", "p95", "p99")
_CSV_OURS = {"ttft": "Time to First Token (ms)", "tpot": "Inter Token Latency (ms)", "e2e": "Request Latency (ms)"}
_CSV_FOLDER_LEVEL = re.compile(r"^(?:c|.*[-_]concurrency[-_=]?)(\d+)$")
FOLDER_LEVEL_NOTE = (
    "profile_export_aiperf.csv states no load level: the concurrency is the number in its folder's name "
    "(c<N>, ...-concurrency<N>)"
)


def is_aggregate_csv(dump: Dump) -> bool:
    """AIPerf's aggregate CSV: its statistics table first, with the request latency row."""
    first = dump.text_head.split("\n", 1)[0].strip()
    return first.startswith("Metric,avg,min,max") and b"\nRequest Latency (ms)," in dump.data


def _label_unit(label: str) -> tuple[str, str]:
    """`Time to First Token (ms)` -> (`Time to First Token`, `ms`); a label without a unit keeps it empty."""
    if label.endswith(")") and " (" in label:
        name, _, unit = label[:-1].rpartition(" (")
        return name, unit
    return label, ""


def csv_tables(text: str) -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """The CSV's per-request statistics (label -> column -> cell) and its `Metric,Value` table (label -> cell)."""
    stats: dict[str, dict[str, str]] = {}
    values: dict[str, str] = {}
    header: list[str] | None = None
    for row in csv.reader(io.StringIO(text)):
        if not row or not any(cell.strip() for cell in row):
            header = None
            continue
        if header is None:
            header = row
            continue
        if header[:2] == ["Metric", "Value"]:
            values[row[0]] = row[1] if len(row) > 1 else ""
        elif header[:2] == ["Metric", "avg"]:
            stats[row[0]] = dict(zip(header[1:], row[1:]))
        # later tables (GPU telemetry: Endpoint,GPU_Index,...) are not load-point values
    return stats, values


def csv_measurement(dump: Dump) -> Measurement:
    """The CSV as the load point where no JSON is beside it (values to 2 decimals; the rate as request count /
    benchmark duration, more precise than the rounded `Request Throughput`)."""
    stats, values = csv_tables(csv_text(dump))

    def value(*labels: str) -> float | None:
        """The first of `labels` the `Metric,Value` table has (AIPerf prints some with a unit, some without)."""
        label = next((lb for lb in labels if lb in values), labels[0])
        return number(values.get(label) or None, f"Metric,Value row {label!r}", allow_string=True)

    ok = count(value("Request Count", "Request Count (requests)"), "Request Count")
    failed = count(value("Error Request Count", "Error Request Count (requests)"), "Error Request Count")
    duration = value("Benchmark Duration (sec)")
    row = empty_point()

    def per_duration(total: float | int | None) -> float | None:
        return None if total is None or not duration else total / duration

    row.update(
        achieved_requests_per_s=per_duration(ok) if ok else value("Request Throughput (requests/sec)"),
        requests_ok=ok,
        requests_failed=failed,
        requests_sent=ok + failed,
        duration_s=duration,
        input_tokens_per_s=per_duration(value("Total Input Sequence Length (tokens)")),
        output_tokens_per_s=per_duration(value("Total Output Sequence Length (tokens)")),
        input_tokens_mean=number(
            (stats.get("Input Sequence Length (tokens)") or {}).get("avg") or None, "ISL avg", allow_string=True
        ),
        output_tokens_mean=number(
            (stats.get("Output Sequence Length (tokens)") or {}).get("avg") or None, "OSL avg", allow_string=True
        ),
    )
    if row["input_tokens_per_s"] is not None and row["output_tokens_per_s"] is not None:
        row["total_tokens_per_s"] = row["input_tokens_per_s"] + row["output_tokens_per_s"]
    for measure, label in _CSV_OURS.items():
        for pct in _CSV_PERCENTILES:
            cell = (stats.get(label) or {}).get(pct) or None
            row[f"{measure}_{pct}_ms"] = number(cell, f"{label} {pct}", allow_string=True)
    metrics: list[tuple[str, str, float, str]] = []
    for label, cells in stats.items():
        name, unit = _label_unit(label)
        for statistic, cell in cells.items():
            number_in_cell = number(cell.strip() or None, f"{label} {statistic}", allow_string=True)
            if number_in_cell is not None:  # 0.12's newer metrics leave p1..p25, p75 and sum empty
                metrics.append((name, statistic, number_in_cell, unit))
    folder = PurePath(dump.path or dump.name).parent.name
    match = _CSV_FOLDER_LEVEL.match(folder)
    return Measurement(
        location="aggregate csv",
        load_kind="concurrency" if match else None,
        concurrency=float(match.group(1)) if match else None,
        values=row,
        tool_metrics=metrics,
    )
