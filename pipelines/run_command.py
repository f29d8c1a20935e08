"""`benchbill run`: under the whole-run lock, build the warehouse (or find nothing changed) and print the shortlist."""

from __future__ import annotations

import argparse
import signal
from typing import NamedTuple

import dagster as dg

from assets.config.profiles import check_profiles
from assets.core.errors import IngestError
from assets.resources import Inputs, Warehouse
from assets.warehouse.lock import WarehouseProblem
from assets.warehouse.objectstore import RunStoreUnreachable
from assets.warehouse.published_set import published_state
from pipelines import settings
from pipelines.failures import Failed, failure_of, report_failure, run_failures
from pipelines.progress import say
from pipelines.published_output import print_published, published_words


class Shown(NamedTuple):
    """How the shortlist is printed: every config and price class (`--all`), every column (`--wide`)."""

    show_all: bool = False
    wide: bool = False


DEFAULT_SHOWN = Shown()  # the top configs per profile, in the columns that fit the terminal


def _execute(job: dg.JobDefinition, instance: dg.DagsterInstance, warned: list[str], **kwargs) -> list[Failed]:
    """Run a job in-process; the failures it reports (empty when it succeeded). Failed checks that do not
    block the publish are added to `warned`."""
    run_config = kwargs.pop("run_config", {})
    result = job.execute_in_process(
        instance=instance, run_config={"loggers": {"progress": {}}, **run_config}, raise_on_error=False, **kwargs
    )
    failures, checks = run_failures(result)
    warned += checks
    if not result.success and not failures:
        failures = [Failed(f"{job.name}: the run did not succeed and named no failed step", "bug")]
    return failures


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
            say(f"benchbill: warning: {warning}")
    except IngestError as problem:
        return report_failure([failure_of(problem)])
    previous = signal.signal(signal.SIGTERM, _interrupt)  # SIGTERM ends the run as Ctrl-C does: with a message
    try:
        with warehouse.hold():  # one writer from the fingerprint check through the publish
            shown = Shown(show_all=args.all, wide=args.wide)
            return _run(inputs, warehouse, force=args.force, shown=shown, executor=args.executor, noticed=noticed)
    except WarehouseProblem as problem:  # busy, read-only, full, a link for a lock file: one message, no traceback
        return report_failure([failure_of(problem)])
    except RunStoreUnreachable as problem:  # the run store's endpoint does not answer: one message, no traceback
        return report_failure([failure_of(problem)], warehouse)
    except KeyboardInterrupt:
        say(f"benchbill: interrupted; {published_state(warehouse.layout)}.")
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)


def _interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


def _run(
    inputs: Inputs,
    warehouse: Warehouse,
    force: bool = False,
    shown: Shown = DEFAULT_SHOWN,
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
        say(f"benchbill: removed {leftover}, left by a publish that failed or was killed")
    remote = warehouse.layout.object_store
    if remote is not None:  # before anything is read from it: an unreachable store is one message
        remote.reachable()
    damaged = damaged_serving(warehouse.layout)
    if damaged is not None:
        say(f"benchbill: the serving file is damaged: {damaged}; this run builds and publishes it again")

    # Each input is read once for the whole run (reading_once): the fingerprint, then every job.
    with reading_once():
        found = _fingerprint(inputs, warehouse)
        if found is not None and not force and published_fingerprint(warehouse.layout) == found[0]:
            say(
                f"benchbill: nothing changed since the last publish of {warehouse.path.resolve()} (same "
                f"inputs by checksum, same code, same settings): showing it; --force builds anyway"
            )
            return print_published(warehouse, list(noticed or []), shown.show_all, shown.wide)
        if found is not None:
            inputs = Inputs(
                **{
                    **inputs.model_dump(),
                    "fingerprint": found[0],
                    "code_sha256": found[1],
                    "fingerprint_inputs": inputs_json(found[2]),
                }
            )
        say(f"benchbill: building {warehouse.path.resolve()}")
        definitions = build_definitions(inputs, warehouse)
        # MLPerf rounds are partitions: find the rounds the inputs hold, ingest each, then build the rest.
        return _run_jobs(definitions, inputs, warehouse, shown, executor, noticed or [])


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
            lambda url: fetch_once(url, sources.allowed_hosts, lambda m: say(m, indent="  ", hanging="  ")),
            partition_store(warehouse.layout).checksums(),
        )
    except (IngestError, OSError):
        return None


def _run_jobs(
    definitions: dg.Definitions,
    inputs: Inputs,
    warehouse: Warehouse,
    shown: Shown = DEFAULT_SHOWN,
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
            list(inputs.mlperf), load_sources(inputs.sources_file), log=lambda m: say(m, indent="  ", hanging="  ")
        )
    except IngestError as exc:
        return report_failure([Failed(f"finding the MLPerf rounds failed: {exc}", failure_of(exc).kind)], warehouse)
    instance = dg.DagsterInstance.ephemeral()
    warned: list[str] = []  # the checks that failed beside the publish: warnings of it
    instance.add_dynamic_partitions(MLPERF_ROUND_PARTITIONS, list(plan))
    ingest = definitions.resolve_job_def("ingest_mlperf_round")
    for round_name, locations in plan.items():
        say(f"benchbill: MLPerf round {round_name}")
        failures = _execute(ingest, instance, warned, partition_key=round_name, run_config=round_run_config(locations))
        if failures:
            return report_failure(failures, warehouse)
    if executor != "in_process" and inputs.dumps:
        # The run partitions in parallel processes first; build_warehouse then finds every one stored and reused.
        from pipelines.parallel import scan_in_processes

        say(f"benchbill: run partitions of the dump folders on the {executor} executor")
        failures, checks = run_failures(scan_in_processes(inputs, warehouse, executor))
        warned += checks
        if failures:
            return report_failure(failures, warehouse)
    failures = _execute(definitions.resolve_job_def("build_warehouse"), instance, warned)
    if failures:
        return report_failure(failures, warehouse, warned)
    code = print_published(warehouse, list(noticed or []) + warned, shown.show_all, shown.wide)
    say(f"benchbill: {published_words(warehouse.layout, warned)}")
    return code
