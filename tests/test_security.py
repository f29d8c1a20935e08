"""What lets nothing in: no SQL assembled from data or file names (an audit of the code, and hostile
paths end to end); the serving file opened read-only by everything that only reads; archives of
dumps read inside the dumps tree (no traversal, no links out, size limits); prompt and response
texts stored only when a run asks for it. (Fetching only from allowed hosts: tests/test_faults.py.)"""

import ast
import gzip
import io
import random
import stat
import tarfile
import zipfile
from pathlib import Path

import duckdb
import pytest

from assets import archives, dumps
from assets.parquet import export_parquet
from assets.warehouse import sql_path_literal, sql_string_literal, type_name
from pipelines.cli import main
from tests.conftest import INFERENCE_PERF, REPO_ROOT, WORKED_RUN_YAML
from tests.smallcase import HOSTILE, PLANTED, file_sha

CODE = sorted(p for folder in ("assets", "pipelines") for p in (REPO_ROOT / folder).rglob("*.py"))
SAFE_HELPERS = {"quote_ident", "qualified", "sql_string_literal", "sql_path_literal", "column_list", "type_name"}
# Statements whose text is not a literal in place, each reviewed: where the text comes from.
REVIEWED = {
    ("assets/analytics.py", "doc.sql"): "a view's SELECT, from sql/analytics/<view>.sql in this repository",
    ("assets/mlperf.py", "sql"): "_existing(): its two callers pass literal SELECTs with bound parameters",
    ("assets/report.py", "sql"): "_rows(): its callers pass literal SELECTs",
    ("assets/sqlfiles.py", "read_sql(relative)"): "a check's SELECT, from sql/checks/ in this repository",
    ("assets/warehouse.py", "_AUDIT_DDL"): "a constant",
    ("assets/warehouse.py", "sql"): "query_frame(): SQL files of this repository, parameters bound",
    ("pipelines/query.py", "sql"): "benchbill sql: the analyst's own statement, on a read-only connection, "
                                   "parameters bound",
    # The per-request pass (issue 7), merged with the value checks (issue 6): SQL files of this repository, and
    # SELECTs assembled by code whose every file path, source key, run id and reason goes through
    # sql_path_literal / sql_string_literal and every column name through quote_ident (assets/dump_formats,
    # assets/request_stats.py); numbers are Python ints and floats.
    ("assets/dump_formats/generic.py", "checked_scan_sql(requests, select)"):
        "a traffic log's scan (generic.scan: path by sql_path_literal, columns by quote_ident), checked",
    ("assets/request_stats.py", "read_sql('observed/request_groups.sql')"): "an SQL file of this repository",
    ("assets/request_stats.py", "read_sql('observed/request_groups_keyed.sql')"): "an SQL file of this repository",
    ("assets/request_stats.py", "read_sql('observed/request_stats.sql')"): "an SQL file of this repository",
    ("assets/request_stats.py", "read_sql('observed/request_pooled.sql')"): "an SQL file of this repository",
    ("assets/request_stats.py", "read_sql('observed/request_small.sql')"): "an SQL file of this repository",
    ("assets/request_stats.py", "read_sql('observed/request_percentiles.sql')"): "an SQL file of this repository",
    ("assets/request_stats.py", "_rows_sql(parts)"): "the pass's parts (RequestPass._scan_part: checked scans, "
                                                     "ids and levels quoted) with the schema's checks",
    ("assets/request_stats.py", "_rows_sql([part])"): "one of those parts",
    ("assets/request_stats.py", "', '.join(('r.' + n for n in names))"): "constant column names",
    ("assets/request_stats.py", "requests_select('(SELECT * FROM request_rows WHERE source_id IN (' + ', '.join(map("
                                "str, stored)) + '))', 'request_keys')"): "source ids are ints",
    ("assets/request_stats.py", "rows"): "RequestPass.texts: _rows_sql of the pass's own parts",
    ("assets/request_stats.py", "explained"): "RequestPass.rejects: _rows_sql of the pass's own parts, explained",
    ("assets/request_stats.py", "' UNION ALL BY NAME '.join(parts)"): "RequestPass.texts: text SELECTs of the "
                                                                      "scans (paths quoted) and a registered frame",
    ("assets/request_stats.py", "' UNION ALL '.join(parts)"): "the same text SELECTs",
    ("assets/request_stats.py", "TPOT_SQL"): "a constant",
    ("assets/request_stats.py", "checked_scan_sql(requests, requests.select)"): "scan_frame: a scan, checked",
    ("assets/warehouse.py", "';\\n'.join(statements)"): "COMMENT ON statements: names by qualified/quote_ident, "
                                                       "descriptions by sql_string_literal, TABLE or VIEW checked",
    ("assets/warehouse.py", "f'CREATE OR REPLACE VIEW {qualified(view)} AS ' + '\\nUNION ALL\\n'.join((f'({part})' "
                            "for part in parts))"): "create_view: observed.requests' parts (request_stats.view_parts)",
    ("assets/warehouse.py", "part"): "create_view's pandera sample: one of those parts",
    ("assets/warehouse.py", "each"): "create_view's pandera sample: an int",
    ("assets/warehouse.py", "f\"SELECT _i, CASE WHEN NOT ({sql_valid(checks)}) THEN {sql_reasons(checks, '')} END, "
                            "\" + (', '.join((f'({d})' for d in duplicate)) or 'NULL') + f\" FROM _frame "
                            "{('QUALIFY' if duplicate else 'WHERE')} NOT ({sql_valid(checks)})\" + ''.join((f' OR "
                            "({d})' for d in duplicate))"): "a pandera model's checks compiled to SQL (sql_checks: "
                                                          "column names by quote_ident, values by "
                                                          "sql_string_literal or repr of numbers)",
}


