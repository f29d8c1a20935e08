"""The history of `benchbill shell` (GNU readline), kept between sessions in `~/.benchbill_history`, but only in a
regular file of the user's own: never a FIFO (reading it would block the prompt) nor a file that another name or
a link shares (saving cuts the file to its last HISTORY_LINES lines)."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path

from assets.inputs.files import not_regular

HISTORY_FILE = Path.home() / ".benchbill_history"  # the shell's history, kept between sessions
HISTORY_LINES = 1000


def history_refusal(path: Path) -> str | None:
    """Why the shell must not read or write `path` as its history, or None when it may: only a regular file (not a
    link, FIFO or device: a FIFO would block the prompt, a link would have its target cut to HISTORY_LINES lines)
    with one name, owned by the user; or no file yet."""
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot be examined ({exc.strerror})"
    if stat.S_ISLNK(found.st_mode):
        return "is a symbolic link (its target would be cut to the last lines)"
    if not stat.S_ISREG(found.st_mode):
        return f"is {not_regular(found.st_mode)}, not a regular file (reading it could block the prompt)"
    if found.st_uid != os.getuid() or found.st_nlink != 1:
        return "is a file another user owns or another name shares (it would be cut to the last lines)"
    return None


def line_editing(history_file: Path = HISTORY_FILE) -> Callable[[], None]:
    """GNU readline for `input()` (editing, the up arrow, history kept in `history_file`); returns what saves the
    history on leaving. History is off, said once, when that file is not one the shell may own
    (`history_refusal`); without readline, or a history file that cannot be read or written, the shell still works."""
    try:
        import readline
    except ImportError:  # pragma: no cover - CPython on Linux and macOS has it
        return lambda: None
    readline.set_history_length(HISTORY_LINES)
    refusal = history_refusal(history_file)
    if refusal is not None:
        print(f"benchbill shell: history off: {history_file} {refusal}", file=sys.stderr, flush=True)
        return lambda: None
    try:
        readline.read_history_file(history_file)
    except OSError:
        pass

    def save() -> None:
        if history_refusal(history_file) is not None:  # replaced while the shell ran: left as it is
            return
        try:
            readline.write_history_file(history_file)
        except OSError:
            pass

    return save
