"""What a run says on the terminal (for the CLI): each step as it starts, in the warehouse's names rather than
Dagster's step keys, each check's outcome in words (passed / warned / failed and why), and our own messages."""

import logging
import re
import sys
from collections.abc import Iterable

import dagster as dg
from dagster._core.definitions.dependency import NodeHandle

from assets.core.inert import inert
from assets.report.textformat import wrapped
from pipelines import settings

SUBJECTS_NAMED = 3  # a step that builds more tables than this names the first ones and counts the rest


def entity_name(key: dg.AssetKey | dg.AssetCheckKey) -> str:
    """A table or check as a reader of the warehouse names it: `marts.config_shortlist`,
    `check benchmark.mlperf_results row_count_per_round`."""
    if isinstance(key, dg.AssetCheckKey):
        return f"check {'.'.join(key.asset_key.path)} {key.name}"
    return ".".join(key.path)


def _names(keys: Iterable[dg.AssetKey | dg.AssetCheckKey]) -> str:
    names = sorted(entity_name(key) for key in keys)
    if len(names) > SUBJECTS_NAMED:
        return f"{', '.join(names[: SUBJECTS_NAMED - 1])} and {len(names) - SUBJECTS_NAMED + 1} more"
    return " and ".join([", ".join(names[:-1]), names[-1]]) if len(names) > 1 else "".join(names)


def step_keys_of(job: dg.JobDefinition | None, step_key: str) -> set[dg.AssetKey | dg.AssetCheckKey]:
    """The tables and checks a step of `job` materialises or evaluates (none when the step is not an asset's)."""
    if job is None or not step_key:
        return set()
    try:
        return set(job.asset_layer.get_selected_entity_keys_for_node(NodeHandle(step_key.split("[")[0], None)))
    except Exception:  # noqa: BLE001 - a step we cannot place is still named, by its key
        return set()


def step_words(job: dg.JobDefinition | None, step_key: str) -> str:
    """A step in words: `building marts.config_shortlist`, `check benchmark.mlperf_results row_count_per_round`;
    the step key only when the step builds nothing we can name."""
    node, _, inner = step_key.partition(".")  # a graph asset's step: <asset node>.<op>[<mapping key>]
    keys = step_keys_of(job, node if inner else step_key)
    tables = [k for k in keys if isinstance(k, dg.AssetKey)]
    if tables and inner:
        op, _, mapping = inner.partition("[")
        return f"building {_names(tables)}: {op.replace('_', ' ')}" + (f" {mapping.rstrip(']')}" if mapping else "")
    if tables:
        return f"building {_names(tables)}"
    if keys:
        return _names(keys)
    return step_key


def check_words(evaluation: dg.AssetCheckEvaluation) -> str:
    """A check's outcome in words: `check T NAME: passed`, or its warning or failure and why (the
    evaluation's description, which our checks start with `warned:` or `failed:`)."""
    subject = entity_name(evaluation.asset_check_key)
    if evaluation.passed:
        return f"{subject}: passed"
    outcome = "failed" if evaluation.severity == dg.AssetCheckSeverity.ERROR else "warned"
    why = (evaluation.description or "").strip()
    if not why:
        offending = evaluation.metadata.get("offending_rows")
        why = f"{offending.value} offending rows" if offending is not None else "no reason given"
    if why.startswith(("failed:", "warned:")):
        why = why.split(":", 1)[1].strip()
    return f"{subject}: {outcome}: {why}"


def failure_cause(error: object) -> tuple[str, str]:
    """(exception class name, message) of a step failure, beneath Dagster's wrapping (whose cause names the
    file, URL or row)."""
    while (
        error is not None
        and getattr(error, "cause", None) is not None
        and str(getattr(error, "message", "")).startswith("dagster._core.errors")
    ):
        error = error.cause  # type: ignore[attr-defined]
    if error is None:
        return "", "failed"
    cls_name = str(getattr(error, "cls_name", "") or "")
    message = str(getattr(error, "message", "")).strip()
    if cls_name:  # `assets.core.errors.IngestError: /x.csv: ...`: the class is the failure's kind, not its words
        message = re.sub(rf"^[\w.]*\b{re.escape(cls_name)}: ", "", message)
    return cls_name, message


# Dagster's `Dependencies for step K failed: [...] were not executed: [...]. Not executing.` (either list may be absent)
_NOT_EXECUTED = re.compile(
    r"^Dependencies for step (\S+)(?: failed: \[([^\]]*)\])?(?: were not executed: \[([^\]]*)\])?\. Not executing\.$"
)


