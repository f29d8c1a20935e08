"""`benchbill`: build the warehouse and print the shortlist (`run`), write the HTML report
(`report`), query the published serving file read-only (`sql`, `shell`)."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path
from typing import NamedTuple

import dagster as dg
import duckdb

from assets.config.profiles import check_profiles
from assets.core.errors import IngestError
from assets.core.inert import inert
from assets.core.paths import DEFAULT_PRICES, DEFAULT_PROFILES, DEFAULT_SOURCES
from assets.report.decision import (
    ELSEWHERE_TITLE,
    bill_text,
    decide,
    measure_text,
    model_hint,
    no_bill_text,
    projected_text,
    saving_text,
)
from assets.report.textformat import format_shortlist, wrapped
from assets.resources import Inputs, Warehouse
from assets.runs.collect import IDLE_SIDECAR_NOTE
from assets.warehouse.lock import WarehouseProblem
from assets.warehouse.objectstore import RunStoreUnreachable
from assets.warehouse.published_set import published_state
from pipelines import query, settings
from pipelines.progress import check_words, failure_cause, step_words


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
        served = dict(
            conn.execute(
                "SELECT DISTINCT model_raw, model_id FROM observed.runs WHERE model_id IS NOT NULL UNION "
                "SELECT DISTINCT mlperf_model, model_id FROM benchmark.mlperf_results WHERE model_id IS NOT NULL"
            ).fetchall()
        )
        quarantine = conn.execute(
            "SELECT table_name, count(*) FROM audit.quarantine GROUP BY ALL ORDER BY 1"
        ).fetchall()
    finally:
        conn.close()
    notes = decision_notes(profiles, capacity, measure_next)
    for profile in profiles:  # a model nothing serves: said first, above the profile's table
        hint = model_hint(profile, served)
        if hint is not None:
            notes[profile["profile"]].insert(0, hint)
    return rows, slo_text, notes, quarantine


def _dicts(conn: duckdb.DuckDBPyConnection, sql: str) -> list[dict]:
    cursor = conn.execute(sql)
    columns = [d[0] for d in cursor.description]
    return [dict(zip(columns, r)) for r in cursor.fetchall()]


def decision_notes(profiles: list[dict], capacity: list[dict], measure_next: list[dict]) -> dict[str, list[str]]:
    """Per profile (analytics.profiles rows), the decision lines the terminal prints above its shortlist (as the
    report), or why there is no bill: what to state, or that no config has one at the stated volume."""
    notes = {}
    for row in profiles:
        profile = row["profile"]
        decision = decide(
            profile,
            [r for r in capacity if r["profile"] == profile],
            [m for m in measure_next if m["profile"] == profile],
        )
        if decision.recommended is None:
            notes[profile] = [no_bill_text(row)]
            continue
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
        notes[profile] = lines
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


# What to do, by what failed: a network failure is no bad input, a bad input no bug.
ADVICE = {
    "network": "What to do: check the network (a proxy, DNS) and that the host named above answers, then run again; "
    "or download the file yourself and pass it with --mlperf FILE.",
    "input": "What to do: correct the file, URL or row named above (each message says what was expected), then run "
    "again.",
    "check": "What to do: look at the offending rows of each failed check (its SQL is in sql/checks/; the rows it "
    "selects are in the build file, warehouse/build.duckdb), correct the input they come from, then run again.",
    "warehouse": "What to do: as the message above says for the warehouse folder, then run again.",
    "store": "What to do: start the run store or correct its endpoint (BENCHBILL_RUN_STORE, "
    "BENCHBILL_RUN_STORE_OPTIONS), then run again.",
    "bug": "What to do: this is not an input problem but a fault in benchbill itself: report it with the message "
    "above (the full traceback is in the run's Dagster log).",
}
# Exceptions by the kind of failure they are (by class name: Dagster hands a step's error over serialised).
FAILURE_KINDS = {
    "NetworkError": "network",
    "IngestError": "input",
    "SchemaMismatch": "input",
    "SqlDocProblem": "input",
    "FileNotFoundError": "input",
    "WarehouseProblem": "warehouse",
    "WarehouseBusy": "warehouse",
    "RunStoreUnreachable": "store",
}


class Failed(NamedTuple):
    """One reason a run failed, in words, and what kind of failure it is (a key of ADVICE)."""

    message: str
    kind: str


def failure_of(exc: BaseException) -> Failed:
    """A failure raised in this process (before or between the jobs)."""
    kind = next((FAILURE_KINDS[c.__name__] for c in type(exc).__mro__ if c.__name__ in FAILURE_KINDS), "bug")
    return Failed(str(exc), kind)


def _failures(result: dg.ExecuteInProcessResult | dg.ExecuteJobResult) -> tuple[list[Failed], list[str]]:
    """(failures, warnings): failed steps and failed ERROR checks, in words; failed WARN checks."""
    errors: list[Failed] = []
    warnings: list[str] = []
    for event in result.all_events:
        if event.event_type_value == "STEP_FAILURE":
            cls_name, message = failure_cause(event.step_failure_data.error)
            what = step_words(result.job_def, event.step_key or "")
            errors.append(Failed(f"{what} failed: {message}", FAILURE_KINDS.get(cls_name, "bug")))
        elif event.event_type_value == "ASSET_CHECK_EVALUATION":
            data = event.event_specific_data
            evaluation = getattr(data, "asset_check_evaluation", data)
            if not isinstance(evaluation, dg.AssetCheckEvaluation) or evaluation.passed:
                continue
            if evaluation.severity == dg.AssetCheckSeverity.ERROR:
                errors.append(Failed(check_words(evaluation), "check"))
            else:
                warnings.append(check_words(evaluation))
    return errors, warnings


def _execute(job: dg.JobDefinition, instance: dg.DagsterInstance, warnings: list[str], **kwargs) -> list[Failed]:
    """Run a job in-process; the failures it reports (empty when it succeeded). Failed WARN checks
    are added to `warnings`."""
    run_config = kwargs.pop("run_config", {})
    result = job.execute_in_process(
        instance=instance, run_config={"loggers": {"progress": {}}, **run_config}, raise_on_error=False, **kwargs
    )
    failures, warned = _failures(result)
    warnings += warned
    if not result.success and not failures:
        failures = [Failed(f"{job.name}: the run did not succeed and named no failed step", "bug")]
    return failures


def _report_failure(failures: list[Failed], warehouse: Warehouse | None = None) -> int:
    state = "" if warehouse is None else f" {published_state(warehouse.layout)}."
    print(f"benchbill: run failed;{state or ' the published serving file (if any) is unchanged.'}", file=sys.stderr)
    for failure in failures:
        print(f"  {inert(failure.message, lines=True)}", file=sys.stderr)
    for kind in dict.fromkeys(f.kind for f in failures):
        print(ADVICE[kind], file=sys.stderr)
    return 1


def run(args: argparse.Namespace) -> int:
    inputs = Inputs(
        mlperf=args.mlperf or [],
        sources_file=args.sources,
        dumps=args.dumps or [],
        prices=args.prices,
        profiles=args.profiles,
        store_texts=args.store_texts or settings.store_texts(),
        allow_links_into=args.allow_links_into or settings.allow_links_into(),
    )
    warehouse = Warehouse(
        dir=args.warehouse,
        lock_timeout_s=settings.lock_timeout_s(),
        run_store=settings.run_store(),
        run_store_options=settings.run_store_options(),
    )
    try:  # the profiles first, before any step: a mistake in them is the run's one message
        noticed = check_profiles(inputs.profiles)  # said first, and again with the run's warnings at its end
        for warning in noticed:
            print(f"benchbill: warning: {warning}", file=sys.stderr)
    except IngestError as problem:
        return _report_failure([failure_of(problem)])
    previous = signal.signal(signal.SIGTERM, _interrupt)  # SIGTERM ends the run as Ctrl-C does: with a message
    try:
        with warehouse.hold():  # one writer from the fingerprint check through the publish
            return _run(inputs, warehouse, force=args.force, show_all=args.all, executor=args.executor, noticed=noticed)
    except WarehouseProblem as problem:  # busy, read-only, full, a link for a lock file: one message, no traceback
        return _report_failure([failure_of(problem)])
    except RunStoreUnreachable as problem:  # the run store's endpoint does not answer: one message, no traceback
        return _report_failure([failure_of(problem)], warehouse)
    except KeyboardInterrupt:
        print(f"benchbill: interrupted; {published_state(warehouse.layout)}.", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)


def _interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


def _run(
    inputs: Inputs,
    warehouse: Warehouse,
    force: bool = False,
    show_all: bool = False,
    executor: str = "in_process",
    noticed: list[str] | None = None,
) -> int:
    """The run under the whole-run lock: the no-change fast path (the published fingerprint is read
    while no other run can publish), else every job; `noticed`: warnings found before it (the profiles')."""
    from assets.mlperf_rounds.ingest import reading_once
    from assets.warehouse.fingerprint import inputs_json, published_fingerprint
    from assets.warehouse.published_set import damaged_serving, remove_leftovers
    from pipelines.definitions import build_definitions

    for leftover in remove_leftovers(warehouse.serving_path):  # the lock is ours: no publish is under way
        print(f"benchbill: removed {leftover}, left by a publish that failed or was killed", file=sys.stderr)
    remote = warehouse.layout.object_store
    if remote is not None:  # before anything is read from it: an unreachable store is one message
        remote.reachable()
    damaged = damaged_serving(warehouse.layout)
    if damaged is not None:
        print(
            f"benchbill: the serving file is damaged: {damaged}; this run builds and publishes it again",
            file=sys.stderr,
        )

    # Each input is read once for the whole run (reading_once): the fingerprint, then every job.
    with reading_once():
        found = _fingerprint(inputs, warehouse)
        if found is not None and not force and published_fingerprint(warehouse.layout) == found[0]:
            print(
                f"benchbill: nothing changed since the last publish of {warehouse.path.resolve()} (same "
                f"inputs by checksum, same code, same settings): showing it; --force builds anyway",
                file=sys.stderr,
            )
            return _print_published(warehouse, list(noticed or []), show_all)
        if found is not None:
            inputs = Inputs(
                **{
                    **inputs.model_dump(),
                    "fingerprint": found[0],
                    "code_sha256": found[1],
                    "fingerprint_inputs": inputs_json(found[2]),
                }
            )
        print(f"benchbill: building {warehouse.path.resolve()}", file=sys.stderr)
        definitions = build_definitions(inputs, warehouse)
        # MLPerf rounds are partitions: find the rounds the inputs hold, ingest each, then build the rest.
        return _run_jobs(definitions, inputs, warehouse, show_all, executor, noticed or [])


def _fingerprint(inputs: Inputs, warehouse: Warehouse) -> tuple[str, str, list] | None:
    """The run's fingerprint, or None when an input cannot be read (the run then says what is wrong). A dump file
    whose size, mtime, ctime and inode are the ones the warehouse recorded is not hashed again."""
    from assets.config.sources import load_sources
    from assets.core.errors import IngestError
    from assets.mlperf_rounds.ingest import fetch_once
    from assets.runs.partition_store import partition_store
    from assets.warehouse.fingerprint import inputs_fingerprint

    try:
        sources = load_sources(inputs.sources_file)
        locations = list(inputs.mlperf) or [url for _name, url in sources.rounds]
        return inputs_fingerprint(
            inputs,
            locations,
            lambda url: fetch_once(url, sources.allowed_hosts, lambda m: print(f"  {m}", file=sys.stderr)),
            partition_store(warehouse.layout).checksums(),
        )
    except (IngestError, OSError):
        return None


def _run_jobs(
    definitions: dg.Definitions,
    inputs: Inputs,
    warehouse: Warehouse,
    show_all: bool = False,
    executor: str = "in_process",
    noticed: list[str] | None = None,
) -> int:
    from assets.config.sources import load_sources
    from assets.core.errors import IngestError
    from assets.mlperf_rounds.rounds import plan_rounds
    from assets.partitions import MLPERF_ROUND_PARTITIONS
    from pipelines.jobs import round_run_config

    if executor != "in_process" and inputs.dumps:
        from pipelines.parallel import start_step_server

        start_step_server()  # its imports (a few seconds) overlap the MLPerf rounds' ingestion
    try:
        plan = plan_rounds(
            list(inputs.mlperf), load_sources(inputs.sources_file), log=lambda m: print(f"  {m}", file=sys.stderr)
        )
    except IngestError as exc:
        return _report_failure([Failed(f"finding the MLPerf rounds failed: {exc}", failure_of(exc).kind)], warehouse)
    instance = dg.DagsterInstance.ephemeral()
    warnings: list[str] = list(noticed or [])
    instance.add_dynamic_partitions(MLPERF_ROUND_PARTITIONS, list(plan))
    ingest = definitions.resolve_job_def("ingest_mlperf_round")
    for round_name, locations in plan.items():
        print(f"benchbill: MLPerf round {round_name}", file=sys.stderr)
        failures = _execute(
            ingest, instance, warnings, partition_key=round_name, run_config=round_run_config(locations)
        )
        if failures:
            return _report_failure(failures, warehouse)
    if executor != "in_process" and inputs.dumps:
        # The run partitions in parallel processes first; build_warehouse then finds every one stored and reused.
        from pipelines.parallel import scan_in_processes

        print(f"benchbill: run partitions of the dump folders on the {executor} executor", file=sys.stderr)
        failures, warned = _failures(scan_in_processes(inputs, warehouse, executor))
        warnings += warned
        if failures:
            return _report_failure(failures, warehouse)
    failures = _execute(definitions.resolve_job_def("build_warehouse"), instance, warnings)
    if failures:
        return _report_failure(failures, warehouse)
    return _print_published(warehouse, warnings, show_all)


def _print_published(warehouse: Warehouse, warnings: list[str], show_all: bool = False) -> int:
    """The shortlist of the published serving file (the top configs per profile, or every one with `show_all`),
    its quarantine counts, the warnings, and where things are; every line fits a 160-column terminal."""
    try:
        rows, slo_text, notes, quarantine = read_shortlist(warehouse.serving_path)
    except WarehouseProblem as problem:  # published, but a foreign writer keeps it from being read
        print(
            f"benchbill: {published_state(warehouse.layout)}; the shortlist cannot be shown: {problem}", file=sys.stderr
        )
        return 0
    print(format_shortlist(rows, slo_text, show_all, notes))
    if quarantine:
        summary = ", ".join(f"{table}: {count}" for table, count in quarantine)
        print("\n" + "\n".join(wrapped(f"quarantined rows (see analytics.quarantine): {summary}")))
    findings = read_findings(warehouse.serving_path)
    if findings:
        print("\n" + "\n".join(part for line in findings for part in wrapped(line, hanging="    ")))
    for message in warnings:
        print("\n".join(wrapped(f"warning: {message}")))
    print(f"\nserving file: {warehouse.serving_path.resolve()}")
    print(f"              (SQL: benchbill sql, or duckdb -readonly {warehouse.serving_path})")
    print(f"report:       {warehouse.report_path.resolve()}")
    print(f"parquet:      {warehouse.parquet_current.absolute()}")
    return 0


# How many times `benchbill report` writes the report again when a run publishes while it reads the serving file.
REPORT_ATTEMPTS = 3


def report(args: argparse.Namespace) -> int:
    from assets.report import report as report_module
    from assets.report.serving_tables import ServingFileTooOld
    from assets.warehouse.published_set import pipeline_member, read_record

    warehouse = Warehouse(dir=args.warehouse)
    layout = warehouse.layout
    output = Path(args.output) if args.output else warehouse.report_path
    member = pipeline_member(layout, output)
    if member is not None:
        print(
            f"benchbill report: refused: {output} is {member}, inside the warehouse folder {layout.dir}, which only "
            f"`benchbill run` writes; write the report elsewhere, or leave --output out to rewrite "
            f"{warehouse.report_path}",
            file=sys.stderr,
        )
        return 1
    read_from = read_record(layout)
    for _attempt in range(REPORT_ATTEMPTS):
        staging = output.with_name(f".{output.name}.{os.getpid()}.report")
        try:
            size = report_module.write_report(warehouse.serving_path, staging)
        except (FileNotFoundError, ServingFileTooOld) as exc:
            staging.unlink(missing_ok=True)
            print(f"benchbill report: {exc}", file=sys.stderr)
            return 1
        published = read_record(layout)
        if published == read_from:  # the serving file read is still the published one
            os.replace(staging, output)
            print(f"report: {output.resolve()} ({size:,} bytes; open it in a browser, it needs no network)")
            return 0
        staging.unlink(missing_ok=True)
        when = published.published_at if published is not None else "since"
        print(
            f"benchbill report: a run published the serving file again ({when}) while the report was read from "
            "the one before: not written from it; written again from the new one",
            file=sys.stderr,
        )
        read_from = published
    print(
        f"benchbill report: refused: runs published the serving file again {REPORT_ATTEMPTS} times while the report "
        f"was read; {output} is unchanged: run `benchbill report` again when they are done",
        file=sys.stderr,
    )
    return 1


def sql(args: argparse.Namespace) -> int:
    if args.query is None:
        print(query.describe_queries())
        return 0
    try:
        columns, rows = query.run(
            Warehouse(dir=args.warehouse).serving_path, args.query, query.parse_params(args.param or [])
        )
    except query.QueryProblem as problem:
        print(f"benchbill sql: {inert(str(problem), lines=True)}", file=sys.stderr)
        return 1
    try:
        text = query.render(columns, rows, args.format)
        sys.stdout.write(text if text.endswith("\n") else text + "\n")  # CSV rows end in CRLF already
        sys.stdout.flush()
    except BrokenPipeError:  # `benchbill sql ... | head`: the reader has all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def shell(args: argparse.Namespace) -> int:
    """A SQL prompt on the serving file that can only read (pipelines/query.py: `benchbill sql`'s guards)."""
    try:
        return query.shell(Warehouse(dir=args.warehouse).serving_path)
    except query.QueryProblem as problem:
        print(f"benchbill shell: {inert(str(problem), lines=True)}", file=sys.stderr)
        return 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="benchbill", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    run_parser = commands.add_parser("run", help="ingest, validate, join and publish; print the shortlist")
    run_parser.add_argument(
        "--mlperf",
        action="append",
        metavar="PATH_OR_URL",
        help="MLPerf round table (file, folder or http(s) URL); repeatable; default: the rounds in the sources file",
    )
    run_parser.add_argument(
        "--sources",
        default=str(DEFAULT_SOURCES),
        metavar="FILE",
        help="MLPerf sources file (round URLs and allowed hosts)",
    )
    run_parser.add_argument(
        "--dumps", action="append", metavar="DIR", help="folder of benchmark dumps with run.yaml sidecars; repeatable"
    )
    run_parser.add_argument(
        "--allow-links-into",
        action="append",
        metavar="DIR",
        help="a folder that links below a dumps folder may lead into (repeatable; default BENCHBILL_ALLOW_LINKS_INTO); "
        "a link leading out of the dumps folders and these is skipped with the reason",
    )
    run_parser.add_argument("--prices", default=str(DEFAULT_PRICES), metavar="FILE", help="prices CSV")
    run_parser.add_argument("--profiles", default=str(DEFAULT_PROFILES), metavar="FILE", help="profiles YAML")
    run_parser.add_argument("--warehouse", default="warehouse", metavar="DIR", help="warehouse folder")
    run_parser.add_argument(
        "--store-texts",
        action="store_true",
        help="keep the prompt and response texts of dumps (observed.request_texts); by default they are never stored",
    )
    run_parser.add_argument(
        "--force",
        action="store_true",
        help="build even when no input (by checksum) and no code changed since the last publish",
    )
    run_parser.add_argument(
        "--all",
        action="store_true",
        help="print every config and price class of each profile (default: the top 5 configs, each at its "
        "cheapest price class)",
    )
    run_parser.add_argument(
        "--executor",
        choices=["in_process", "multiprocess"],
        default="in_process",
        help="how the dump folders' run partitions are read: in this process (default), or a process per partition "
        "(at most one per core at once)",
    )
    run_parser.set_defaults(handler=run)

    report_parser = commands.add_parser("report", help="write the HTML report from the published serving file")
    report_parser.add_argument("--warehouse", default="warehouse", metavar="DIR", help="warehouse folder")
    report_parser.add_argument("--output", metavar="FILE", help="where to write it (default: WAREHOUSE/report.html)")
    report_parser.set_defaults(handler=report)

    sql_parser = commands.add_parser(
        "sql", help="run a named query (sql/queries/NAME.sql) or a SQL statement on the serving file, read-only"
    )
    sql_parser.add_argument(
        "query",
        nargs="?",
        metavar="NAME_OR_SQL",
        help="a named query, or a quoted SQL statement; without it, list the named queries",
    )
    sql_parser.add_argument("--param", action="append", metavar="NAME=VALUE", help="bind a parameter; repeatable")
    sql_parser.add_argument("--format", choices=query.FORMATS, default="table", help="output format")
    sql_parser.add_argument("--warehouse", default="warehouse", metavar="DIR", help="warehouse folder")
    sql_parser.set_defaults(handler=sql)

    shell_parser = commands.add_parser("shell", help="a SQL prompt on the serving file that can only read")
    shell_parser.add_argument("--warehouse", default="warehouse", metavar="DIR", help="warehouse folder")
    shell_parser.set_defaults(handler=shell)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