def sql_calls():
    """(file, line, what is interpolated or passed) for each execute/sql call whose statement is not a literal."""
    for path in CODE:
        relative = path.relative_to(REPO_ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("execute", "executemany", "sql", "query") and node.args):
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
    unreviewed = []
    for relative, line, value in sql_calls():
        helper = isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in SAFE_HELPERS
        if not helper and (relative, ast.unparse(value)) not in REVIEWED:
            unreviewed.append(f"{relative}:{line}: {ast.unparse(value)}")
    assert unreviewed == []
    assert all(any(r == relative and ast.unparse(v) == expr for r, _l, v in sql_calls()) for relative, expr in REVIEWED)


HOSTILE_TEXTS = ["it's", "'; DROP TABLE t; --", "a''b", "back\\slash\\'", '"double"', "new\nline", "tab\t%s %d ?",
                 "é ü 中 🙂", "$1 $x :name", "' || (SELECT 1) || '", "md:token", ":memory:", "s3://bucket/key"]


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


def test_a_warehouse_and_inputs_below_a_hostile_folder_name_build_and_answer(small_case, capsys):
    """Every run of the small case already reads and writes below HOSTILE; the commands that read work too."""
    assert HOSTILE in str(small_case.reference) and "'" in HOSTILE and ";" in HOSTILE
    assert main(["sql", "SELECT count(*) AS n FROM benchmark.mlperf_results", "--format", "csv",
                 "--warehouse", str(small_case.reference)]) == 0
    assert capsys.readouterr().out.strip().splitlines() == ["n", "24"]


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
    assert writers == [("pipelines/resources.py", "duckdb.connect(str(self.build_path))")]
    assert sum(read_only for *_x, read_only in found) >= 5


def test_the_commands_that_read_work_on_a_serving_file_nobody_may_write(small_case, tmp_path, capsys):
    warehouse = small_case.copy_of(small_case.published, tmp_path / "warehouse")
    serving = warehouse / "serving.duckdb"
    serving.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    digest = file_sha(serving)
    assert main(["sql", "shortlist", "--param", "profile=chat-8b-interactive", "--warehouse", str(warehouse)]) == 0
    assert main(["report", "--warehouse", str(warehouse)]) == 0
    export_parquet(serving, tmp_path / "parquet")
    assert main(["sql", "CREATE TABLE benchmark.x AS SELECT 1", "--warehouse", str(warehouse)]) == 1
    assert "read-only" in capsys.readouterr().err
    assert file_sha(serving) == digest


# ---- prompt and response texts -----------------------------------------------------------------------


