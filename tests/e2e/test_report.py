"""The HTML report, rendered in a real headless Chromium (Debian's /usr/bin/chromium, installed by
`make test` when it runs as root; or the one CHROMIUM names): charts visible, numbers equal to the shortlist
table's, nothing fetched from anywhere. Without a browser the tests are skipped when not root (who cannot install
one) and fail as root (CI, where `make test` installs it)."""

import os
import re
from pathlib import Path

import duckdb
import pytest

from assets.report.decision import config_name
from assets.report.decision_glance import BASIS_WORDS, band_error_text
from assets.report.evidence_marks import billed_evidence, data_value
from assets.report.profile_sections import REPORT_COLUMNS
from assets.report.textformat import range_text, shortlist_cell, shows_quality
from pipelines.cli import main
from tests.support.data import REPO_ROOT
from tests.support.report_html import (
    assert_each_caveat_once_per_table,
    assert_no_absolute_machine_path,
    assert_rows_in_the_stated_order,
)

CHROMIUM = Path(os.environ.get("CHROMIUM") or "/usr/bin/chromium")
NO_CHROMIUM = (
    f"no Chromium at {CHROMIUM}: the report test needs one. Install Debian's as root (`apt-get install chromium`, "
    "which `make test` does when run as root), or set CHROMIUM=/path/to/chromium"
)
ARTIFACTS = REPO_ROOT / "test-artifacts"
# The machine's notes: no sandbox as root, and no background traffic to Google's hosts.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


WINDOW_PX = 1600
SCIENTIFIC = re.compile(r"\b\d+(\.\d+)?[eE][-+]\d+")  # 1e-05, 1.28e+20 (a hex digest is not)


@pytest.fixture(scope="module")
def published(make_run_published):
    """The warehouse of `make run`'s profiles (tests/conftest.py, built once per test run): chat-8b on the real
    Azure conversation trace scaled to 12M requests a day, against what we run today (the vllm sweep); chat-70b
    from a stated mean and peak-to-mean (no log to draw)."""
    return make_run_published


def query(published, sql):
    with duckdb.connect(str(published / "serving.duckdb"), read_only=True) as conn:
        cursor = conn.execute(sql)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]


@pytest.fixture(scope="module")
def chromium() -> Path:
    """The browser; without one, a skip when not root (who cannot install it) and a failure as root (CI, where
    `make test` installs it)."""
    if not os.access(CHROMIUM, os.X_OK):
        if os.geteuid() != 0:
            pytest.skip(NO_CHROMIUM)
        pytest.fail(NO_CHROMIUM)
    return CHROMIUM


@pytest.fixture(scope="module")
def page(chromium, published, tmp_path_factory):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch_persistent_context(
            user_data_dir=str(tmp_path_factory.mktemp("chromium-profile")),
            executable_path=str(chromium),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": WINDOW_PX, "height": 1000},
        )
        page = browser.new_page()
        requests = []
        page.on("request", lambda request: requests.append(request.url))
        page.goto((published / "report.html").as_uri(), wait_until="load")
        page.requests = requests
        yield page
        browser.close()


def shortlist_rows(published):
    with duckdb.connect(str(published / "serving.duckdb"), read_only=True) as conn:
        cursor = conn.execute("SELECT * FROM marts.config_shortlist")
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]


def test_the_report_renders_with_its_charts_visible(page):
    ARTIFACTS.mkdir(exist_ok=True)
    screenshot = ARTIFACTS / "report.png"
    page.screenshot(path=str(screenshot), full_page=True)
    page.locator("#profile-chat-8b-interactive .charts").screenshot(path=str(ARTIFACTS / "report-charts.png"))
    assert screenshot.stat().st_size > 100_000
    charts = page.locator("svg.chart")
    # per profile its alternatives' bands; chat-8b: capacity, 2 runs x 2 bounded latencies, costs; chat-70b: costs
    assert charts.count() == 9
    for i in range(charts.count()):
        chart = charts.nth(i)
        box = chart.bounding_box()
        assert chart.is_visible() and box["width"] >= 500 and box["height"] >= 100, i
        assert chart.locator("circle.point, g.range-row rect, g.band-row rect").count() > 0, i
    assert page.locator("tr.shortlist-row").first.is_visible()


