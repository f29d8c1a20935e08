"""`benchbill sql` and `benchbill shell`: named queries (sql/queries/<name>.sql) and plain SQL on the serving
file, with parameters bound (never pasted into the SQL). Nothing a query says can write anywhere: the file is
opened read-only, DuckDB's external access is off (no COPY TO, ATTACH, INSTALL or LOAD; no file read but the
ones the published views read in place), its configuration locked, and only statements that read (SELECT,
WITH, SHOW, DESCRIBE, SUMMARIZE, EXPLAIN) are run at all."""

from __future__ import annotations

import contextlib
import csv
import io
import re
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import duckdb

from assets.core.errors import IngestError
from assets.core.inert import inert
from assets.core.sqltext import quote_ident, sql_string_literal
from assets.report.textformat import align_rows, cut_to_width, terminal_width, to_json, value_text
from assets.warehouse import sqldoc
from assets.warehouse.objectstore import register_for_views
from pipelines import settings
from pipelines.shell_history import line_editing

FORMATS = ("table", "csv", "json")
READING_STATEMENTS = (duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN)
# The files the published views read in place (observed.requests): a path literal in a reader's call.
_IN_PLACE_FILE = re.compile(r"read_(?:csv|parquet|ndjson|json)\w*\(\s*'((?:[^']|'')*)'")
# A text cell a spreadsheet would run as a formula starts with one of these (OWASP's CSV injection list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


class QueryProblem(Exception):
    """A query that cannot run; the message says what to do."""


class QueryInterrupted(Exception):
    """Ctrl-C while a query ran: DuckDB stopped that query; the connection is still usable."""


INTERRUPTED = "interrupted (Ctrl-C): the running query was stopped"


