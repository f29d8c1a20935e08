"""The SQL twin of `values.checked_column`: the per-request records of a file DuckDB reads in place,
checked row by row by the same rules and worded the same way."""

from __future__ import annotations

from assets.core.sqltext import quote_ident, sql_string_literal
from assets.formats.dumps.exchange import REQUEST_RANGES, SCAN_COLUMNS, SCAN_NUMBERS, RequestScan
from assets.formats.dumps.values import NOT_A_NUMBER, NOT_FINITE, NOT_WHOLE, outside
from assets.inputs.textinput import CUT_LINE_REASON

COPY_REASON = "the same request as an earlier line (every column equal): read once"
VALUE_PROBLEM = "a value failed its check"  # what an unexplained row keeps (the pass explains only what it quarantines)


def checked_scan_sql(scan: RequestScan, select: str, *, explain: bool = True, copies: str | None = None) -> str:
    """The SQL twin of `checked_column`, row by row: `select` (the scan's SELECT or its tolerant one) with
    its numbers checked by the same rules (not a number, not finite, not whole where a count is wanted,
    outside REQUEST_RANGES) and typed, start_time_unix_s added, and `problem`: NULL when the row can be
    used; else, with `explain`, the first reason, worded as `checked_column` words it and naming the row
    (without, VALUE_PROBLEM: cheaper, for a pass that explains only the rows it quarantines); the scan's
    own rules first and last (a last row that may be cut short; with `copies="find"`, a copy of an
    earlier row, COPY_REASON, found by a window over the file). `copies="hash"` gives `row_hash`, a hash
    of every column, so that a pass can count distinct rows cheaply and find copies only in files that
    have some. A row with a problem is quarantined, never read as NULL or as another number."""
    row = f"({sql_string_literal(scan.row_word + ' ')} || (ordinal + {scan.row_offset}))"
    unix = scan.start_column == "start_time_unix_s"
    numbers = [
        (
            "start_s",
            scan.start_column,
            False,
            REQUEST_RANGES["start_time_unix_s"] if unix else None,
            scan.start_units_per_s,
        )
    ]
    numbers += [(column, column, whole, REQUEST_RANGES[column], 1.0) for column, whole in SCAN_NUMBERS.items()]
    converted, failures, typed = [], [], []
    for column, name, whole, bounds, units in numbers:
        raw, value = quote_ident(column), quote_ident("n_" + column)
        converted.append(f"TRY_CAST({raw} AS DOUBLE){f' / {units!r}' if units != 1.0 else ''} AS {value}")
        got = f"CASE WHEN typeof({raw}) = 'VARCHAR' THEN '''' || {raw} || '''' ELSE CAST({raw} AS VARCHAR) END"
        checks = [(f"{raw} IS NOT NULL AND {value} IS NULL", NOT_A_NUMBER), (f"NOT isfinite({value})", NOT_FINITE)]
        if whole:
            checks.append((f"{value} <> floor({value})", NOT_WHOLE))
        if bounds is not None:
            checks.append((f"{value} < {bounds[0]!r} OR {value} >= {bounds[1]!r}", outside(*bounds)))
        failures += [
            (
                condition,
                f"{sql_string_literal(name + ' of ')} || {row} || "
                f"{sql_string_literal(' ' + what + ' (got ')} || {got} || ')'",
            )
            for condition, what in checks
        ]
        typed.append(
            f"CASE WHEN {value} = floor({value}) THEN TRY_CAST({value} AS BIGINT) END AS {quote_ident(column)}"
            if whole
            else f"{value} AS {quote_ident(column)}"
        )
    typed.append(f"{'n_start_s' if unix else 'NULL::DOUBLE'} AS start_time_unix_s")
    if explain:
        cases = [f"WHEN {condition} THEN {reason}" for condition, reason in failures]
    else:
        cases = [
            f"WHEN {' OR '.join(f'({condition})' for condition, _reason in failures)} "
            f"THEN {sql_string_literal(VALUE_PROBLEM)}"
        ]
    if scan.cut_last_row:
        cases.insert(0, f"WHEN ordinal = max(ordinal) OVER () THEN {sql_string_literal(CUT_LINE_REASON)}")
    every = ", ".join(quote_ident(c) for c in SCAN_COLUMNS if c != "ordinal")
    if copies == "find":
        cases.append(f"WHEN min(ordinal) OVER (PARTITION BY {every}) < ordinal THEN {sql_string_literal(COPY_REASON)}")
    row_hash = f"hash({every})" if copies == "hash" else "NULL::UBIGINT"
    return (
        f"SELECT ordinal, phase, status, error, {', '.join(typed)}, CASE {' '.join(cases)} END AS problem, "
        f"{row_hash} AS row_hash FROM (SELECT *, {', '.join(converted)} FROM ({select}))"
    )
