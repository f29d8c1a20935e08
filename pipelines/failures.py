"""Why a run failed, in words: each failure's kind (network, input, check, warehouse, store, bug) and what to do."""

from __future__ import annotations

from typing import NamedTuple

import dagster as dg

from assets.resources import Warehouse
from assets.warehouse.published_set import published_state
from pipelines.progress import check_words, failure_cause, say, step_words

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
    "DagsterAssetCheckFailedError": "check",  # the step of a blocking check that failed: said with its check
}


class Failed(NamedTuple):
    """One reason a run failed, in words, and what kind of failure it is (a key of ADVICE)."""

    message: str
    kind: str


def failure_of(exc: BaseException) -> Failed:
    """A failure raised in this process (before or between the jobs)."""
    kind = next((FAILURE_KINDS[c.__name__] for c in type(exc).__mro__ if c.__name__ in FAILURE_KINDS), "bug")
    return Failed(str(exc), kind)


def run_failures(result: dg.ExecuteInProcessResult | dg.ExecuteJobResult) -> tuple[list[Failed], list[str]]:
    """(failures, warnings): failed steps and failed blocking checks (they stop the publish), in words; failed
    checks that do not block (they run beside the publish: whatever their severity, a warning of it)."""
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
            if evaluation.severity == dg.AssetCheckSeverity.ERROR and evaluation.blocking:
                errors.append(Failed(check_words(evaluation), "check"))
            else:
                warnings.append(check_words(evaluation))
    return errors, warnings


def report_failure(failures: list[Failed], warehouse: Warehouse | None = None, warned: list[str] | None = None) -> int:
    """The failures, what is published (unchanged), the checks that warned before the run stopped, and advice:
    exit 1."""
    state = "" if warehouse is None else f" {published_state(warehouse.layout)}."
    say(f"benchbill: run failed;{state or ' the published serving file (if any) is unchanged.'}")
    for failure in failures:
        say(failure.message, indent="  ", hanging="  ")
    for message in warned or []:
        say(f"warning: {message}", indent="  ", hanging="  ")
    for kind in dict.fromkeys(f.kind for f in failures):
        say(ADVICE[kind], hanging="  ")
    return 1
