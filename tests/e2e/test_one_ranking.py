"""One ranking on every surface: the decision's recommended config is the first row of the terminal table, the
report's "At a glance", analytics.shortlist and analytics.capacity_plan (rank_in_profile 1) and `benchbill sql
shortlist`, on every profile of `make run`'s inputs (examples/run-profiles.yaml: chat-8b on the real Azure trace,
chat-70b on a stated volume) and of the tests' shared warehouse (the bundled profiles); without a volume every
surface agrees on the lowest cost per request. `make run`'s report draws our traffic against the top configs'
capacity and states the autoscaled bill."""

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import duckdb

from assets.report.decision import decide
from assets.report.terminal_shortlist import format_shortlist
from pipelines.cli import main
from pipelines.published_output import read_shortlist
from tests.support.data import REPO_ROOT
from tests.support.report_html import (
    assert_each_caveat_once_per_table,
    assert_no_absolute_machine_path,
    assert_rows_in_the_stated_order,
)


def dicts(warehouse: Path, sql: str) -> list[dict]:
    with duckdb.connect(str(warehouse / "serving.duckdb"), read_only=True) as conn:
        cursor = conn.execute(sql)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]


class GlanceRows(HTMLParser):
    """The report's "At a glance" rows: (profile, config_key, price_class, price_provider)."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[tuple[str, ...]] = []

    def handle_starttag(self, tag, attrs):
        found = dict(attrs)
        if tag == "tr" and found.get("class") == "glance-row":
            self.rows.append(
                tuple(
                    found[k] or ""
                    for k in ("data-profile", "data-config-key", "data-price-class", "data-price-provider")
                )
            )


def terminal_first_rows(warehouse: Path) -> dict[str, str]:
    """Per profile, the first table row the terminal prints (`benchbill run`'s shortlist), its cells joined."""
    rows, slo_text, notes, _quarantine = read_shortlist(warehouse / "serving.duckdb")
    text = format_shortlist(rows, slo_text, notes=notes, wide=True)  # every column, the names whole
    firsts: dict[str, str] = {}
    profile = None
    lines = text.splitlines()
    for i, line in enumerate(lines):
        heading = re.match(r"^(\S+): top \d+ of \d+ configs", line)
        if heading:
            profile = heading.group(1)
        elif profile and line.startswith("--") and profile not in firsts:
            firsts[profile] = " ".join(lines[i + 1].split())
    return firsts


def surfaces_agree(warehouse: Path, capsys) -> dict[str, tuple]:
    """Asserts every surface's first row is the decision's config, per profile; returns each profile's key."""
    profiles = [r["profile"] for r in dicts(warehouse, "SELECT profile FROM analytics.profiles")]
    shortlist = dicts(warehouse, "SELECT * FROM analytics.shortlist WHERE rank_in_profile = 1")
    capacity = dicts(warehouse, "SELECT * FROM analytics.capacity_plan")
    parser = GlanceRows()
    parser.feed((warehouse / "report.html").read_text())
    glance = {row[0]: row for row in parser.rows}
    terminal = terminal_first_rows(warehouse)
    keys = {}
    for profile in profiles:
        first = next(r for r in shortlist if r["profile"] == profile)
        key = (profile, first["config_key"], first["price_class"], first["price_provider"])
        decision = decide(profile, [c for c in capacity if c["profile"] == profile], [])
        if decision.recommended is not None:  # a volume: the decision's config is the first row
            recommended = decision.recommended
            assert (
                profile,
                recommended["config_key"],
                recommended["price_class"],
                recommended["price_provider"],
            ) == key
            plan_first = min((c for c in capacity if c["profile"] == profile), key=lambda c: c["rank_in_profile"])
            assert plan_first["rank_in_profile"] == 1
            assert (profile, plan_first["config_key"], plan_first["price_class"], plan_first["price_provider"]) == key
            others = [c for c in capacity if c["profile"] == profile and c["monthly_usd_high"] is not None]
            observed = [c for c in others if c["evidence"] == "observed"]
            best = min(observed or others, key=lambda c: (c["monthly_usd_high"], c["monthly_usd_low"]))
            assert (recommended["monthly_usd_high"], recommended["monthly_usd_low"]) == (
                best["monthly_usd_high"],
                best["monthly_usd_low"],
            )
        else:  # no volume: the lowest cost per request (high end) among our runs, else among projections
            priced = dicts(
                warehouse,
                f"SELECT * FROM analytics.shortlist WHERE profile = '{profile}' "
                "AND cost_per_request_usd_high IS NOT NULL AND quality_status <> 'fails'",
            )
            observed = [r for r in priced if r["evidence"] == "observed"]
            assert first["cost_per_request_usd_high"] == min(r["cost_per_request_usd_high"] for r in observed or priced)
        assert glance[profile] == (
            profile,
            first["config_key"],
            first["price_class"] or "",
            first["price_provider"] or "",
        )
        assert terminal[profile].startswith(
            f"1 {first['accelerator_count']}x {first['accelerator_id']} {first['run_label'] or first['evidence']} "
        )
        capsys.readouterr()
        assert (
            main(
                ["sql", "shortlist", "--param", f"profile={profile}", "--format", "json", "--warehouse", str(warehouse)]
            )
            == 0
        )
        sql_first = json.loads(capsys.readouterr().out)[0]
        assert sql_first["rank_in_profile"] == 1
        assert (
            sql_first["accelerator_id"],
            sql_first["run_label"],
            sql_first["price_class"],
            sql_first["price_provider"],
        ) == (
            first["accelerator_id"],
            first["run_label"],
            first["price_class"],
            first["price_provider"],
        )
        keys[profile] = key
    return keys


def test_every_surface_ranks_the_make_run_profiles_as_the_decision(make_run_published, capsys):
    assert set(surfaces_agree(make_run_published, capsys)) == {"chat-8b-interactive", "chat-70b-interactive"}


def test_make_runs_report_draws_the_real_trace_against_capacity_and_the_autoscaled_bill(make_run_published):
    html = (make_run_published / "report.html").read_text()
    assert 'data-chart="capacity"' in html and 'data-profile="chat-8b-interactive"' in html
    [shape] = dicts(
        make_run_published,
        "SELECT windows, requests_per_day FROM requirement.traffic_shape WHERE profile = 'chat-8b-interactive'",
    )
    windows, scale = shape["windows"], shape["requests_per_day"]
    assert windows == 58 and scale == 12_000_000  # the trace's 58 whole minutes, at the stated volume
    recommended = dicts(
        make_run_published,
        "SELECT * FROM analytics.capacity_plan WHERE profile = 'chat-8b-interactive' AND rank_in_profile = 1",
    )[0]
    assert recommended["autoscaled_monthly_usd_high"] is not None
    assert "autoscaled)" in html


def test_make_runs_report_lists_each_caveat_once_per_table_in_the_stated_order_naming_no_machine_path(
    make_run_published,
):
    """On `make run`'s profiles: each shortlist caveat written once under its table, marked on the rows it applies
    to, and no caveat text twice in any table; every shortlist heading states the ranking its rows are in; the page
    names no absolute path of this machine (the trace it reads is an absolute path under ../shared)."""
    assert assert_each_caveat_once_per_table(make_run_published) >= 10
    assert_rows_in_the_stated_order(make_run_published)
    assert_no_absolute_machine_path(make_run_published, REPO_ROOT)


def test_every_surface_ranks_the_tests_profiles_as_the_decision(published, capsys):
    keys = surfaces_agree(published, capsys)
    assert set(keys) == {"chat-8b-interactive", "chat-70b-interactive"}
