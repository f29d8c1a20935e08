"""`benchbill`: build the warehouse in-process and print the shortlist."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import dagster as dg
import duckdb

from pipelines.resources import DEFAULT_PRICES, DEFAULT_PROFILES, DEFAULT_SOURCES, Inputs, Warehouse

SHORTLIST_COLUMNS = [
    ("profile", "profile", "{}"),
    ("accelerator", "accelerator", "{}"),
    ("n", "accelerator_count", "{}"),
    ("evidence", "evidence", "{}"),
    ("run", "run_label", "{}"),
    ("prec", "precision", "{}"),
    ("MLPerf srv tok/s/acc", "mlperf_server_tokens_per_s_per_accel", "{:,.2f}"),
    ("MLPerf off tok/s/acc", "mlperf_offline_tokens_per_s_per_accel", "{:,.2f}"),
    ("delivered req/s", ("delivered_requests_per_s_low", "delivered_requests_per_s_high"), "{:,.2f}"),
    ("delivered out tok/s", ("delivered_output_tokens_per_s_low", "delivered_output_tokens_per_s_high"), "{:,.1f}"),
    ("fraction", ("delivered_fraction_low", "delivered_fraction_high"), "{:.2f}"),
    ("price", ("price_class", "price_provider"), "{}"),
    ("$/acc-h", "usd_per_accelerator_hour", "{:.2f}"),
    ("$/request", ("cost_per_request_usd_low", "cost_per_request_usd_high"), "{:.3g}"),
    ("$/1M out tok", ("cost_per_million_output_tokens_usd_low", "cost_per_million_output_tokens_usd_high"), "{:.3g}"),
]


def _cell(row: dict, source, fmt: str) -> str:
    if isinstance(source, tuple):
        values = [row.get(s) for s in source]
        if all(v is None for v in values):
            return "-"
        if fmt == "{}":
            return " ".join(str(v) for v in values if v is not None)
        return " - ".join("?" if v is None else fmt.format(v) for v in values)
    value = row.get(source)
    return "-" if value is None else fmt.format(value)


def format_shortlist(rows: list[dict]) -> str:
    """The shortlist as a plain-text table, caveats listed under it by row number."""
    if not rows:
        return "(the shortlist is empty: no run of ours and no priced MLPerf reference matches a profile)"
    header = ["#"] + [title for title, _s, _f in SHORTLIST_COLUMNS]
    body = [[str(i + 1)] + [_cell(row, source, fmt) for _t, source, fmt in SHORTLIST_COLUMNS]
            for i, row in enumerate(rows)]
    widths = [max(len(line[i]) for line in [header] + body) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in [header] + body]
    lines.insert(1, "  ".join("-" * w for w in widths))
    lines.append("")
    lines.append("caveats:")
    for i, row in enumerate(rows):
        if row.get("caveats"):
            lines.append(f"  {i + 1}. {row['caveats']}")
    return "\n".join(lines)


def read_shortlist(serving_path: Path) -> tuple[list[dict], list[tuple]]:
    """Shortlist rows and quarantine counts per table, read from the published file (read-only)."""
    conn = duckdb.connect(str(serving_path), read_only=True)
    try:
        cursor = conn.execute("SELECT * FROM marts.config_shortlist")
        columns = [d[0] for d in cursor.description]
        rows = [dict(zip(columns, r)) for r in cursor.fetchall()]
        quarantine = conn.execute(
            "SELECT table_name, count(*) FROM audit.quarantine GROUP BY ALL ORDER BY 1").fetchall()
    finally:
        conn.close()
    return rows, quarantine


def _failures(result: dg.ExecuteInProcessResult) -> list[str]:
    messages = []
    for event in result.all_events:
        if event.event_type_value == "STEP_FAILURE":
            error = event.step_failure_data.error
            cause = error
            while cause.cause is not None and cause.message.startswith("dagster._core.errors"):
                cause = cause.cause
            messages.append(f"{event.step_key}: {(cause or error).message.strip()}")
        elif event.event_type_value == "ASSET_CHECK_EVALUATION":
            data = event.event_specific_data
            evaluation = getattr(data, "asset_check_evaluation", data)
            if not evaluation.passed and evaluation.severity == dg.AssetCheckSeverity.ERROR:
                messages.append(f"check {evaluation.asset_check_key.to_user_string()} failed "
                                f"({evaluation.metadata.get('offending_rows').value} offending rows)")
    return messages


def _execute(job: dg.JobDefinition, instance: dg.DagsterInstance, **kwargs) -> list[str]:
    """Run a job in-process; the failures it reports (empty when it succeeded)."""
    run_config = kwargs.pop("run_config", {})
    result = job.execute_in_process(instance=instance, run_config={"loggers": {"progress": {}}, **run_config},
                                    raise_on_error=False, **kwargs)
    failures = _failures(result)
    if not result.success and not failures:
        failures = [f"{job.name}: run did not succeed"]
    return failures


def _report_failure(messages: list[str]) -> int:
    print("benchbill: run failed; the published serving file (if any) is unchanged.", file=sys.stderr)
    for message in messages:
        print(f"  {message}", file=sys.stderr)
    return 1


def run(args: argparse.Namespace) -> int:
    from assets.mlperf import MLPERF_ROUND_OP, load_sources, plan_rounds, round_run_config
    from assets.warehouse import IngestError
    from pipelines.definitions import build_definitions
    from pipelines.partitions import MLPERF_ROUND_PARTITIONS

    inputs = Inputs(mlperf=args.mlperf or [], sources_file=args.sources, dumps=args.dumps or [],
                    prices=args.prices, profiles=args.profiles)
    warehouse = Warehouse(dir=args.warehouse)
    print(f"benchbill: building {Path(args.warehouse).resolve()}", file=sys.stderr)
    definitions = build_definitions(inputs, warehouse)
    # MLPerf rounds are partitions: find the rounds the inputs hold, ingest each, then build the rest.
    try:
        plan = plan_rounds(list(inputs.mlperf), load_sources(inputs.sources_file),
                           log=lambda m: print(f"  {m}", file=sys.stderr))
    except IngestError as exc:
        return _report_failure([f"{MLPERF_ROUND_OP}: {exc}"])
    instance = dg.DagsterInstance.ephemeral()
    instance.add_dynamic_partitions(MLPERF_ROUND_PARTITIONS, list(plan))
    ingest = definitions.resolve_job_def("ingest_mlperf_round")
    for round_name, locations in plan.items():
        print(f"benchbill: MLPerf round {round_name}", file=sys.stderr)
        failures = _execute(ingest, instance, partition_key=round_name, run_config=round_run_config(locations))
        if failures:
            return _report_failure(failures)
    failures = _execute(definitions.resolve_job_def("build_warehouse"), instance)
    if failures:
        return _report_failure(failures)
    rows, quarantine = read_shortlist(warehouse.serving_path)
    print(format_shortlist(rows))
    if quarantine:
        summary = ", ".join(f"{table}: {count}" for table, count in quarantine)
        print(f"\nquarantined rows (see audit.quarantine): {summary}")
    print(f"\nserving file: {warehouse.serving_path.resolve()}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="benchbill", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    run_parser = commands.add_parser("run", help="ingest, validate, join and publish; print the shortlist")
    run_parser.add_argument("--mlperf", action="append", metavar="PATH_OR_URL",
                            help="MLPerf round table (file, folder or http(s) URL); repeatable; "
                                 "default: the rounds in the sources file")
    run_parser.add_argument("--sources", default=str(DEFAULT_SOURCES), metavar="FILE",
                            help="MLPerf sources file (round URLs and allowed hosts)")
    run_parser.add_argument("--dumps", action="append", metavar="DIR",
                            help="folder of benchmark dumps with run.yaml sidecars; repeatable")
    run_parser.add_argument("--prices", default=str(DEFAULT_PRICES), metavar="FILE", help="prices CSV")
    run_parser.add_argument("--profiles", default=str(DEFAULT_PROFILES), metavar="FILE", help="profiles YAML")
    run_parser.add_argument("--warehouse", default="warehouse", metavar="DIR", help="warehouse folder")
    run_parser.set_defaults(handler=run)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