def test_the_report_numbers_equal_the_shortlist_table(page, published):
    shown = page.evaluate("""() => [...document.querySelectorAll('tr.shortlist-row')].map(tr => ({
        key: [tr.dataset.profile, tr.dataset.configKey, tr.dataset.priceClass, tr.dataset.priceProvider],
        cells: [...tr.querySelectorAll('td')].map(td => td.innerText.trim()),
        values: Object.fromEntries([...tr.querySelectorAll('[data-column]')]
                                   .map(s => [s.dataset.column, s.dataset.value])),
        evidence: [...tr.querySelectorAll('td')].map(td => td.dataset.evidence || null)}))""")
    rows = shortlist_rows(published)
    assert len(shown) == len(rows) == 49
    by_key = {tuple(s["key"]): s for s in shown}
    columns = [c for c in REPORT_COLUMNS if c[1] != "quality_status" or shows_quality(rows)]
    for row in rows:
        cell = by_key[(row["profile"], row["config_key"], row["price_class"] or "", row["price_provider"] or "")]
        expected_text = [shortlist_cell(row, source, fmt) for _t, source, fmt, _e in columns]
        assert cell["cells"][1 : 1 + len(columns)] == expected_text
        for column, value in cell["values"].items():
            assert value == data_value(row[column]), column
            assert row[column] is None or float(value) == row[column], column
        # a delivered number is of its row's class, a billed band of the class it bills on (calibrated, say)
        expected_evidence = [
            (billed_evidence(row) if str(source[0]).startswith("billed_") else row["evidence"])
            if ev == "delivered"
            else ev
            for _t, source, _f, ev in columns
        ]
        assert cell["evidence"][1 : 1 + len(columns)] == expected_evidence


def test_the_charts_mark_the_slo_the_mlperf_reference_and_the_cost_bands(page, published):
    with duckdb.connect(str(published / "serving.duckdb"), read_only=True) as conn:
        bounds = dict(
            conn.execute(
                "SELECT measure, bound FROM analytics.slo_bounds WHERE profile = 'chat-8b-interactive'"
            ).fetchall()
        )
        reference = conn.execute(  # the profile's scenario (Server here: H100 published no Interactive result)
            "SELECT coalesce(p.reference_tokens_per_s_per_accel, r.server_tokens_per_s_per_accel) "
            "FROM analytics.mlperf_reference AS r LEFT JOIN benchmark.mlperf_profile_reference AS p "
            "ON p.accelerator_id = r.accelerator_id AND p.model_id = r.model_id AND p.profile = 'chat-8b-interactive' "
            "WHERE r.accelerator_id = 'nvidia-h100-sxm-80gb' AND r.model_id = 'llama-3.1-8b-instruct'"
        ).fetchone()[0]
        points = conn.execute("SELECT count(*) FROM analytics.load_points WHERE run_label = 'vllm'").fetchone()[0]
        costs = {
            (r[0], r[1], r[2]): (r[3], r[4])
            for r in conn.execute(
                "SELECT config_key, price_class, price_provider, cost_per_request_usd_low, cost_per_request_usd_high "
                "FROM marts.config_shortlist WHERE cost_per_request_usd_low IS NOT NULL"
            ).fetchall()
        }
    latency = page.evaluate("""() => [...document.querySelectorAll('svg[data-measure]')].map(svg => ({
        measure: svg.dataset.measure, slo: svg.querySelector('line.slo').dataset.value,
        server: svg.querySelector('line.mlperf-server, line.mlperf-interactive').dataset.value,
        points: svg.querySelectorAll('circle.point').length}))""")
    assert sorted(c["measure"] for c in latency) == sorted(["tpot_p95_ms", "ttft_p95_ms"] * 2)
    for chart in latency:
        assert float(chart["slo"]) == bounds[chart["measure"]] and float(chart["server"]) == reference
        assert chart["points"] == points
    bars = page.evaluate("""() => [...document.querySelectorAll('g.range-row')].map(g => [
        g.dataset.configKey, g.dataset.priceClass, g.dataset.priceProvider, g.dataset.low, g.dataset.high])""")
    shown_per_1000 = {(k, c, p): (float(lo), float(hi)) for k, c, p, lo, hi in bars}
    assert shown_per_1000 == {key: pytest.approx((lo * 1000, hi * 1000)) for key, (lo, hi) in costs.items()}


