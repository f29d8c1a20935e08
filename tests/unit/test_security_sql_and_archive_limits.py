"""What lets nothing in: no SQL assembled from data or file names (an audit of the code); literals and
paths quoted exactly; everything that only reads opens DuckDB read-only; archives over their limits
quarantined without decompressing past them."""

import ast
import gzip
import random

import duckdb
import pytest

from assets.core.sqltext import sql_path_literal, sql_string_literal, type_name
from assets.inputs import archives
from tests.support.archives import collect, tar_gz, zip_of
from tests.support.data import REPO_ROOT, WORKED_RUN_YAML
from tests.support.smallcase import HOSTILE

CODE = sorted(p for folder in ("assets", "pipelines") for p in (REPO_ROOT / folder).rglob("*.py"))
SAFE_HELPERS = {"quote_ident", "qualified", "sql_string_literal", "sql_path_literal", "column_list", "type_name"}
# Statements whose text is not a literal in place, each reviewed: where the text comes from.
REVIEWED = {
    ("assets/warehouse/views.py", "doc.sql"): "a view's SELECT, from sql/analytics/<view>.sql in this repository",
    (
        "assets/mlperf_rounds/rounds.py",
        "sql",
    ): "_existing(): its two callers pass literal SELECTs with bound parameters",
    ("assets/report/report_data.py", "sql"): "_rows(): its callers pass literal SELECTs",
    (
        "assets/warehouse/sqlfiles.py",
        "sql",
    ): "inputs_of_rows(): literal SELECTs of _INPUT_OF, the values bound as a list",
    (
        "assets/warehouse/sqlfiles.py",
        "read_sql(check.relative)",
    ): "a check's SELECT, from sql/checks/ in this repository",
    ("assets/warehouse/sqlfiles.py", "read_sql(MACROS)"): "the cost macros, sql/macros.sql in this repository",
    ("assets/warehouse/write.py", "audit_ddl()"): "CREATE statements from the audit tables' pandera models: names by "
    "qualified/quote_ident, types from a constant map",
    ("assets/warehouse/frames.py", "sql"): "query_frame(): SQL files of this repository, parameters bound",
    ("pipelines/published_output.py", "sql"): "_dicts(): its callers pass literal SELECTs",
    ("assets/formats/dumps/aiperf.py", "_SEND_TIMES.format(path=sql_path_literal(str(path)))"): "replay_send_rate(): "
    "the constant _SEND_TIMES, the records file's path quoted by sql_path_literal",
    ("assets/calibrate/record_lengths.py", "where"): "level_lengths(): the constant OK_RECORDS, and a literal "
    "list_contains(?, run_id) whose run ids are bound",
    ("pipelines/query.py", "sql"): "benchbill sql: the analyst's own statement, on a read-only connection, "
    "parameters bound",
    # The per-request pass: SQL files of this repository, and SELECTs assembled by code whose every file path, source
    # key, run id and reason goes through sql_path_literal / sql_string_literal and every column name through
    # quote_ident (assets/formats/dumps, assets/request_records/request_sql.py); numbers are Python ints and floats.
    (
        "assets/formats/dumps/generic.py",
        "checked_scan_sql(requests, select)",
    ): "a traffic log's scan (generic.scan: path by sql_path_literal, columns by quote_ident), checked",
    ("assets/request_records/request_pass.py", "pass_sql(name)"): "RequestPass._sql and _create: a statement of "
    "sql/observed/request_pass/ in this repository, named by the code, its values bound ($name)",
    ("assets/request_records/request_pass.py", "pass_sql('request_groups')"): "an SQL file of this repository",
    ("assets/request_records/request_pass.py", "what"): "RequestPass._create: TABLE or VIEW (asserted)",
    (
        "assets/request_records/request_pass.py",
        "name",
    ): "RequestPass._create and _view: a temporary table's or view's name, "
    "a constant of the code (asserted an identifier)",
    (
        "assets/request_records/request_pass.py",
        "select",
    ): "RequestPass._view: the SELECTs assets/request_records/request_sql.py "
    "assembles (rows_sql of the sources' parts: checked scans, ids ints, levels quoted, with the schema's checks; "
    "the text SELECTs of the scans, paths quoted, and the frames' texts)",
    ("assets/request_records/request_pass.py", "stored_select(stored)"): "RequestPass.stored: the rows of the sources "
    "stored in the warehouse, their ids ints (request_sql.stored_select)",
    ("assets/request_records/traffic_shape.py", "query"): "_first_bad: the bad-line SELECT of _azure_scan or "
    "_trace_lines_scan (the path quoted by sql_path_literal, the rest constant)",
    ("assets/warehouse/write.py", "';\\n'.join(statements)"): "COMMENT ON statements: names by qualified/quote_ident, "
    "descriptions by sql_string_literal, TABLE or VIEW checked",
    (
        "assets/warehouse/views.py",
        "f'CREATE OR REPLACE VIEW {qualified(view)} AS ' + '\\nUNION ALL\\n'.join((f'({part})' for part in parts))",
    ): "create_view: observed.requests' parts (view_parts)",
    ("assets/warehouse/views.py", "part"): "create_view's pandera sample: one of those parts",
    ("pipelines/query.py", "', '.join((sql_string_literal(p) for p in in_place))"): "open_serving's allowed_paths: "
    "each path by sql_string_literal",
    ("assets/warehouse/views.py", "each"): "create_view's pandera sample: an int",
    ("assets/warehouse/parquet.py", "select"): "write_described: _write_export's SELECTs, names by qualified and "
    "quote_ident, the partition value bound; write_select: records_files.write_records' checked scan SELECTs "
    "(records_files.copy_checked, and RequestPass.view_scans for store.own_records: checked_scan_sql, paths by "
    "sql_path_literal)",
    (
        "assets/warehouse/validate.py",
        "f\"SELECT _i, CASE WHEN NOT ({sql_valid(checks)}) THEN {sql_reasons(checks, '')} "
        "END, \" + (', '.join((f'({d})' for d in duplicate)) or 'NULL') + f\" FROM _frame "
        "{('QUALIFY' if duplicate else 'WHERE')} NOT ({sql_valid(checks)})\" + ''.join(("
        "f' OR ({d})' for d in duplicate))",
    ): "a pandera model's checks compiled to SQL "
    "(sql_checks: column names by quote_ident, "
    "values by sql_string_literal or repr of "
    "numbers)",
}


