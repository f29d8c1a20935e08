"""What `benchbill run` prints from the published serving file: the shortlist, decision lines and findings."""

from __future__ import annotations

import sys
from pathlib import Path

import duckdb

from assets.report.decision import (
    ELSEWHERE_TITLE,
    bill_text,
    decide,
    lightest_load_text,
    measure_text,
    model_hint,
    no_bill_text,
    projected_text,
    saving_text,
)
from assets.report.plan_text import plan_heads
from assets.report.report_data import read_plan_data, served_models
from assets.report.terminal_shortlist import format_shortlist, with_capacity
from assets.report.textformat import wrapped
from assets.resources import Warehouse
from assets.runs.collect import IDLE_SIDECAR_NOTE
from assets.warehouse.layout import WarehouseLayout
from assets.warehouse.lock import WarehouseProblem
from assets.warehouse.published_set import published_state, read_record


def open_published(serving_path: Path) -> duckdb.DuckDBPyConnection:
    """The published file, read-only; a file another process holds open for writing is named with its holder
    (DuckDB's lock message) rather than a traceback."""
    try:
        return duckdb.connect(str(serving_path), read_only=True)
    except duckdb.IOException as exc:
        raise WarehouseProblem(
            f"{serving_path}: cannot be read: another process holds it open for writing "
            f"({str(exc).splitlines()[0]}); the serving file is published read-only, close that connection "
            "(the next run republishes the file if it was altered)"
        ) from None


def read_shortlist(serving_path: Path) -> tuple[list[dict], dict[str, str], dict[str, list[str]], list[tuple]]:
    """Shortlist rows, each profile's SLO in words and decision lines, and quarantine counts per table, read from
    the published file (read-only)."""
    conn = open_published(serving_path)
    try:
        cursor = conn.execute("SELECT * FROM analytics.shortlist ORDER BY profile, rank_in_profile")
        columns = [d[0] for d in cursor.description]
        rows = [dict(zip(columns, r)) for r in cursor.fetchall()]
        profiles = _dicts(conn, "SELECT * FROM analytics.profiles")
        slo_text = {p["profile"]: p["slo_text"] for p in profiles}
        capacity = _dicts(conn, "SELECT * FROM analytics.capacity_plan")
        measure_next = _dicts(conn, "SELECT * FROM analytics.measure_next")
        observed = _dicts(conn, "SELECT * FROM analytics.delivered_at_slo WHERE evidence = 'observed'")
        served = served_models(conn)
        quarantine = conn.execute(
            "SELECT table_name, count(*) FROM audit.quarantine GROUP BY ALL ORDER BY 1"
        ).fetchall()
    finally:
        conn.close()
    notes = decision_notes(profiles, capacity, measure_next, observed)
    rows = with_capacity(rows, capacity)
    for profile in profiles:  # a model nothing serves: said first, above the profile's table
        hint = model_hint(profile, served)
        if hint is not None:
            notes[profile["profile"]].insert(0, hint)
    return rows, slo_text, notes, quarantine


def _dicts(conn: duckdb.DuckDBPyConnection, sql: str) -> list[dict]:
    cursor = conn.execute(sql)
    columns = [d[0] for d in cursor.description]
    return [dict(zip(columns, r)) for r in cursor.fetchall()]


def decision_notes(
    profiles: list[dict], capacity: list[dict], measure_next: list[dict], observed: list[dict] | None = None
) -> dict[str, list[str]]:
    """Per profile (analytics.profiles rows), the decision lines the terminal prints above its shortlist (as the
    report), or why there is no bill: what to state, or that no config has one at the stated volume; where every
    run of ours (`observed`: analytics.delivered_at_slo rows) misses even at its lightest load, that first; then its
    workload in words (which form its lengths were given in)."""
    notes = {}
    for row in profiles:
        profile = row["profile"]
        workload = [f"workload: {row['workload_basis']}"] if row.get("workload_basis") else []
        decision = decide(
            profile,
            [r for r in capacity if r["profile"] == profile],
            [m for m in measure_next if m["profile"] == profile],
            [o for o in observed or [] if o["profile"] == profile],
        )
        missed = [lightest_load_text(decision.missed_at_lightest)] if decision.missed_at_lightest else []
        if decision.recommended is None:
            notes[profile] = [*missed, no_bill_text(row), *workload]
            continue
        if decision.projection_first:
            lines = [*missed, f"the cheapest projection, not recommended: {bill_text(decision.recommended)}"]
        else:
            lines = [
                f"at our volume: {bill_text(decision.recommended)}",
                saving_text(decision.recommended, decision.runner_up),
            ]
        projected = projected_text(decision.top)
        if projected is not None:
            lines.append(projected)
        if decision.measure_next:
            more = len(decision.measure_next) - 1
            lines.append(
                f"measure next: {measure_text(decision.measure_next[0])}"
                + (f' (and {more} more: benchbill sql "SELECT * FROM analytics.measure_next")' if more else "")
            )
        if decision.measure_elsewhere:
            lines.append(
                f"measure next {ELSEWHERE_TITLE}: {len(decision.measure_elsewhere)} "
                '(benchbill sql "SELECT * FROM analytics.measure_next WHERE NOT at_recommended_price_class")'
            )
        notes[profile] = [*lines, *workload]
    return notes


DUMP_FILES_TABLE = "observed.measurements"  # the table whose asset lists the dump files in audit.source_files
FINDINGS_SHOWN = 5  # per kind of finding, the first few are named on the terminal; the rest are counted