def test_the_report_opens_from_disk_without_the_network(page, published):
    assert page.requests == [(published / "report.html").as_uri()]
    html = (published / "report.html").read_text()
    assert "<script" not in html and not re.search(r"""(src|href)=["']?(https?:)?//""", html)
    assert "url(" not in html and "@import" not in html


def test_benchbill_report_rewrites_it_from_the_serving_file(published, tmp_path, capsys):
    target = tmp_path / "decision.html"
    assert main(["report", "--warehouse", str(published), "--output", str(target)]) == 0
    assert f"report: {target}" in capsys.readouterr().out
    assert 'class="shortlist-row"' in target.read_text()
    assert main(["report", "--warehouse", str(tmp_path / "none")]) == 1
    assert "run `benchbill run` first" in capsys.readouterr().err


def test_the_report_leads_with_the_decision_per_profile(page, published):
    capacity = query(published, "SELECT * FROM marts.capacity_plan WHERE monthly_usd_high IS NOT NULL")
    read_lines = """() => [...document.querySelectorAll('.decision-line')].map(e => ({
        profile: e.closest('.decision').dataset.profile, line: e.dataset.line, text: e.innerText,
        visible: e.checkVisibility(), top: e.getBoundingClientRect().top + window.scrollY,
        folded: e.closest('details.reasoning') !== null, data: {...e.dataset}}))"""
    # the reasoning is folded under each profile's glance, out of sight until opened; warnings stay in sight
    folded = page.evaluate(read_lines)
    assert folded and all(
        (line["visible"], line["folded"]) == ((True, False) if line["line"] == "warning" else (False, True))
        for line in folded
    )
    page.evaluate("() => document.querySelectorAll('details.reasoning').forEach(d => { d.open = true; })")
    lines = page.evaluate(read_lines)
    first_detail = page.evaluate("() => document.querySelector('#detail').getBoundingClientRect().top + window.scrollY")
    assert lines and all(line["visible"] and line["top"] < first_detail for line in lines)
    by_profile = {(line["profile"], line["line"]): line for line in lines}
    assert {p for p, _l in by_profile} == {"chat-8b-interactive", "chat-70b-interactive"}
    for profile in ("chat-8b-interactive", "chat-70b-interactive"):
        # what the token mix and the bursts cost: only where a calibrated engine model covers a top config (our runs)
        cost = {"cost-sensitivity"} if profile == "chat-8b-interactive" else set()
        shown = {line for p, line in by_profile if p == profile}
        assert shown - {"measure-elsewhere"} == {"recommended", "saving", "projected", "measure-next"} | cost
        # projected top configs: which fraction of the MLPerf reference their band applies
        (basis,) = {
            r["delivered_fraction_basis"] for r in capacity if r["profile"] == profile and r["evidence"] == "projected"
        }
        assert by_profile[(profile, "projected")]["text"].endswith(f"a delivered fraction, {basis}.")
    assert "if prompts double:" in by_profile[("chat-8b-interactive", "cost-sensitivity")]["text"]
    # chat-8b: the measured config with the lowest monthly bill (high end, then low; a tie to the baseline, then the
    # config key: both runs may be one config billed on its band calibrated on the trace) is recommended, with its bill
    observed = [r for r in capacity if r["profile"] == "chat-8b-interactive" and r["evidence"] == "observed"]
    best = min(
        observed,
        key=lambda r: (
            r["monthly_usd_high"],
            r["monthly_usd_low"],
            not r["is_baseline"],
            r["config_key"],
            r["price_class"],
        ),
    )
    recommended = by_profile[("chat-8b-interactive", "recommended")]
    assert float(recommended["data"]["monthlyUsdHigh"]) == best["monthly_usd_high"]
    assert recommended["data"]["configKey"] == best["config_key"] and best["run_label"] in recommended["text"]
    assert f"{best['monthly_usd_high']:,.0f} USD a month" in recommended["text"]
    # the trace's prompts and bursts are not the sweep's: the bill rests on the calibrated band and says so
    assert best["billed_basis"] == "calibrated"
    billed = range_text(best["billed_requests_per_s_low"], best["billed_requests_per_s_high"], "rate", " to ")
    error = 100 * best["calibrated_band_rel_error"]
    said = f"billed on the band calibrated on our traffic, {billed} requests/s (band error +-{error:.1f}%; engine "
    assert said in recommended["text"]
    assert (
        f"{best['replicas_high'] * best['accelerator_count'] * best['usd_per_accelerator_hour'] * 730:,.0f}"
        in (recommended["text"])
    )
    # the saving against what we run today, as the issue words it; or, when what we run today ranks first, keep it
    saving = by_profile[("chat-8b-interactive", "saving")]["text"]
    if best["run_label"] == "vllm":
        assert saving.startswith("Against what we run today: keep vllm: no config saves money at this volume; ")
    else:
        assert saving.startswith(f"Against what we run today: moving from vllm to {best['run_label']} on ")
        assert f"{best['monthly_saving_usd_high']:,.0f} USD a month" in saving
        assert saving.endswith("at our volume, on this evidence (observed).")
        if best["autoscaled_monthly_saving_usd_high"] is not None:  # a traffic log: the saving when autoscaled too
            assert f"{best['autoscaled_monthly_saving_usd_high']:,.0f} USD a month autoscaled)" in saving
    # the report's "At a glance" row of each profile is the decision's config at its price
    glance = page.evaluate("""() => [...document.querySelectorAll('tr.glance-row')].map(tr => ({...tr.dataset}))""")
    decided = {line["profile"]: line["data"] for line in lines if line["line"] == "recommended"}
    assert {g["profile"] for g in glance} == set(decided)
    for row in glance:
        want = decided[row["profile"]]
        assert (row["configKey"], row["priceClass"], row["priceProvider"]) == (
            want["configKey"],
            want["priceClass"],
            want["priceProvider"],
        )
        assert page.locator(f'tr.glance-row[data-profile="{row["profile"]}"]').is_visible()
    # chat-70b has no run of ours: its projected recommendation says to measure before buying; no baseline stated
    assert "measure it before buying" in by_profile[("chat-70b-interactive", "recommended")]["text"]
    assert "no baseline stated" in by_profile[("chat-70b-interactive", "saving")]["text"]