def sql_calls():
    """(file, line, what is interpolated or passed) for each execute/sql call whose statement is not a literal."""
    for path in CODE:
        relative = path.relative_to(REPO_ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("execute", "executemany", "sql", "query")
                and node.args
            ):
                continue
            statement = node.args[0]
            if isinstance(statement, ast.Constant):
                continue
            if isinstance(statement, ast.JoinedStr):
                for part in statement.values:
                    if isinstance(part, ast.FormattedValue):
                        yield relative, node.lineno, part.value
            else:
                yield relative, node.lineno, statement


def test_no_sql_is_assembled_from_data_values_or_file_names():
    """Every value pasted into a statement passes through a quoting helper; every statement that is
    not a literal in place is one reviewed above. A new one fails here until it is quoted or reviewed."""
    calls = [(relative, line, ast.unparse(value), value) for relative, line, value in sql_calls()]
    unreviewed = []
    for relative, line, text, value in calls:
        helper = isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in SAFE_HELPERS
        if not helper and (relative, text) not in REVIEWED:
            unreviewed.append(f"{relative}:{line}: {text}")
    assert unreviewed == []
    assert set(REVIEWED) <= {(relative, text) for relative, _line, text, _value in calls}  # no stale entry


HOSTILE_TEXTS = [
    "it's",
    "'; DROP TABLE t; --",
    "a''b",
    "back\\slash\\'",
    '"double"',
    "new\nline",
    "tab\t%s %d ?",
    "é ü 中 🙂",
    "$1 $x :name",
    "' || (SELECT 1) || '",
    "md:token",
    ":memory:",
    "s3://bucket/key",
]


