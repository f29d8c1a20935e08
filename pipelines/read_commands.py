"""The commands that only read the published serving file: `benchbill report`, `benchbill sql`, `benchbill shell`."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from assets.core.inert import inert
from assets.resources import Warehouse
from pipelines import query
from pipelines.progress import say

# The exit status of a command stopped by Ctrl-C (SIGINT): 128 + 2, as a shell reports it.
INTERRUPTED_EXIT = 130
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
        say(
            f"benchbill report: refused: {output} is {member}, inside the warehouse folder {layout.dir}, which only "
            f"`benchbill run` writes; write the report elsewhere, or leave --output out to rewrite "
            f"{warehouse.report_path}"
        )
        return 1
    if output.is_dir():
        say(
            f"benchbill report: refused: {output} is a folder; --output takes the report's file name "
            f"(e.g. {output / 'report.html'})"
        )
        return 1
    read_from = read_record(layout)
    for _attempt in range(REPORT_ATTEMPTS):
        staging = output.with_name(f".{output.name}.{os.getpid()}.report")
        try:
            size = report_module.write_report(warehouse.serving_path, staging)
        except (FileNotFoundError, ServingFileTooOld) as exc:
            staging.unlink(missing_ok=True)
            say(f"benchbill report: {exc}")
            return 1
        published = read_record(layout)
        if published == read_from:  # the serving file read is still the published one
            try:
                os.replace(staging, output)
            except OSError as exc:  # made a folder meanwhile, or not writable: nothing left behind
                staging.unlink(missing_ok=True)
                say(f"benchbill report: refused: cannot write {output} ({exc.strerror}); it is unchanged")
                return 1
            print(f"report: {output.resolve()} ({size:,} bytes; open it in a browser, it needs no network)")
            return 0
        staging.unlink(missing_ok=True)
        when = published.published_at if published is not None else "since"
        say(
            f"benchbill report: a run published the serving file again ({when}) while the report was read from "
            "the one before: not written from it; written again from the new one"
        )
        read_from = published
    say(
        f"benchbill report: refused: runs published the serving file again {REPORT_ATTEMPTS} times while the report "
        f"was read; {output} is unchanged: run `benchbill report` again when they are done"
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
        text = query.render(columns, rows, args.format)
    except query.QueryProblem as problem:
        print(f"benchbill sql: {inert(str(problem), lines=True)}", file=sys.stderr)
        return 1
    except (query.QueryInterrupted, KeyboardInterrupt):
        print(f"benchbill sql: {query.INTERRUPTED}; nothing was printed", file=sys.stderr)
        return INTERRUPTED_EXIT
    try:
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