def text_columns(serving: Path) -> dict[str, int]:
    """Per table column of a text type: how many values hold the planted string."""
    conn = duckdb.connect(str(serving), read_only=True)
    try:
        columns = conn.execute("SELECT schema_name, table_name, column_name FROM duckdb_columns() WHERE NOT internal "
                               "AND data_type = 'VARCHAR' AND (schema_name, table_name) IN "
                               "(SELECT schema_name, table_name FROM duckdb_tables())").fetchall()
        return {f"{s}.{t}.{c}": conn.execute(f'SELECT count(*) FROM "{s}"."{t}" WHERE "{c}" LIKE ?',
                                             [f"%{PLANTED}%"]).fetchone()[0] for s, t, c in columns}
    finally:
        conn.close()


def files_holding(folder: Path, token: bytes) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                  if p.is_file() and token in p.read_bytes())


def test_prompt_and_response_texts_are_not_stored_unless_a_run_asks_for_them(small_case):
    # Run A had no --store-texts: the planted string is in no text column of any table (DuckDB
    # compresses strings, so the file's bytes alone would prove nothing), and in no byte of the
    # Parquet export, the report, the serving or the build file.
    published = small_case.published
    assert sum(text_columns(published / "serving.duckdb").values()) == 0
    assert sum(text_columns(published / "build.duckdb").values()) == 0
    token = PLANTED.encode()
    assert files_holding(published, token) == []
    with duckdb.connect(str(published / "serving.duckdb"), read_only=True) as conn:
        assert conn.execute("SELECT count(*) FROM observed.requests").fetchone()[0] == 36  # the requests are there
        assert conn.execute("SELECT count(*) FROM observed.request_texts").fetchone()[0] == 0
    # Run B asked for them: they are in observed.request_texts and nowhere else, and the Parquet byte
    # search finds them there (so it would have found them anywhere else).
    reference = small_case.reference
    holding = {column: n for column, n in text_columns(reference / "serving.duckdb").items() if n}
    assert holding == {"observed.request_texts.prompt_text": 24, "observed.request_texts.response_text": 36}
    exported = files_holding((reference / "parquet" / "current").resolve(), token)
    assert exported == ["observed/request_texts.parquet"]


# ---- archives of dumps -------------------------------------------------------------------------------


class Containing(str):
    """Equal to any text that contains it (a note's reason, whatever details follow)."""

    def __eq__(self, other):
        return isinstance(other, str) and str(self) in other

    __hash__ = str.__hash__


def stage_files() -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((INFERENCE_PERF / "vllm" / "results").iterdir())}


def tar_gz(members: dict[str, bytes], links: dict[str, tuple[bytes, str]] | None = None) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        for name, (kind, target) in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type, info.linkname = kind, target
            archive.addfile(info)
    return out.getvalue()


def zip_of(members: dict[str, bytes], symlinks: dict[str, str] | None = None) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        for name, target in (symlinks or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, target)
    return out.getvalue()


def collect(folder: Path, files: dict[str, bytes]) -> dumps.ObservedBatch:
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    return dumps.collect_all([str(folder)])


def listing(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))


def test_a_tar_gz_of_a_report_reads_as_the_folder_does(tmp_path):
    as_folder = collect(tmp_path / "folder", {"run.yaml": WORKED_RUN_YAML.encode(),
                                              **{f"results/{k}": v for k, v in stage_files().items()}})
    as_archive = collect(tmp_path / "archive", {"run.yaml": WORKED_RUN_YAML.encode(),
                                                "results.tar.gz": tar_gz(stage_files())})
    def values(batch):
        return sorted((m["offered_rate_per_s"], m["achieved_requests_per_s"], m["ttft_p95_ms"])
                      for m in batch.measurements)
    assert len(as_archive.measurements) == 7 and values(as_archive) == values(as_folder)
    assert all("/results.tar.gz/stage_" in m["source"] for m in as_archive.measurements)
    assert ("gzip archive", "read") in {(f.detected_format, f.status) for f in as_archive.files}