def test_the_capacity_chart_draws_our_traffic_against_each_top_configs_capacity(page, published):
    windows = query(
        published,
        "SELECT window_start_s, scaled_rate_per_s FROM requirement.traffic_rate "
        "WHERE profile = 'chat-8b-interactive' ORDER BY 1",
    )
    capacity = query(
        published,
        "SELECT * FROM analytics.capacity_plan WHERE profile = 'chat-8b-interactive' AND monthly_usd_high IS NOT NULL",
    )
    chart = page.locator('svg[data-chart="capacity"][data-profile="chat-8b-interactive"]')
    assert chart.count() == 1 and chart.is_visible()
    box = chart.bounding_box()
    assert box["width"] >= 1000 and box["height"] >= 300
    first_detail = page.evaluate("() => document.querySelector('#detail').getBoundingClientRect().top + window.scrollY")
    assert box["y"] + page.evaluate("() => window.scrollY") < first_detail
    points = chart.evaluate("svg => [...svg.querySelectorAll('circle.point')].map(c => [+c.dataset.x, +c.dataset.y])")
    assert points == [pytest.approx((w["window_start_s"] / 60, w["scaled_rate_per_s"])) for w in windows]
    lines = chart.evaluate("svg => [...svg.querySelectorAll('line.capacity')].map(l => +l.dataset.value)")
    first_ranked = {}  # each config at its first-ranked price, in the profile's one ranking
    for row in sorted(capacity, key=lambda r: r["rank_in_profile"]):
        first_ranked.setdefault(row["config_key"], row)
    expected = [r["replicas_high"] * r["billed_requests_per_s_low"] for r in list(first_ranked.values())[:5]]
    assert lines == pytest.approx(expected)
    assert max(lines) >= max(w["scaled_rate_per_s"] for w in windows)  # the plan covers our peak
    # each line labelled with the evidence class of the band it bills on; lines drawn within 3 px told apart
    drawn = chart.evaluate("""svg => [...svg.querySelectorAll('line.capacity')].map(l => ({
        value: +l.dataset.value, dash: l.getAttribute('stroke-dasharray') || '', label: l.textContent}))""")
    for line, row in zip(drawn, list(first_ranked.values())[:5]):
        assert f"({BASIS_WORDS[billed_evidence(row)]})" in line["label"], line["label"]
    for i, line in enumerate(drawn):
        near = [earlier for earlier in drawn[:i] if abs(earlier["value"] - line["value"]) <= 0.015 * max(lines)]
        assert all(earlier["dash"] != line["dash"] for earlier in near)
        assert ("coincides with" in line["label"]) == bool(near)


