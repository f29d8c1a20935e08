"""A Dagster logger that prints one short line per step and per message of ours (for the CLI)."""

import logging
import sys

import dagster as dg


class _ProgressHandler(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        meta = getattr(record, "dagster_meta", {}) or {}
        event = meta.get("dagster_event")
        step = meta.get("step_key") or ""
        message = meta.get("orig_message") or record.getMessage()
        if event is None:
            if record.levelno < logging.INFO:
                return
            line = f"  {message}"
        elif event.event_type_value == "STEP_START":
            line = f"- {step}"
        elif event.event_type_value in ("STEP_FAILURE", "ASSET_CHECK_EVALUATION") and record.levelno >= logging.WARNING:
            line = f"! {step}: {message}"
        else:
            return
        print(line, file=sys.stderr, flush=True)


@dg.logger(
    config_schema=None, description="Short progress lines on stderr: each step as it starts, and our own messages."
)
def progress_logger(init_context: dg.InitLoggerContext) -> logging.Logger:
    log = logging.getLogger("benchbill.progress")
    log.setLevel(logging.DEBUG)
    log.propagate = False
    if not log.handlers:
        log.addHandler(_ProgressHandler())
    return log