def _step_keys(listed: str | None) -> list[str]:
    return [key.strip().strip("'\"") for key in (listed or "").split(",") if key.strip()]


def skipped_words(job: dg.JobDefinition | None, message: str) -> str | None:
    """Dagster's `Dependencies for step K failed: [...] were not executed: [...]. Not executing.` in words: which steps
    failed and which did not run before it (None for any other message)."""
    match = _NOT_EXECUTED.match(message)
    if match is None or not (match.group(2) or match.group(3)):
        return None
    failed = [step_words(job, key) for key in _step_keys(match.group(2))]
    unrun = [step_words(job, key) for key in _step_keys(match.group(3))]
    causes = [f"{' and '.join(failed)} failed"] if failed else []
    causes += [f"{' and '.join(unrun)} did not run"] if unrun else []
    return f"{step_words(job, match.group(1))}: not run, because {'; '.join(causes)}"


def say(text: str, indent: str = "", hanging: str = "    ") -> None:
    """A message on stderr, each of its lines folded to the terminal's width with a hanging indent (continuation
    lines and the message's own further lines indented under its first), made inert."""
    first, *more = text.split("\n")
    under = " " * len(indent) + hanging
    lines = wrapped(first, indent=indent, hanging=hanging) + [w for line in more for w in wrapped(line, indent=under)]
    print("\n".join(lines), file=sys.stderr, flush=True)


class _ProgressHandler(logging.Handler):
    def __init__(self, job: dg.JobDefinition | None) -> None:
        super().__init__()
        self.job = job

    def emit(self, record: logging.LogRecord) -> None:
        meta = getattr(record, "dagster_meta", {}) or {}
        event = meta.get("dagster_event")
        step = meta.get("step_key") or ""
        message = meta.get("orig_message") or record.getMessage()
        if event is None:
            if record.levelno < logging.INFO:
                return
            line, indent = skipped_words(self.job, message) or message, "  "
        elif event.event_type_value == "STEP_START":
            keys = step_keys_of(self.job, step)
            if keys and not any(isinstance(k, dg.AssetKey) for k in keys):
                return  # a check's own step: its outcome is the line that counts
            line, indent = step_words(self.job, step), "- "
        elif event.event_type_value == "ASSET_CHECK_EVALUATION":
            evaluation = event.event_specific_data
            evaluation = getattr(evaluation, "asset_check_evaluation", evaluation)
            if not isinstance(evaluation, dg.AssetCheckEvaluation):
                return
            line, indent = check_words(evaluation), "  " if evaluation.passed else "! "
        elif event.event_type_value == "STEP_FAILURE":
            line, indent = f"{step_words(self.job, step)} failed (why is said when the run ends)", "! "
        else:
            return
        say(line, indent, hanging="  ")  # made inert: names of folders and files from inputs


@dg.logger(
    config_schema=None,
    description="Short progress lines on stderr: each step as it starts and each check's outcome, in words, and "
    "our own messages.",
)
def progress_logger(init_context: dg.InitLoggerContext) -> logging.Logger:
    log = logging.getLogger("benchbill.progress")
    log.setLevel(logging.DEBUG)
    log.propagate = False
    log.handlers = [_ProgressHandler(init_context.job_def)]
    return log


class _InertMessages(logging.Filter):
    """Log messages with control and bidirectional characters written as escapes (assets/core/inert.py): the
    names of folders and files from inputs are printed as they are otherwise."""

    def filter(self, record: logging.LogRecord) -> bool:
        """The record kept, its message made inert."""
        record.msg, record.args = inert(record.getMessage(), lines=True), None
        return True


@dg.logger(
    config_schema={
        "log_level": dg.Field(str, is_required=False, default_value="INFO", description="The logger's threshold."),
        "name": dg.Field(str, is_required=False, default_value="dagster", description="The logger's name."),
    },
    description="Dagster's console logger, in colour only on a terminal and without NO_COLOR (no escape codes "
    "in a pipe or a log file).",
)
def console_logger(init_context: dg.InitLoggerContext) -> logging.Logger:
    config = init_context.logger_config
    if settings.colour(sys.stderr):
        log = dg.colored_console_logger.logger_fn(init_context)
    else:
        log = logging.Logger(config["name"], level=config["log_level"])
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s - %(name)s - %(levelname)s - %(message)s"))
        log.addHandler(handler)
    log.addFilter(_InertMessages())
    return log
