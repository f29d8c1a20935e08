"""The comment header of a SQL file: what the table, check, view or query is, how its columns and parameters
are described. Tables (`sql/<schema>/<table>.sql`), checks (`sql/checks/`), views (`sql/analytics/<view>.sql`)
and named queries (`sql/queries/<name>.sql`) document themselves this way:

    -- analytics.load_points: one row per run x load level ...      (the description, up to a blank
    -- ... continued                                                   comment line)
    --
    -- Columns described on: observed.load_points, observed.runs     (a column of the same name on
    --                                                                 these tables lends its comment)
    -- column output_tokens_per_s_per_accel: Output tokens/s per ...  (columns of the view's own)
    -- param profile: the profile's name                              (a named query's parameters;
    -- param accelerator (optional): ...                               bound as $profile, never pasted)
    -- values profile: one of analytics.profiles.profile              (the values a parameter may take:
    -- values accelerator: part of analytics.x.a, analytics.x.b          equal to one, or part of one; any
                                                                        other is refused, listing them)
    -- severity: warn                                                 (a check's settings: sqlfiles.py)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from assets.core.paths import SQL_DIR

VIEWS_DIR = SQL_DIR / "analytics"
QUERIES_DIR = SQL_DIR / "queries"

_COLUMN = re.compile(r"^column\s+(\w+)\s*:\s*(.+)$")
_PARAM = re.compile(r"^param\s+(\w+)\s*(\(optional\))?\s*:\s*(.+)$")
_DESCRIBED_ON = re.compile(r"^columns described on\s*:\s*(.+)$", re.IGNORECASE)
_PLACEHOLDER = re.compile(r"\$(\w+)")
_VALUES = re.compile(r"^values\s+(\w+)\s*:\s*(one|part)\s+of\s+(.+)$")
_COLUMN_NAME = re.compile(r"^\w+\.\w+\.\w+$")


@dataclass(frozen=True)
class Param:
    """A named query's parameter; `match` (`one` or `part`) and `columns` (`schema.table.column`) say which values
    it may take: equal to a value of one of the columns, or part of one (case-insensitive, as ILIKE matches)."""

    name: str
    description: str
    optional: bool
    match: str | None = None
    columns: tuple[str, ...] = ()


@dataclass(frozen=True)
class SqlDoc:
    """A SQL file's text and what its header says about it."""

    path: Path
    sql: str
    description: str
    described_on: list[str] = field(default_factory=list)
    columns: dict[str, str] = field(default_factory=dict)
    params: dict[str, Param] = field(default_factory=dict)
    header: list[str] = field(default_factory=list)  # the header's lines after the description

    @property
    def name(self) -> str:
        return self.path.stem


class SqlDocProblem(ValueError):
    """A SQL file whose header cannot be read; the message names the file and line."""


def parse(text: str, path: Path) -> SqlDoc:
    """The header of `text` (the comment lines before the first statement line)."""
    header = []
    for line in text.splitlines():
        if not line.startswith("--"):
            break
        header.append(line[2:].strip())
    description, rest = [], header
    for i, line in enumerate(header):
        if not line:
            rest = header[i + 1 :]
            break
        description.append(line)
    else:
        rest = []
    summary = " ".join(description)
    summary = re.sub(r"^\w+\.\w+:\s*", "", summary)  # the `schema.name:` the file opens with
    if not summary:
        raise SqlDocProblem(f"{path}: line 1 must be a `-- ` comment describing the view or query")
    described_on: list[str] = []
    columns: dict[str, str] = {}
    params: dict[str, Param] = {}
    for line in rest:
        if not line:
            continue
        if match := _DESCRIBED_ON.match(line):
            described_on += [t.strip() for t in match.group(1).split(",") if t.strip()]
        elif match := _COLUMN.match(line):
            columns[match.group(1)] = match.group(2).strip()
        elif match := _PARAM.match(line):
            params[match.group(1)] = Param(match.group(1), match.group(3).strip(), bool(match.group(2)))
    for line in rest:
        if match := _VALUES.match(line):
            name, kind = match.group(1), match.group(2)
            names = tuple(c.strip() for c in match.group(3).split(",") if c.strip())
            if name not in params or not names or not all(_COLUMN_NAME.match(c) for c in names):
                raise SqlDocProblem(
                    f"{path}: `-- {line}`: expected `-- values NAME: one of|part of SCHEMA.TABLE.COLUMN[, ...]` for a "
                    f"declared parameter ({sorted(params)})"
                )
            params[name] = replace(params[name], match=kind, columns=names)
    used = set(_PLACEHOLDER.findall(text))
    undeclared = sorted(used - set(params))
    if undeclared:
        raise SqlDocProblem(
            f"{path}: parameters {undeclared} are used but not declared "
            "(add `-- param NAME: description` to the header)"
        )
    return SqlDoc(
        path=path,
        sql=text.strip().rstrip(";"),
        description=summary,
        described_on=described_on,
        columns=columns,
        params=params,
        header=rest,
    )


def read(path: Path) -> SqlDoc:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SqlDocProblem(f"{path}: cannot read ({exc})") from exc
    return parse(text, path)


def view_docs() -> list[SqlDoc]:
    """Every analyst view, in file-name order."""
    return [read(path) for path in sorted(VIEWS_DIR.glob("*.sql"))]


def query_docs() -> dict[str, SqlDoc]:
    """Every named query, by name."""
    return {path.stem: read(path) for path in sorted(QUERIES_DIR.glob("*.sql"))}
