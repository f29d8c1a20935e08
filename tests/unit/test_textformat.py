"""Numbers as text (assets/report/textformat.py): money per 1,000 requests, per 1M tokens and per month, query
values, and the terminal shortlist (one row per config, caveats numbered once, folded to the width)."""

import math
import re

import pytest

from assets.report.terminal_shortlist import config_rows, format_shortlist
from assets.report.textformat import (
    align_rows,
    number_list,
    number_text,
    plain_number,
    range_text,
    value_text,
)
from tests.support.data import REPO_ROOT

SCIENTIFIC = re.compile(r"\b\d+(\.\d+)?[eE][-+]\d+")  # 1e-05, 1.28e+20 (a hex digest is not)


@pytest.mark.parametrize(
    ("value", "kind", "text"),
    [
        (3.2408e-06, "usd_per_1k_requests", "0.00324"),  # USD per request x 1,000, 3 significant digits
        (0.0123, "usd_per_1k_requests", "12.30"),  # never fewer than 2 decimals
        (0.05189, "usd_per_1m_tokens", "0.0519"),
        (1.787, "usd_per_1m_tokens", "1.79"),
        (1234567.4, "usd_per_month", "1,234,567"),  # whole dollars, thousands separated
        (949.0, "usd_per_month", "949"),
        (12.29, "usd_per_hour", "12.29"),
        (1.3, "usd_per_hour", "1.30"),
        (91.3612, "rate", "91.36"),
        (1609.93, "rate", "1,610"),
        (5103.99, "tokens", "5,104"),
        (1.1234, "fraction", "1.12"),
        (0.456, "percent", "46"),
        (None, "rate", "-"),
    ],
)
def test_each_kind_of_number_has_one_written_form(value, kind, text):
    assert number_text(value, kind) == text


def test_a_range_shares_the_decimals_of_its_smaller_end():
    assert range_text(7.996e-06, 1.5355e-05, "usd_per_1k_requests") == "0.00800 - 0.01536"
    assert range_text(82.87, 132.59, "rate", dash="-") == "82.87-132.59"
    assert range_text(12345.6, 23456.7, "usd_per_month") == "12,346 - 23,457"
    assert range_text(1.3, 1.3, "usd_per_hour") == "1.30"  # both ends read the same: one value
    assert range_text(None, None, "rate") == "-" and range_text(None, 2.0, "rate") == "? - 2.000"


@pytest.mark.parametrize("exponent", range(-12, 16))
def test_plain_numbers_are_never_in_scientific_notation(exponent):
    value = 1.2345678 * 10.0**exponent
    text = plain_number(value)
    assert not SCIENTIFIC.search(text) and "e" not in text
    assert float(text.replace(",", "")) == pytest.approx(value, rel=1e-5)  # 6 significant digits kept


def test_query_values_read_plainly():
    assert value_text(1.28e-05) == "0.0000128"
    assert value_text(5103.99) == "5,103.99"
    assert value_text(None) == "NULL" and value_text(math.nan) == "NaN" and value_text(7) == "7"


def test_a_header_cell_may_span_two_lines_and_numbers_align_right():
    lines = align_rows(["#", "$ per 1k\nrequests"], [["1", "0.00324"], ["2", "12.30"]], [False, True])
    assert lines == ["   $ per 1k", "#  requests", "-  --------", "1   0.00324", "2     12.30"]


def shortlist_row(config, price_class, provider, usd_per_hour, rate, caveats, **extra):
    """A marts.config_shortlist row: one config (1 accelerator) x one price, its costs from the price."""
    return {
        "profile": "chat",
        "config_key": config,
        "accelerator_id": "nvidia-h100-sxm-80gb",
        "accelerator_count": 1,
        "run_label": config,
        "evidence": "observed",
        "precision": "bf16",
        "mlperf_server_tokens_per_s_per_accel": 5103.99,
        "measured_requests_per_s_low": rate,
        "measured_requests_per_s_high": rate * 1.1,
        "billed_requests_per_s_low": rate,
        "billed_requests_per_s_high": rate * 1.1,
        "billed_basis": "measured",
        "delivered_fraction_low": 1.1,
        "delivered_fraction_high": 1.2,
        "price_class": price_class,
        "price_provider": provider,
        "usd_per_accelerator_hour": usd_per_hour,
        "cost_per_request_usd_low": usd_per_hour / (rate * 1.1 * 3600),
        "cost_per_request_usd_high": usd_per_hour / (rate * 3600),
        "cost_per_million_output_tokens_usd_low": usd_per_hour / (rate * 1.1 * 64 * 3600) * 1e6,
        "cost_per_million_output_tokens_usd_high": usd_per_hour / (rate * 64 * 3600) * 1e6,
        "caveats": caveats,
        **extra,
    }