@contextlib.contextmanager
def stopped_by_ctrl_c(conn: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """While the block runs, Ctrl-C (SIGINT) stops the connection's query (`conn.interrupt()`) instead of raising in
    the middle of DuckDB; QueryInterrupted says so after. Outside the main thread, or with SIGINT ignored, nothing
    changes."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        yield
        return
    pressed: list[int] = []

    def stop(signum: int, _frame: object) -> None:
        pressed.append(signum)
        conn.interrupt()

    previous = signal.signal(signal.SIGINT, stop)
    try:
        yield
    except duckdb.InterruptException as exc:
        raise QueryInterrupted(INTERRUPTED) from exc
    finally:
        signal.signal(signal.SIGINT, previous)
    if pressed:  # pressed after DuckDB finished: the result is dropped all the same, as asked
        raise QueryInterrupted(INTERRUPTED)


def open_serving(serving_path: Path) -> duckdb.DuckDBPyConnection:
    """A read-only connection to the published file (a pipeline run never waits for it)."""
    if not serving_path.exists():
        raise QueryProblem(
            f"{serving_path}: no published serving file here; run `benchbill run` first "
            "(or pass --warehouse DIR with the folder that holds serving.duckdb)"
        )
    try:
        conn = duckdb.connect(
            str(serving_path),
            read_only=True,
            config={"autoinstall_known_extensions": False, "autoload_known_extensions": False},
        )
    except duckdb.Error as exc:
        raise QueryProblem(f"{serving_path}: cannot open read-only ({exc})") from exc
    try:
        views = [sql for (sql,) in conn.execute("SELECT sql FROM duckdb_views() WHERE NOT internal").fetchall()]
        in_place = sorted({path.replace("''", "'") for sql in views for path in _IN_PLACE_FILE.findall(sql or "")})
        # observed.requests over a run store on object storage: read through its fsspec filesystem (the options,
        # credentials, of BENCHBILL_RUN_STORE_OPTIONS and the provider's environment), never DuckDB's httpfs
        register_for_views(conn, views, settings.run_store_options())
        # Reading these is allowed; writing them never is: only reading statements run (`run`, `check_reads`).
        conn.execute(f"SET allowed_paths = [{', '.join(sql_string_literal(p) for p in in_place)}]")
        conn.execute("SET temp_directory = ''")  # nothing spilled to disk either
        conn.execute("SET enable_external_access = false")
        conn.execute("SET lock_configuration = true")
    except (duckdb.Error, IngestError) as exc:
        conn.close()
        raise QueryProblem(f"{serving_path}: cannot open it safely read-only ({exc})") from exc
    return conn


def check_reads(sql: str) -> None:
    """QueryProblem unless every statement of `sql` only reads."""
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as exc:
        raise QueryProblem(f"{type(exc).__name__}: {exc}") from exc
    for statement in statements:
        if statement.type not in READING_STATEMENTS:
            words = " ".join(statement.query.split()[:3])
            raise QueryProblem(
                f"refused: {words!r}... is a {statement.type.name} statement; the serving file is read-only and "
                "only statements that read are run (SELECT, WITH, SHOW, DESCRIBE, SUMMARIZE, EXPLAIN). To keep a "
                "result, use --format csv or json and redirect the output"
            )


def parse_params(pairs: list[str]) -> dict[str, str]:
    params = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise QueryProblem(f"--param {pair!r}: expected NAME=VALUE, e.g. --param profile=chat-8b-interactive")
        params[name.strip()] = value
    return params


def describe_queries() -> str:
    """The named queries and their parameters, for `benchbill sql` without a query."""
    lines = ["named queries (benchbill sql NAME [--param NAME=VALUE]...):", ""]
    for name, doc in sqldoc.query_docs().items():
        lines.append(f"  {name}")
        lines.append(f"      {doc.description}")
        for param in doc.params.values():
            lines.append(
                f"      --param {param.name}=...{'  (optional)' if param.optional else ''}  {param.description}"
            )
    lines += [
        "",
        'or plain SQL: benchbill sql "SELECT * FROM analytics.shortlist LIMIT 5"',
        "views: benchbill sql \"SELECT view_name, comment FROM duckdb_views() WHERE schema_name = 'analytics'\"",
    ]
    return "\n".join(lines)


def resolve(query: str, params: dict[str, str]) -> tuple[str, dict[str, Any]]:
    """The SQL and bound parameters for a named query or a plain SQL text."""
    named = sqldoc.query_docs()
    if query in named:
        doc = named[query]
        unknown = sorted(set(params) - set(doc.params))
        if unknown:
            raise QueryProblem(
                f"query {query!r} ({doc.path}) takes no parameter {unknown}; "
                f"its parameters: {sorted(doc.params) or 'none'}"
            )
        missing = [p.name for p in doc.params.values() if not p.optional and p.name not in params]
        if missing:
            hints = "; ".join(f"--param {m}=...: {doc.params[m].description}" for m in missing)
            raise QueryProblem(f"query {query!r} needs {hints}")
        return doc.sql, {name: params.get(name) for name in doc.params}
    if not any(ch.isspace() for ch in query.strip()):
        raise QueryProblem(
            f"no named query {query!r} in {sqldoc.QUERIES_DIR}; named queries: "
            f"{', '.join(named)} (or quote a whole SQL statement)"
        )
    return query, params


VALUES_LISTED = 30  # valid values a refused parameter lists; the rest are counted


def check_values(conn: duckdb.DuckDBPyConnection, query: str, bound: dict[str, Any]) -> None:
    """QueryProblem when a named query's parameter takes a value its header does not allow (`-- values NAME: one
    of|part of ...`): a profile, accelerator or run the warehouse does not hold would return no row, silently; the
    message lists the values it holds."""
    doc = sqldoc.query_docs().get(query)
    if doc is None:
        return
    for param in doc.params.values():
        value = bound.get(param.name)
        if value is None or param.match is None:
            continue
        known: set[str] = set()
        found = False
        for column in param.columns:
            schema, table, name = column.split(".")
            source = f"{quote_ident(schema)}.{quote_ident(table)}"
            test = "= $value" if param.match == "one" else "ILIKE '%' || $value || '%'"
            matched = execute(conn, f"SELECT count(*) FROM {source} WHERE {quote_ident(name)} {test}", {"value": value})
            found = found or matched[1][0][0] > 0
            values = execute(
                conn, f"SELECT DISTINCT {quote_ident(name)} FROM {source} WHERE {quote_ident(name)} IS NOT NULL"
            )
            known |= {str(r[0]) for r in values[1]}
        if found:
            continue
        listed = sorted(known)
        more = f" ... and {len(listed) - VALUES_LISTED} more" if len(listed) > VALUES_LISTED else ""
        how = "is not one of" if param.match == "one" else "is part of none of"
        raise QueryProblem(
            f"--param {param.name}={value!r} {how} the {len(listed)} values of {', '.join(param.columns)} in the "
            f"serving file: {', '.join(listed[:VALUES_LISTED]) or '(none: the table is empty)'}{more}"
        )


def run(serving_path: Path, query: str, params: dict[str, str]) -> tuple[list[str], list[tuple]]:
    sql, bound = resolve(query, params)
    check_reads(sql)
    conn = open_serving(serving_path)
    try:
        check_values(conn, query, bound)
        return execute(conn, sql, bound)
    finally:
        conn.close()


def execute(conn: duckdb.DuckDBPyConnection, sql: str, bound: dict[str, Any] | None = None) -> tuple[list[str], list]:
    """Columns and rows of a reading statement on a connection from `open_serving`; QueryProblem says what
    went wrong."""
    try:
        with stopped_by_ctrl_c(conn):
            cursor = conn.execute(sql, bound or None)
            if cursor.description is None:
                return [], []
            return [d[0] for d in cursor.description], cursor.fetchall()
    except duckdb.PermissionException as exc:
        raise QueryProblem(
            f"refused: {exc}\n(the serving file is read-only and its queries reach no file, extension or "
            "database but the files its views read)"
        ) from exc
    except duckdb.Error as exc:
        raise QueryProblem(
            f"{type(exc).__name__}: {exc}\n(the serving file is read-only; the views are "
            'listed by `benchbill sql "SELECT view_name, comment FROM duckdb_views() '
            "WHERE schema_name = 'analytics'\"`)"
        ) from exc


