"""A run's sweep: its measurements placed in load levels (in load order) and repeats, and written as rows of
observed.runs, observed.measurements, observed.tool_metrics and observed.request_sources, each built against its
table's model (row_for)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from assets.formats.dumps import generic
from assets.formats.dumps.exchange import Measurement, RequestScan, load_cap
from assets.formats.dumps.values import empty_point
from assets.runs.assemble import Point, Run, level_of, settings_identity, sha_of
from assets.runs.batch import ObservedBatch
from assets.warehouse.rows import row_for
from schemas.observed.measurements import Measurements
from schemas.observed.request_sources import RequestSources
from schemas.observed.runs import Runs
from schemas.observed.tool_metrics import ToolMetrics


def window_values(group: dict[str, Any]) -> dict[str, Any]:
    """Throughput over the measured window of one repeat's records (first measured send -> last
    measured completion), from its request group."""
    row = empty_point()
    window = None if group["first_start_s"] is None else group["last_end_s"] - group["first_start_s"]
    row.update(
        requests_sent=group["requests_sent"],
        requests_ok=group["requests_ok"],
        requests_failed=group["requests_failed"],
        duration_s=window,
        input_tokens_mean=group["input_tokens_mean"],
        output_tokens_mean=group["output_tokens_mean"],
    )
    if window and window > 0:
        row.update(
            achieved_requests_per_s=group["requests_ok"] / window,
            input_tokens_per_s=(group["input_tokens_sum"] or 0) / window,
            output_tokens_per_s=(group["output_tokens_sum"] or 0) / window,
        )
        row["total_tokens_per_s"] = row["input_tokens_per_s"] + row["output_tokens_per_s"]
    return row


def expand_levels(run: Run, groups: dict[str, list[dict[str, Any]]]) -> list[tuple[Point, dict[str, Any] | None]]:
    """Each point with its request group: a generic file with level columns becomes one point per load
    level its rows hold (levels whose every row was quarantined are left out)."""
    out: list[tuple[Point, dict[str, Any] | None]] = []
    for point in run.points:
        m = point.measurement
        if m.requests is None:
            out.append((point, None))
            continue
        found = [
            g
            for g in groups.get(point.key(), [])
            if g["requests_sent"] + g["requests_warmup_excluded"] + g["requests_cooldown_excluded"] > 0
        ]
        if not (isinstance(m.requests, RequestScan) and m.requests.level_columns):
            out.append((point, found[0] if found else None))
            continue
        for group in found:
            rate, concurrency = group["file_offered_rate_per_s"], group["file_concurrency"]
            load_kind = "rate" if rate is not None else ("concurrency" if concurrency is not None else None)
            level = Measurement(
                location=generic.level_location(rate, concurrency, m.requests.level_columns),
                load_kind=load_kind,
                offered_rate_per_s=rate,
                concurrency=concurrency,
                requests=m.requests,
            )
            out.append((Point(point.read, level, point.requests_source, point.index), group))
    return out


def assemble_run(batch: ObservedBatch, run: Run, groups: dict[str, list[dict[str, Any]]]) -> None:
    """The run's load levels and repeats, its measurement rows and where its request groups sit
    (`groups`: the request pass's groups by source key)."""
    levels = ordered_levels(run, groups)
    max_repeats, request_count, formats = 0, 0, set()
    for load_index, (kind, pts) in enumerate(levels):
        max_repeats = max(max_repeats, len(pts))
        for repeat_index, (point, group) in enumerate(pts):
            formats.add(point.read.parsed.kind)
            keys = {"run_id": run.run_id, "load_index": load_index, "repeat_index": repeat_index}
            batch.measurements.append(_measurement_row(keys, kind, point, group))
            parsed = point.read.parsed
            batch.tool_metrics += [
                row_for(
                    ToolMetrics,
                    {
                        **keys,
                        "tool": parsed.tool,
                        "metric": metric,
                        "statistic": stat,
                        "value": value,
                        "unit": unit,
                        "tool_definitions": parsed.definitions,
                    },
                )
                for metric, stat, value, unit in point.measurement.tool_metrics
            ]
            if group is not None:
                source = _request_source_row(run, keys, point, group)
                request_count += source["requests"]
                batch.request_sources.append(source)
    config = dict(run.config)
    batch.runs.append(
        row_for(
            Runs,
            {
                "run_id": run.run_id,
                "run_label": run.label,
                "tool": run.tool,
                "tool_version": config.pop("tool_version"),
                **config,
                "load_points": len(levels),
                "repeats_max": max_repeats,
                "requests": request_count,
                "formats": ", ".join(sorted(formats)),
                "workload": settings_identity(run.workload) if run.workload else None,
                "sidecar": " + ".join(run.sidecar_names),
                "report_dir": str(run.root / run.sidecar_folder),
                "source_sha256": run.combined,
                "evidence": "observed",
            },
            origin=(run.sidecar_names[-1], f"run {run.label}"),
        )
    )


def ordered_levels(
    run: Run, groups: dict[str, list[dict[str, Any]]]
) -> list[tuple[str, list[tuple[Point, dict[str, Any] | None]]]]:
    """The run's load levels in load order, each (load kind, its repeats in file order): measurements at the
    same nominal load are repeats of one level; the run's own load kind first; levels without a nominal
    load ordered by the rate they achieved."""
    run_kind = run.config["load_kind"]
    levels: dict[tuple[str, float | None, int], list[tuple[Point, dict[str, Any] | None]]] = defaultdict(list)
    for i, (point, group) in enumerate(expand_levels(run, groups)):
        kind, nominal = level_of(point, run_kind)
        levels[(kind, nominal, -1 if nominal is not None else i)].append((point, group))

    def achieved(point: Point, group: dict[str, Any] | None) -> float:
        value = point.measurement.values.get("achieved_requests_per_s")
        if value is None and group is not None:
            value = window_values(group)["achieved_requests_per_s"]
        return value or 0.0

    def level_order(
        item: tuple[tuple[str, float | None, int], list[tuple[Point, dict[str, Any] | None]]],
    ) -> tuple[bool, float, str]:
        (kind, nominal, _i), pts = item
        return (kind != run_kind, nominal if nominal is not None else achieved(*pts[0]), pts[0][0].read.fetched.name)

    ordered = []
    for (kind, _nominal, _i), pts in sorted(levels.items(), key=level_order):
        pts.sort(key=lambda p: (p[0].read.fetched.name, p[0].measurement.location))
        ordered.append((kind, pts))
    return ordered


def _measurement_row(keys: dict[str, Any], kind: str, point: Point, group: dict[str, Any] | None) -> dict[str, Any]:
    """One repeat of a load level as the tool reported it (observed.measurements); throughput over the records'
    measured window where the tool gives none."""
    m, read = point.measurement, point.read
    row = {**keys, "load_kind": kind, "offered_rate_per_s": m.offered_rate_per_s, "concurrency": m.concurrency}
    row["max_concurrency"] = load_cap(read.parsed.tool, m.workload) if kind == "rate" else None
    values = {**empty_point(), **m.values}
    if group is not None and values.get("achieved_requests_per_s") is None:
        values.update({k: v for k, v in window_values(group).items() if v is not None})
    row.update(values)
    row.update(
        {
            "has_requests": group is not None,
            "source": read.fetched.name,
            "source_sha256": read.fetched.sha256,
            "location": m.location,
            "tool_definitions": read.parsed.definitions,
            "evidence": "observed",
        }
    )
    return row_for(Measurements, row, origin=(read.fetched.name, m.location))


def _request_source_row(run: Run, keys: dict[str, Any], point: Point, group: dict[str, Any]) -> dict[str, Any]:
    """Where one repeat's per-request records come from (observed.request_sources)."""
    m = point.measurement
    in_place = isinstance(m.requests, RequestScan) and m.requests.data is None
    values = {
        **keys,
        "source": point.source_name,
        "source_sha256": sha_of(run, point.source_name),
        "reader": "read in place" if in_place else "stored in observed.stored_requests",
        "location": m.location,
        "source_key": group["source_key"],
        "file_offered_rate_per_s": group["file_offered_rate_per_s"],
        "file_concurrency": group["file_concurrency"],
        "first_ordinal": group["first_ordinal"],
        "first_start_s": group["first_start_any_s"],
        "level_kind": group["level_kind"],
        "level_nominal": group["level_nominal"],
        "requests": group["requests_sent"] + group["requests_warmup_excluded"] + group["requests_cooldown_excluded"],
        "rows_quarantined": group["rows_quarantined"],
        "evidence": "observed",
    }
    return row_for(RequestSources, values)
