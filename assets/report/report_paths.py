"""No absolute machine path in the report: each one the page would show is written relative to the warehouse (or to
the folder the report is written from) when it lies inside, else as its file name."""

from __future__ import annotations

import re
from pathlib import Path

# An absolute path of two parts or more, not inside a URL (`https://host/a/b`) or a relative path (`a/b/c`, `./a/b`),
# ending at a space, quote, bracket or separator; `requests/s` and `14px/1.45` are not paths (a letter or digit
# before the slash).
ABSOLUTE_PATH = re.compile(r"(?<![\w.:/~-])(?:/[^\s/<>\"'(),;=]+){2,}")


def shown_path(path: str, roots: list[Path]) -> str:
    """An absolute path as the report shows it: relative to the first of `roots` holding it, else its file name."""
    target = Path(path)
    for root in roots:
        if target != root and target.is_relative_to(root):
            return target.relative_to(root).as_posix()
    return target.name


def report_roots(serving_path: str) -> list[Path]:
    """The folders a path in the report is written relative to: the warehouse (the serving file's folder), then the
    folder the report is written from (unless that is the file system's root)."""
    cwd = Path.cwd()
    return [Path(serving_path).parent] + ([cwd] if cwd != Path(cwd.anchor) else [])


def without_absolute_paths(text: str, roots: list[Path]) -> str:
    """`text` with every absolute path in it written as shown_path writes it."""
    return ABSOLUTE_PATH.sub(lambda match: shown_path(match.group(0), roots), text)