def marts_order(rows):
    return sorted(rows, key=lambda r: (r["cost_per_request_usd_high"], r["price_class"], r["price_provider"]))


ROWS = marts_order(
    [
        shortlist_row("fast", "on_demand", "Lambda", 2.99, 100.0, "precision differs: MLPerf fp8, ours bf16"),
        shortlist_row("fast", "on_demand", "AWS", 12.29, 100.0, "precision differs: MLPerf fp8, ours bf16"),
        shortlist_row("fast", "spot", "Crusoe", 3.50, 100.0, "precision differs: MLPerf fp8, ours bf16"),
        shortlist_row(
            "slow", "on_demand", "Lambda", 2.99, 50.0, "precision differs: MLPerf fp8, ours bf16; token mix differs"
        ),
    ]
)


def test_one_row_per_config_at_its_cheapest_price_class_ranged_across_its_providers():
    fast, slow = config_rows(ROWS)
    assert (fast["config_key"], fast["price_class"], fast["price_providers"]) == (
        "fast",
        "on_demand",
        ["Lambda", "AWS"],
    )
    assert (fast["usd_per_accelerator_hour_low"], fast["usd_per_accelerator_hour_high"]) == (2.99, 12.29)
    assert fast["cost_per_request_usd_low"] == pytest.approx(2.99 / (110.0 * 3600))
    assert fast["cost_per_request_usd_high"] == pytest.approx(12.29 / (100.0 * 3600))
    assert (fast["price_class"], fast["usd_per_accelerator_hour_low"], fast["usd_per_accelerator_hour_high"]) == (
        "on_demand",
        2.99,
        12.29,
    )
    assert slow["caveat_list"] == ["precision differs: MLPerf fp8, ours bf16", "token mix differs"]
    every_class = config_rows(ROWS, every_price_class=True)
    assert [(r["config_key"], r["price_class"]) for r in every_class] == [
        ("fast", "on_demand"),
        ("fast", "spot"),
        ("slow", "on_demand"),
    ]


def table_lines(text):
    return [line for line in text.splitlines() if re.match(r"^\d+  ", line)]


def test_the_terminal_shortlist_numbers_caveats_once_and_refers_to_them():
    text = format_shortlist(ROWS, {"chat": "ttft_p95_ms <= 1000"})
    fast, slow = table_lines(text)
    assert fast.split()[-1] == "1" and slow.split()[-1] == "1,2"
    assert "   1. precision differs: MLPerf fp8, ours bf16" in text.splitlines()
    assert "   2. token mix differs" in text.splitlines()
    assert text.count("precision differs") == 1
    assert "chat: top 2 of 2 configs; SLO ttft_p95_ms <= 1000" in text
    # 2.99 / (110 x 3600) x 1000 = 0.00755; 12.29 / (100 x 3600) x 1000 = 0.0341
    assert "0.00755-0.03414" in fast and not SCIENTIFIC.search(text)


def test_the_terminal_shows_the_billed_band_beside_the_cost_priced_on_it():
    """A run billed on its calibrated band (18.73 to 25.42 req/s, though it measured 110.8 to 111.4) shows the billed
    band beside its cost; the band measured as run is in its caveat, labelled (marts.config_shortlist words it)."""
    caveat = (
        "costs rest on the band calibrated on our traffic, 18.73-25.42 requests/s (...), not the band measured as "
        "run, 110.80-111.40 requests/s: ..."
    )
    calibrated = {
        **shortlist_row("calibrated", "on_demand", "Lambda", 2.99, 18.73, caveat),
        "billed_requests_per_s_high": 25.42,
        "measured_requests_per_s_low": 110.8,
        "measured_requests_per_s_high": 111.4,
        "billed_basis": "calibrated",
    }
    text = format_shortlist([calibrated])
    (row,) = table_lines(text)
    cells = [c.strip() for c in row.split("  ") if c.strip()]
    assert cells[cells.index("18.73-25.42") + 1] == "0.0403-0.0443"  # 2.99 / (18.73 x 1.1 .. 18.73 x 3600) x 1000
    assert "110.8" not in row and "110.80-111.40 requests/s" in " ".join(text.split())
    assert "billed" in text.splitlines()[text.splitlines().index(row) - 3]  # the column's title


