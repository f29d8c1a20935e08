"""`benchbill`: build the warehouse and print the shortlist (`run`), write the HTML report
(`report`), query the published serving file read-only (`sql`, `shell`), print a profile's measurement plan
(`plan`)."""

from __future__ import annotations

import argparse
import sys

from assets.core.paths import DEFAULT_PRICES, DEFAULT_PROFILES, DEFAULT_SOURCES
from pipelines import query
from pipelines.plan_command import plan
from pipelines.read_commands import report, shell, sql
from pipelines.run_command import run


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
        "--wide",
        action="store_true",
        help="print every column of the shortlist tables, however wide (default: the columns that fit the terminal's "
        "width; COLUMNS sets it, a pipe or a file is 80 columns)",
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

    plan_parser = commands.add_parser(
        "plan", help="print a profile's measurement plan (what to measure next on our traffic) and copy its files"
    )
    plan_parser.add_argument("--profile", required=True, metavar="NAME", help="the profile (profiles.yaml name)")
    plan_parser.add_argument("--warehouse", default="warehouse", metavar="DIR", help="warehouse folder")
    plan_parser.add_argument(
        "--output", metavar="DIR", help="copy each of the profile's plan folders to DIR/<plan_id>/ (files to run)"
    )
    plan_parser.set_defaults(handler=plan)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