def read_findings(serving_path: Path) -> list[str]:
    """What the terminal names after a run (the published file, read-only): each quarantined file or run with its
    reason, each run.yaml that governs no recognised file, each dump file no reader reads (with what it looks like),
    each name kept raw because it is unknown; then how many dump files were skipped or quarantined."""
    conn = open_published(serving_path)
    try:
        sections = [
            (
                "quarantined files and runs (analytics.quarantine)",
                conn.execute(
                    "SELECT table_name || ': ' || source || CASE WHEN location = 'file' THEN '' "
                    "ELSE ' (' || location || ')' END || ': ' || reason FROM audit.quarantine "
                    "WHERE location = 'file' OR location LIKE 'run %' ORDER BY table_name, reason, source"
                ).fetchall(),
            ),
            (
                "run.yaml files that govern no recognised dump file",
                conn.execute(
                    "SELECT DISTINCT source FROM audit.source_files WHERE note = ? ORDER BY 1", [IDLE_SIDECAR_NOTE]
                ).fetchall(),
            ),
            (
                "dump files no reader reads, skipped (audit.source_files)",
                conn.execute(
                    "SELECT source || ': ' || note FROM audit.source_files WHERE table_name = ? "
                    "AND detected_format = 'unrecognised' AND status = 'skipped' ORDER BY source",
                    [DUMP_FILES_TABLE],
                ).fetchall(),
            ),
            (
                "unknown names kept raw (no canonical id: the rows stay, unmatched; analytics.unknown_names)",
                conn.execute(
                    "SELECT table_name || ': ' || kind || ' ' || raw_name || ' (' || rows "
                    "|| CASE WHEN rows = 1 THEN ' row)' ELSE ' rows)' END FROM analytics.unknown_names"
                ).fetchall(),
            ),
        ]
        dump_counts = conn.execute(
            "SELECT count(*) FILTER (status = 'skipped' AND detected_format = 'unrecognised'), "
            "count(*) FILTER (status = 'quarantined') FROM audit.source_files WHERE table_name = ?",
            [DUMP_FILES_TABLE],
        ).fetchone()
    finally:
        conn.close()
    lines = []
    for title, rows in sections:
        if not rows:
            continue
        lines.append(f"{title}: {len(rows)}")
        lines += [f"  {row[0]}" for row in rows[:FINDINGS_SHOWN]]
        if len(rows) > FINDINGS_SHOWN:
            lines.append(f"  ... and {len(rows) - FINDINGS_SHOWN} more")
    skipped, quarantined = dump_counts or (0, 0)
    if skipped or quarantined:
        lines.append(
            f"dump files not in the published set: {skipped} skipped (no reader reads them), {quarantined} "
            "quarantined (analytics.quarantine); every other file and run is published"
        )
    return lines


def print_published(warehouse: Warehouse, warnings: list[str], show_all: bool = False, wide: bool = False) -> int:
    """The shortlist of the published serving file (the top configs per profile, or every one with `show_all`),
    its quarantine counts, the warnings, and where things are; prose folded to the terminal's width, the tables in
    the columns that fit it (every column with `wide`)."""
    try:
        rows, slo_text, notes, quarantine = read_shortlist(warehouse.serving_path)
    except WarehouseProblem as problem:  # published, but a foreign writer keeps it from being read
        said = f"benchbill: {published_state(warehouse.layout)}; the shortlist cannot be shown: {problem}"
        print("\n".join(wrapped(said, hanging="    ")), file=sys.stderr)
        return 0
    print(format_shortlist(rows, slo_text, show_all, notes, wide=wide))
    heads = measure_next_lines(warehouse)
    if heads:
        print("\n" + "\n".join(heads))
    if quarantine:
        summary = ", ".join(f"{table}: {count}" for table, count in quarantine)
        print("\n" + "\n".join(wrapped(f"quarantined rows (see analytics.quarantine): {summary}")))
    findings = read_findings(warehouse.serving_path)
    if findings:
        print("\n" + "\n".join(part for line in findings for part in wrapped(line, hanging="    ")))
    for message in warnings:
        print("\n".join(wrapped(f"warning: {message}", hanging="    ")))
    print(f"\nserving file: {warehouse.serving_path.resolve()}")
    print(f"              (SQL: benchbill sql, or duckdb -readonly {warehouse.serving_path})")
    print(f"report:       {warehouse.report_path.resolve()}")
    print(f"parquet:      {warehouse.parquet_current.absolute()}")
    return 0


def measure_next_lines(warehouse: Warehouse) -> list[str]:
    """Per profile with a measurement plan, its first row and where its files are (assets.report.plan_text
    plan_heads); nothing for a serving file published before marts.measurement_plan existed, and a warning instead
    when the plan cannot be read (the shortlist above stands)."""
    try:
        conn = open_published(warehouse.serving_path)
        try:
            plans = read_plan_data(conn)
        finally:
            conn.close()
    except (WarehouseProblem, duckdb.Error) as problem:
        return wrapped(f"warning: the measurement plan cannot be shown: {problem}", hanging="    ")
    return plan_heads(plans, warehouse.layout.dir.resolve())


def published_words(layout: WarehouseLayout, warned: list[str]) -> str:
    """What a run that published says last (exit 0): when it published and, where checks that run beside the publish
    failed, how many warn of it and which (each said above in full; the publish stands)."""
    record = read_record(layout)
    said = f"published at {record.published_at}" if record is not None else "published"
    if not warned:
        return f"{said}; every check passed"
    count = "1 check warns" if len(warned) == 1 else f"{len(warned)} checks warn"
    names = ", ".join(message.split(": ", 1)[0] for message in warned)
    return f"{said}; {count} of it (each said above; the publish stands): {names}"
