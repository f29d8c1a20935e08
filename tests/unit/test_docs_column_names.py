"""The column names the docs quote are the warehouse's: read against the published tables' pandera models and the
analytics views and queries bound over them (no build), so a page cannot name a column that does not exist.

What is checked, and where:
- in every page (docs/, README.md, ARCHITECTURE.md), a quoted `schema.table` is a published table or view, and a
  quoted `schema.table.column` (also `..._low/high`, `..._*`) a column of it;
- in the pages about tables (TABLE_PAGES), every quoted snake_case identifier (`a_b`, `a_b_low/high`, `a_*`),
  alone or inside a quoted formula, is a published column, a word a column may hold (its model's `isin`), a table's
  name, or in NOT_COLUMNS, which says what each is;
- in every page, the SQL it shows (```sql blocks, `benchbill sql '...'`, a connection's `sql("...")`) binds against the
  warehouse."""

import re

import duckdb
import pytest

from tests.support.data import REPO_ROOT
from tests.support.published_columns import all_models, empty_warehouse, published_columns

PAGES = sorted((REPO_ROOT / "docs").glob("*.md")) + [REPO_ROOT / "README.md", REPO_ROOT / "ARCHITECTURE.md"]
TABLE_PAGES = [
    REPO_ROOT / "docs" / name
    for name in (
        "analyst-guide.md",
        "bi.md",
        "calibrated-model.md",
        "capacity-plan.md",
        "design.md",
        "report.md",
        "tables.md",
        "workload.md",
    )
]

# Identifiers those pages quote that are not columns, and what each is.
NOT_COLUMNS = {
    "max_num_seqs": "vLLM's engine argument (calibrated-model.md)",
    "max_num_batched_tokens": "vLLM's engine argument (calibrated-model.md)",
    "time_per_output_token": "a tool's metric name (calibrated-model.md)",
    "rate_w": "window w's rate, a symbol of the formulas (capacity-plan.md)",
    "projected_may_beat": "a value of analytics.measure_next.kind (capacity-plan.md)",
    "sparse_near_slo": "a value of analytics.measure_next.kind (capacity-plan.md)",
    "delivered_fraction_prior": "the profiles YAML key (design.md)",
    "input_length": "a column of a trace file we read (workload.md)",
    "output_length": "a column of a trace file we read (workload.md)",
    "our_in": "a name in assets/calibrate code (workload.md)",
    "our_out": "a name in assets/calibrate code (workload.md)",
    "traffic_of": "a function in assets/calibrate/our_traffic.py (workload.md)",
    "get_table_comment": "SQLAlchemy's inspector method (bi.md)",
    "connect_args": "SQLAlchemy's engine parameter (bi.md)",
    "read_only": "DuckDB's connection option (bi.md)",
    "access_mode": "DuckDB's connection option (bi.md)",
}

QUOTED = re.compile(r"`([^`\n]+)`")
DOTTED = re.compile(r"^([a-z]+)\.([a-z0-9_]+)(?:\.([a-z0-9_]+(?:/(?:low|high))?\*?))?$")
IDENTIFIER = re.compile(r"(?<![\w./$-])([a-z][a-z0-9]*(?:_[a-z0-9]+)+(?:/(?:low|high))?(?:_\*)?)(?![\w(./-])")


def names_of(quoted: str) -> list[str]:
    """`a_low/high` -> a_low, a_high; `a_*` stays a prefix (ending `*`); anything else is itself."""
    if "/" in quoted:
        first, other = quoted.split("/")
        return [first, f"{first.rsplit('_', 1)[0]}_{other}"]
    return [quoted]


def is_among(name: str, columns: set[str] | list[str]) -> bool:
    """A name is a column, or a prefix (`a_*`) of one."""
    return any(c.startswith(name[:-1]) for c in columns) if name.endswith("*") else name in columns


def words_a_column_may_hold() -> set[str]:
    """Every text value a model's `isin` check allows (statuses, kinds: what a page quotes as a value)."""
    words = set()
    for model in all_models():
        for column in model.to_schema().columns.values():
            for check in column.checks:
                words |= {v for v in (check.statistics or {}).get("allowed_values", []) if isinstance(v, str)}
    return words


def dotted_problems(text: str, published: dict[str, list[str]]) -> list[str]:
    """Each quoted `schema.table[.column]` of `text` that names no published table, view or column."""
    schemas = {r.split(".")[0] for r in published if "." in r}
    problems = []
    for quoted in QUOTED.findall(text):
        match = DOTTED.match(quoted.strip())
        if not match or match.group(1) not in schemas:
            continue
        relation = f"{match.group(1)}.{match.group(2)}"
        if relation not in published:
            problems.append(f"`{quoted}`: no table or view {relation}")
        elif match.group(3):
            problems += [
                f"`{quoted}`: {relation} has no column {name}"
                for name in names_of(match.group(3))
                if not is_among(name, published[relation])
            ]
    return problems