def spreadsheet_cell(value: Any) -> Any:
    """A value as a CSV cell: NULL empty; a text a spreadsheet would run as a formula (FORMULA_STARTS) prefixed
    with a single quote so it is shown as text; numbers, and texts that are plain numbers, as they are."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def to_csv(columns: list[str], rows: list[tuple]) -> str:
    """RFC 4180 CSV by the csv module (CRLF rows; a cell holding a delimiter, quote, CR or LF is quoted), with
    formulas neutralised for spreadsheet users (`spreadsheet_cell`)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow([spreadsheet_cell(c) for c in columns])
    writer.writerows([spreadsheet_cell(v) for v in row] for row in rows)
    return out.getvalue()


def render(columns: list[str], rows: list[tuple], fmt: str) -> str:
    if fmt == "json":
        return to_json(columns, rows)
    if fmt == "csv":
        return to_csv(columns, rows)
    if not columns:
        return "(no result)"
    body = [[inert(value_text(v)) for v in row] for row in rows]
    # on a terminal, long values are cut to its width (--format csv or json gives them whole)
    cut = sys.stdout.isatty() and cut_to_width(columns, body, terminal_width())
    lines = align_rows(columns, body)
    note = "; long values cut to the terminal's width: --format csv or json for them whole" if cut else ""
    lines.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''}{note})")
    per_request = [c for c in columns if PER_REQUEST.search(c)]
    if per_request:  # the 1000x trap: the terminal and the report show these per 1,000 requests
        lines.append(
            f"({', '.join(per_request)}: USD per request; the terminal and the report show them x 1,000, in USD per "
            "1,000 requests)"
        )
    return "\n".join(lines)


PER_REQUEST = re.compile(r"cost_per_request_usd_(low|high)$")


SHELL_HELP = """benchbill shell: SQL on the published serving file, read-only. End a statement with ;
.tables   the tables and views        .help   this text        .quit (or Ctrl-D)   leave
Line editing and history (up arrow) on a terminal; Ctrl-C drops the statement being typed."""


def shell(serving_path: Path, read_line: Callable[[str], str] = input) -> int:
    """A SQL prompt on the serving file with the guards of `benchbill sql` (DuckDB's own prompt also runs
    shell commands and writes files through its dot commands: .shell, .output, .log, .save)."""
    conn = open_serving(serving_path)
    interactive = sys.stdin.isatty()
    # Results go to stdout; the banner and prompts to stdout only on a terminal (in a pipe they go to stderr, and
    # stdout holds nothing but results: `benchbill shell | cat`).
    to_terminal = sys.stdout.isatty()
    if interactive:
        print(SHELL_HELP, file=sys.stdout if to_terminal else sys.stderr)
    save_history = line_editing() if interactive and read_line is input else (lambda: None)
    pending: list[str] = []
    try:
        while True:
            try:
                prompt = ("benchbill> " if not pending else "      ...> ") if interactive else ""
                if prompt and not to_terminal:
                    print(prompt, end="", file=sys.stderr, flush=True)
                    prompt = ""
                line = read_line(prompt)
            except EOFError:
                break
            except KeyboardInterrupt:  # Ctrl-C: the half-typed statement is dropped, the shell goes on
                print("^C (statement dropped; Ctrl-D or .quit leaves)", file=sys.stderr, flush=True)
                pending = []
                continue
            if not pending and line.strip().startswith("."):
                command = line.strip().split()[0]
                if command in (".quit", ".exit"):
                    break
                if command == ".tables":
                    _show(
                        conn,
                        "SELECT schema_name || '.' || table_name AS name FROM duckdb_tables() UNION ALL "
                        "SELECT schema_name || '.' || view_name FROM duckdb_views() WHERE NOT internal ORDER BY 1",
                    )
                else:
                    print(SHELL_HELP if command == ".help" else f"refused: {command} (only .tables, .help, .quit)")
                continue
            pending.append(line)
            if line.rstrip().endswith(";"):
                _show(conn, "\n".join(pending))
                pending = []
        if "".join(pending).strip():
            _show(conn, "\n".join(pending))
    finally:
        save_history()
        conn.close()
    return 0


def _show(conn: duckdb.DuckDBPyConnection, sql: str) -> None:
    """Run the statements of `sql` and print their results; a problem or Ctrl-C is said and the prompt goes on."""
    try:
        check_reads(sql)
        for statement in duckdb.extract_statements(sql):
            columns, rows = execute(conn, statement.query)
            print(render(columns, rows, "table"), flush=True)
    except QueryProblem as problem:
        print(f"benchbill shell: {inert(str(problem), lines=True)}", file=sys.stderr, flush=True)
    except (QueryInterrupted, KeyboardInterrupt):  # the statement is dropped (and any after it), the shell goes on
        print(f"^C {INTERRUPTED} (the statements after it too); Ctrl-D or .quit leaves", file=sys.stderr, flush=True)