def test_nothing_overflows_a_1600_px_window_and_no_number_is_in_scientific_notation(page):
    assert page.evaluate("() => document.documentElement.scrollWidth") <= WINDOW_PX
    wide = page.evaluate(
        """(limit) => [...document.querySelectorAll('table, svg, p, div, section')]
            .filter(e => e.getBoundingClientRect().right > limit).map(e => e.tagName + '.' + e.className)""",
        WINDOW_PX,
    )
    assert wide == []
    text = page.evaluate("() => document.body.innerText")
    assert not SCIENTIFIC.search(text), SCIENTIFIC.search(text)
    assert "USD per 1,000 requests" in text


def test_the_first_profiles_headline_is_in_sight_without_scrolling_in_a_1280_by_800_window(page, published):
    """The signer's answer (config, replicas, monthly bill band, the evidence class of the band it bills on and that
    band's error) is within the first screen of a laptop window."""
    first = query(published, "SELECT profile FROM analytics.profiles LIMIT 1")[0]["profile"]
    [row] = query(
        published,
        f"SELECT * FROM analytics.capacity_plan WHERE profile = '{first}' AND rank_in_profile = 1",
    )
    laptop = page.context.new_page()
    try:
        laptop.set_viewport_size({"width": 1280, "height": 800})
        laptop.goto((published / "report.html").as_uri(), wait_until="load")
        assert laptop.locator(".decision").first.get_attribute("data-profile") == first
        headline = laptop.locator(f'.decision[data-profile="{first}"] .headline')
        box = headline.bounding_box()
        assert headline.is_visible() and box["y"] >= 0 and box["y"] + box["height"] <= 800, box
        text = " ".join(headline.inner_text().split())
    finally:
        laptop.close()
    assert config_name(row) in text
    assert range_text(row["replicas_low"], row["replicas_high"], "count", " to ") + " replica" in text
    assert range_text(row["monthly_usd_low"], row["monthly_usd_high"], "usd_per_month", " to ") + " USD a month" in text
    evidence = billed_evidence(row)
    assert text.count(evidence) >= 1 and f"billed on the band {BASIS_WORDS[evidence]}" in text
    assert band_error_text(row) in text


def test_each_caveat_is_written_once_per_table_and_the_headings_say_the_rows_order(published):
    assert assert_each_caveat_once_per_table(published) >= 5
    assert_rows_in_the_stated_order(published)


def test_the_report_names_no_absolute_path_of_this_machine(published):
    """The warehouse, the dumps and the trace are under pytest's temporary folder and ../shared: none is named."""
    assert_no_absolute_machine_path(published, REPO_ROOT)
    assert "<code>serving.duckdb</code>" in (published / "report.html").read_text()