def identifier_problems(text: str, known: set[str], columns: set[str]) -> list[str]:
    """Each quoted snake_case identifier of `text` (alone or in a quoted formula) that is no column nor known."""
    problems = []
    for quoted in QUOTED.findall(text):
        if DOTTED.match(quoted.strip()) or (" " not in quoted and "/" in re.sub(r"/(low|high)\b", "", quoted)):
            continue  # a table's name (checked above) or a path
        for found in IDENTIFIER.findall(quoted):
            problems += [f"`{found}`" for name in names_of(found) if not (is_among(name, columns) or name in known)]
    return problems


def shown_sql(text: str) -> list[str]:
    """The SQL a page shows: each statement of its ```sql blocks, and the SELECT of each `benchbill sql '...'`
    (or "...") and of a connection's `sql("...")`."""
    statements = []
    for block in re.findall(r"```sql\n(.*?)```", text, re.DOTALL):
        statements += [s for s in block.split(";") if re.sub(r"--[^\n]*", "", s).strip()]
    statements += [m[1] for m in re.findall(r"(?:benchbill sql |conn\.sql\()(['\"])(SELECT[^'\"]*)\1", text)]
    return statements


@pytest.fixture(scope="module")
def published() -> dict[str, list[str]]:
    return published_columns()


def test_pages_quote_tables_views_and_columns_that_exist(published):
    problems = [f"{page.name}: {p}" for page in PAGES for p in dotted_problems(page.read_text(), published)]
    assert problems == []


def test_the_pages_about_tables_quote_only_columns_that_exist(published):
    columns = {c for cs in published.values() for c in cs}
    known = set(NOT_COLUMNS) | words_a_column_may_hold() | {r.split(".")[-1] for r in published}
    problems = [
        f"{page.name}: {p}" for page in TABLE_PAGES for p in identifier_problems(page.read_text(), known, columns)
    ]
    assert problems == []


def test_every_not_column_is_still_quoted_and_still_not_a_column(published):
    """An allow-list entry no page quotes any more, or that became a column, is removed (it would hide a mistake)."""
    columns = {c for cs in published.values() for c in cs}
    quoted = " ".join(QUOTED.findall(" ".join(page.read_text() for page in TABLE_PAGES)))
    assert [n for n in NOT_COLUMNS if n in columns or not re.search(rf"\b{n}\b", quoted)] == []


def test_the_sql_the_pages_show_binds_against_the_warehouse():
    conn = empty_warehouse()
    shown = [(page, sql) for page in PAGES for sql in shown_sql(page.read_text())]
    assert len(shown) >= 5
    problems = []
    for page, sql in shown:
        try:
            conn.execute(f"DESCRIBE {sql}", dict.fromkeys(re.findall(r"\$(\w+)", sql)))
        except duckdb.Error as exc:
            problems.append(f"{page.name}: {sql.strip()[:80]!r}: {str(exc).splitlines()[0]}")
    assert problems == []


def test_a_page_naming_a_missing_column_is_caught(published):
    """The rules on a made-up page: what the checks above would have said of the old capacity plan page."""
    page = (
        "`marts.capacity_plan` and `marts.capacity_plans`; `marts.capacity_plan.replicas_low/high`, "
        "`marts.capacity_plan.delivered_low`; `delivered_low/high` and `billed_requests_per_s_low/high`; "
        "`replicas_low = ceil(peak / delivered_high)`; `lower_bound`; `assets/calibrate/fit.py`"
    )
    assert dotted_problems(page, published) == [
        "`marts.capacity_plans`: no table or view marts.capacity_plans",
        "`marts.capacity_plan.delivered_low`: marts.capacity_plan has no column delivered_low",
    ]
    columns = {c for cs in published.values() for c in cs}
    assert identifier_problems(page, words_a_column_may_hold(), columns) == [
        "`delivered_low/high`",
        "`delivered_low/high`",
        "`delivered_high`",
    ]
    assert shown_sql("```sql\nSELECT delivered_low FROM analytics.capacity_plan;\n```") == [
        "SELECT delivered_low FROM analytics.capacity_plan"
    ]
    with pytest.raises(duckdb.BinderException, match="delivered_low"):
        empty_warehouse().execute("DESCRIBE SELECT delivered_low FROM analytics.capacity_plan")