def test_the_terminal_shows_the_top_configs_or_with_all_every_config_and_class():
    many = marts_order(
        [shortlist_row(f"run-{i}", "on_demand", "Lambda", 2.99, 10.0 + i, "c") for i in range(8)]
        + [shortlist_row("run-0", "spot", "Crusoe", 9.0, 10.0, "c")]
    )
    assert len(table_lines(format_shortlist(many))) == 5
    assert len(table_lines(format_shortlist(many, top=3))) == 3
    assert len(table_lines(format_shortlist(many, show_all=True))) == 9


def test_the_quality_column_is_shown_once_a_row_carries_a_requirements_status():
    assert "quality" not in format_shortlist(ROWS)
    assert "quality" not in format_shortlist([{**r, "quality_status": "not_required"} for r in ROWS])
    rated = [{**r, "quality_status": "meets"} for r in ROWS]
    text = format_shortlist(rated)
    assert "quality" in text and all(" meets  " in line for line in table_lines(text))


def test_long_caveats_are_folded_to_the_terminal_width():
    long = "; ".join(f"caveat {i}: " + "word " * 40 for i in range(3))
    text = format_shortlist([shortlist_row("x", "on_demand", "Lambda", 2.99, 10.0, long)], width=80)
    assert len(long) > 600 and max(len(line) for line in text.splitlines()) <= 80
    assert "   3. caveat 2:" in text


def test_caveat_references_compress_runs_into_ranges():
    assert number_list([1, 8, 3, 4, 5, 6, 9]) == "1,3-6,8,9"
    assert number_list([1, 2]) == "1,2" and number_list([]) == ""


def test_no_caveat_text_of_the_shortlist_contains_the_separator_the_terminal_splits_on():
    """marts.config_shortlist joins its caveats with '; ' and the terminal splits them on it: a caveat's own text
    holding '; ' would become two notes. Every string literal inside the caveats' concat_ws is checked."""
    sql = (REPO_ROOT / "sql" / "marts" / "config_shortlist.sql").read_text()
    start = sql.index("concat_ws('; ',")
    block = sql[start + len("concat_ws('; ',") : sql.index(") AS caveats", start)]
    literals = [text.replace("''", "'") for text in re.findall(r"'((?:[^']|'')*)'", block)]
    assert len(literals) > 20  # the caveats' wording, not an empty match
    assert [text for text in literals if "; " in text] == []


def test_the_mlperf_column_shows_the_scenario_the_delivered_fraction_divides_by():
    server = shortlist_row("server", "on_demand", "Lambda", 2.99, 100.0, "", mlperf_reference_scenario="Server")
    interactive = shortlist_row(
        "interactive",
        "on_demand",
        "Lambda",
        2.99,
        90.0,
        "",
        mlperf_reference_scenario="Interactive",
        mlperf_interactive_tokens_per_s_per_accel=6684.4,
    )
    rows = {r["config_key"]: r for r in config_rows(marts_order([server, interactive]))}
    assert rows["server"]["mlperf_reference_tokens_per_s_per_accel"] == 5103.99
    assert rows["interactive"]["mlperf_reference_tokens_per_s_per_accel"] == 6684.4
    text = format_shortlist(marts_order([server, interactive]), wide=True)
    assert "6,684" in text and "5,104" in text


def test_long_cells_are_cut_to_the_width_and_numbers_stay_whole():
    from assets.report.textformat import cut_to_width

    body = [["1", "x" * 300, "0.00326"], ["22", "short", "1"]]
    assert cut_to_width(["rank", "caveats", "usd"], body, 60)
    assert body[0][1].endswith("~") and len(body[0][1]) == 60 - len("rank") - len("0.00326") - 4
    assert body[0][2] == "0.00326" and body[1] == ["22", "short", "1"]
    assert not cut_to_width(["a"], [["fits"]], 60)


def test_sql_tables_on_a_terminal_fit_its_width_and_say_where_the_whole_values_are(monkeypatch):
    import os
    import shutil
    import sys

    from pipelines.query import render

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setattr(shutil, "get_terminal_size", lambda fallback=None: os.terminal_size((100, 40)))
    text = render(["rank", "caveats"], [(1, "precision differs; " * 40)], "table")
    assert max(len(line) for line in text.splitlines()[:-1]) <= 100
    assert (
        text.splitlines()[-1] == "(1 row; long values cut to the terminal's width: --format csv or json for them whole)"
    )
    assert "precision differs; " * 40 in render(["rank", "caveats"], [(1, "precision differs; " * 40)], "csv")