@pytest.mark.parametrize("text", HOSTILE_TEXTS)
def test_the_literal_helper_gives_back_exactly_the_text(text):
    conn = duckdb.connect()
    conn.execute("CREATE TABLE t AS SELECT 1 AS x")
    assert conn.execute(f"SELECT {sql_string_literal(text)}").fetchone()[0] == text
    assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 1


def test_paths_are_absolute_literals_and_nul_bytes_and_odd_type_names_are_refused(tmp_path):
    conn = duckdb.connect()
    target = tmp_path / "md:x" / HOSTILE
    target.mkdir(parents=True)
    conn.execute(f"ATTACH {sql_path_literal(target / 'f.duckdb')} AS f")
    conn.execute("CREATE TABLE f.t AS SELECT 42 AS answer")
    conn.execute(f"COPY f.t TO {sql_path_literal(target / 'f.parquet')} (FORMAT parquet)")
    conn.close()
    assert sorted(p.name for p in target.iterdir()) == ["f.duckdb", "f.parquet"]
    assert sql_path_literal("relative/x.duckdb").startswith("'/")
    with pytest.raises(ValueError, match="NUL"):
        sql_string_literal("a\x00b")
    with pytest.raises(ValueError, match="unexpected type name"):
        type_name("VARCHAR; DROP TABLE x")
    assert type_name("DECIMAL(18,3)") == "DECIMAL(18,3)" and type_name("BIGINT[]") == "BIGINT[]"


# ---- read-only ---------------------------------------------------------------------------------------


def test_everything_that_only_reads_opens_duckdb_read_only():
    """Every duckdb.connect in the code is read-only, in memory, or the pipeline's own build file."""
    found = []
    for path in CODE:
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and ast.unparse(node.func) == "duckdb.connect":
                read_only = any(k.arg == "read_only" and ast.unparse(k.value) == "True" for k in node.keywords)
                found.append((path.relative_to(REPO_ROOT).as_posix(), ast.unparse(node), read_only))
    writers = [(f, call) for f, call, read_only in found if not read_only and call != "duckdb.connect()"]
    assert writers == [("assets/resources.py", "duckdb.connect(str(self.build_path))")]
    assert sum(read_only for *_x, read_only in found) >= 5


BOMBS = {
    "zip member": (
        lambda: zip_of({"zeros.json": b"0" * 5_000_000}),
        "MAX_MEMBER_BYTES",
        "declares 5,000,000 bytes, above",
    ),
    "zip total": (lambda: zip_of({f"z{i}.json": b"0" * 600_000 for i in range(4)}), "MAX_TOTAL_BYTES", "more than the"),
    "tar.gz member": (
        lambda: tar_gz({"zeros.json": b"0" * 5_000_000}),
        "MAX_MEMBER_BYTES",
        "declares 5,000,000 bytes, above",
    ),
    "gzip stream": (
        lambda: gzip.compress(b"0" * 5_000_000),
        "MAX_TOTAL_BYTES",
        "expands beyond the 1,000,000-byte limit",
    ),
    "member count": (lambda: zip_of({f"f{i}": b"" for i in range(50)}), "MAX_MEMBERS", "more than 20 members"),
    "damaged zip": (lambda: zip_of({"a.json": random.Random(1).randbytes(5000)})[:3000], None, "a damaged zip archive"),
}


@pytest.mark.parametrize("bomb, limit, reason", BOMBS.values(), ids=BOMBS.keys())
def test_an_archive_over_its_limits_is_quarantined_without_decompressing_past_them(
    bomb, limit, reason, tmp_path, monkeypatch
):
    if limit:
        monkeypatch.setattr(archives, limit, 20 if limit == "MAX_MEMBERS" else 1_000_000)
    batch = collect(tmp_path / "dumps", {"run.yaml": WORKED_RUN_YAML.encode(), "bomb.bin": bomb()})
    (quarantined,) = [f for f in batch.files if f.status == "quarantined"]
    assert quarantined.source.endswith("bomb.bin") and reason in quarantined.note
    assert [r.reason for r in batch.rejects] == [f"{quarantined.detected_format} not read: {quarantined.note}"]