def test_archive_members_cannot_reach_outside_their_folder_nor_follow_links(tmp_path):
    stage = stage_files()["stage_3_lifecycle_metrics.json"]
    hostile_zip = zip_of({"../../escape/stage_1_lifecycle_metrics.json": stage,
                          "/etc/stage_2_lifecycle_metrics.json": stage,
                          "C:/windows/stage_4_lifecycle_metrics.json": stage,
                          "ok/stage_3_lifecycle_metrics.json": stage,
                          "inner.zip": zip_of({"stage_5_lifecycle_metrics.json": stage})},
                         symlinks={"passwd.json": "/etc/passwd"})
    hostile_tar = tar_gz({"../up/stage_6_lifecycle_metrics.json": stage},
                         links={"shadow.json": (tarfile.SYMTYPE, "/etc/shadow"),
                                "hard.json": (tarfile.LNKTYPE, "/etc/passwd"), "pipe": (tarfile.FIFOTYPE, "")})
    folder = tmp_path / "dumps"
    before = listing(tmp_path)
    batch = collect(folder, {"run.yaml": WORKED_RUN_YAML.encode(), "a.zip": hostile_zip, "b.tar.gz": hostile_tar})
    assert listing(tmp_path) == sorted(before + ["dumps", "dumps/a.zip", "dumps/b.tar.gz", "dumps/run.yaml"])
    assert [m["source"].split("/dumps/")[1] for m in batch.measurements] == ["a.zip/ok/stage_3_lifecycle_metrics.json"]
    refused = {f.source.split("/dumps/")[1]: f.note for f in batch.files if f.status == "skipped"}
    assert refused == REFUSED_MEMBERS


REFUSED_MEMBERS = {
    "a.zip/../../escape/stage_1_lifecycle_metrics.json": Containing("path traversal"),
    "a.zip//etc/stage_2_lifecycle_metrics.json": Containing("absolute path"),
    "a.zip/C:/windows/stage_4_lifecycle_metrics.json": Containing("absolute path"),
    "a.zip/inner.zip": Containing("an archive inside an archive is not opened"),
    "a.zip/passwd.json": Containing("a symbolic link: links are not followed"),
    "b.tar.gz/../up/stage_6_lifecycle_metrics.json": Containing("path traversal"),
    "b.tar.gz/hard.json": Containing("a hard link to '/etc/passwd'"),
    "b.tar.gz/pipe": Containing("a device, pipe or other special file"),
    "b.tar.gz/shadow.json": Containing("a symbolic link to '/etc/shadow'"),
}
BOMBS = {
    "zip member": (lambda: zip_of({"zeros.json": b"0" * 5_000_000}), "MAX_MEMBER_BYTES",
                   "declares 5,000,000 bytes, above"),
    "zip total": (lambda: zip_of({f"z{i}.json": b"0" * 600_000 for i in range(4)}), "MAX_TOTAL_BYTES", "more than the"),
    "tar.gz member": (lambda: tar_gz({"zeros.json": b"0" * 5_000_000}), "MAX_MEMBER_BYTES",
                      "declares 5,000,000 bytes, above"),
    "gzip stream": (lambda: gzip.compress(b"0" * 5_000_000), "MAX_TOTAL_BYTES",
                    "expands beyond the 1,000,000-byte limit"),
    "member count": (lambda: zip_of({f"f{i}": b"" for i in range(50)}), "MAX_MEMBERS", "more than 20 members"),
    "damaged zip": (lambda: zip_of({"a.json": random.Random(1).randbytes(5000)})[:3000], None, "a damaged zip archive"),
}


@pytest.mark.parametrize("bomb, limit, reason", BOMBS.values(), ids=BOMBS.keys())
def test_an_archive_over_its_limits_is_quarantined_without_decompressing_past_them(bomb, limit, reason, tmp_path,
                                                                                 monkeypatch):
    if limit:
        monkeypatch.setattr(archives, limit, 20 if limit == "MAX_MEMBERS" else 1_000_000)
    batch = collect(tmp_path / "dumps", {"run.yaml": WORKED_RUN_YAML.encode(), "bomb.bin": bomb()})
    (quarantined,) = [f for f in batch.files if f.status == "quarantined"]
    assert quarantined.source.endswith("bomb.bin") and reason in quarantined.note
    assert [r.reason for r in batch.rejects] == [f"{quarantined.detected_format} not read: {quarantined.note}"]
