"""What a published report.html says, read back for the tests: each table's text, each shortlist's rows with their
caveat marks and the caveats listed under it, and the checks every report must pass (each caveat once per table,
rows in the order their heading states, no absolute machine path)."""

import html
import re
from pathlib import Path

import duckdb

from assets.report.decision_glance import RANKING_WORDS
from assets.report.profile_sections import row_caveats

TAGS = re.compile(r"<[^>]+>")
SHORTLIST = re.compile(
    r'<section class="profile" id="profile-[^"]*" data-profile="([^"]*)">.*?<h3>Shortlist \((\d+) [^<]*\), '
    r'([^<]*)</h3><table class="shortlist">(.*?)</table>(?:<p class="muted">Caveats[^<]*</p><ol class="caveats">'
    r"(.*?)</ol>)?",
    re.S,
)
ROW = re.compile(
    r'<tr class="shortlist-row" data-profile="[^"]*" data-config-key="([^"]*)" data-price-class="([^"]*)" '
    r'data-price-provider="([^"]*)" data-rank="(\d+)">.*?<td class="caveat-marks">([^<]*)</td></tr>',
    re.S,
)
LISTED = re.compile(r'<li value="(\d+)">(.*?)</li>', re.S)


def text_of(fragment: str) -> str:
    """The text of an HTML fragment, tags dropped and entities decoded."""
    return html.unescape(TAGS.sub(" ", fragment))


def numbers(marks: str) -> set[int]:
    """The caveat numbers a row's marks name (`1,3-5`, as textformat.number_list writes them; `-` for none)."""
    found: set[int] = set()
    for part in marks.split(","):
        if part == "-":
            continue
        low, _, high = part.partition("-")
        found.update(range(int(low), int(high or low) + 1))
    return found


def shortlists(report: str) -> dict[str, dict]:
    """Per profile: the shortlist heading's stated order, its rows ((config_key, price_class, price_provider),
    rank, caveat numbers) in page order, and its listed caveats {number: text}."""
    found = {}
    for profile, count, order, table, listed in SHORTLIST.findall(report):
        rows = [
            ((key, cls, provider), int(rank), numbers(marks)) for key, cls, provider, rank, marks in ROW.findall(table)
        ]
        assert len(rows) == int(count), profile
        caveats = {int(n): text_of(text) for n, text in LISTED.findall(listed or "")}
        found[profile] = {"order": order, "rows": rows, "caveats": caveats, "table": text_of(table)}
    return found


def rows_of(warehouse: Path, sql: str) -> list[dict]:
    with duckdb.connect(str(warehouse / "serving.duckdb"), read_only=True) as conn:
        cursor = conn.execute(sql)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]


def assert_each_caveat_once_per_table(warehouse: Path) -> int:
    """Every caveat of a shortlist row is listed once under its profile's table and marked on exactly the rows it
    applies to; no table of the report holds a caveat's text twice. Returns how many caveats are listed."""
    report = (warehouse / "report.html").read_text()
    tables = shortlists(report)
    shortlist = rows_of(warehouse, "SELECT * FROM analytics.shortlist")
    assert set(tables) == {r["profile"] for r in shortlist}
    listed = 0
    for profile, table in tables.items():
        texts = list(table["caveats"].values())
        assert len(texts) == len(set(texts)), profile  # each caveat once in the list
        listed += len(texts)
        by_key = {(r["config_key"], r["price_class"] or "", r["price_provider"] or ""): r for r in shortlist}
        for key, _rank, marked in table["rows"]:
            assert {table["caveats"][n] for n in marked} == set(row_caveats(by_key[key])), key
    every = {c for r in shortlist for c in row_caveats(r)}
    for number, table in enumerate(re.findall(r"<table.*?</table>", report, re.S)):
        text = text_of(table)
        repeated = [c for c in every if text.count(c) > 1]
        assert repeated == [], (number, repeated[:3])
    return listed


def assert_rows_in_the_stated_order(warehouse: Path) -> None:
    """Each shortlist and capacity plan heading states the profile's ranking, and its rows are in it: the capacity
    plan's ranks ascending; the shortlist's 1, 2, ... and, among its rows priced and not failing a quality
    requirement, our runs before projections, then the monthly bill at our volume (high end, then low) where the
    profile states one, else the cost per request (high end, then low)."""
    report = (warehouse / "report.html").read_text()
    tables = shortlists(report)
    plan = {
        (r["profile"], r["config_key"], r["price_class"], r["price_provider"]): r
        for r in rows_of(warehouse, "SELECT * FROM analytics.capacity_plan")
    }
    shortlist = rows_of(warehouse, "SELECT * FROM analytics.shortlist")
    by_key = {(r["profile"], r["config_key"], r["price_class"] or "", r["price_provider"] or ""): r for r in shortlist}
    for section in re.findall(r'<section class="profile".*?</section>', report, re.S):
        plan_heading = re.search(r"<h3>Capacity plan at our volume \(\d+ [^<]*\), ([^<]*)</h3>", section)
        if plan_heading:  # the capacity plan's rows, in the same ranking
            assert plan_heading.group(1) == RANKING_WORDS
            ranks = [int(r) for r in re.findall(r'<tr class="capacity-row" [^>]*data-rank="(\d+)"', section)]
            assert ranks == sorted(ranks) and ranks, section[:80]
    for profile, table in tables.items():
        assert table["order"] == RANKING_WORDS
        assert [rank for _k, rank, _c in table["rows"]] == list(range(1, len(table["rows"]) + 1))
        ranked = [by_key[(profile, *key)] for key, _r, _c in table["rows"]]
        ranked = [r for r in ranked if r["cost_per_request_usd_high"] is not None and r["quality_status"] != "fails"]
        keys = []
        for r in ranked:
            bill = plan.get((profile, r["config_key"], r["price_class"], r["price_provider"])) or {}
            if bill.get("monthly_usd_high") is not None:
                keys.append((r["evidence"] != "observed", bill["monthly_usd_high"], bill["monthly_usd_low"]))
            else:
                keys.append(
                    (r["evidence"] != "observed", r["cost_per_request_usd_high"], r["cost_per_request_usd_low"])
                )
        assert keys == sorted(keys), profile


def assert_no_absolute_machine_path(warehouse: Path, repository: Path) -> None:
    """The report names no absolute path of this machine: not the warehouse's, not the repository's, nothing under
    /tmp/, /home/ or /work/."""
    report = (warehouse / "report.html").read_text()
    for path in (str(warehouse.resolve()), str(warehouse), str(repository.resolve()), "/tmp/", "/home/", "/work/"):
        assert path not in report, path
