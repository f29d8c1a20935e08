"""Text from inputs is inert on every surface: control characters (ESC among them) and bidirectional overrides are
shown as visible escapes (`\\x1b`, `\\u202e`) in the terminal shortlist, query tables and the HTML report, by one
function (assets/core/inert.py); CSV and JSON keep the raw value."""

import json

import pytest

from assets.core.inert import inert
from assets.report.charts import Band, Point, Series, line_chart
from assets.report.terminal_shortlist import format_shortlist
from assets.report.textformat import align_rows, escape, wrapped
from pipelines.query import render
from tests.unit.test_textformat import shortlist_row

TITLE_AND_CLEAR = "lbl\x1b]0;pwned\x07\x1b[2J"  # sets the terminal's title, then clears its screen
REVERSED = "lbl-invoice\u202egpj.exe"  # displays as lbl-invoiceexe.jpg
PROVIDER = "Evil\x1b[31mCloud\x9b2J"  # a colour and a C1 control sequence introducer
RAW = set(map(chr, [*range(0x20), 0x7F, *range(0x80, 0xA0), 0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F)]))
RAW |= set(map(chr, [*range(0x2066, 0x206A), 0x2028, 0x2029]))


def no_raw(text: str, lines: bool = True) -> bool:
    return not (set(text) & (RAW - ({"\n", "\t"} if lines else set())))


@pytest.mark.parametrize(
    "text,shown",
    [
        (TITLE_AND_CLEAR, "lbl\\x1b]0;pwned\\x07\\x1b[2J"),
        (REVERSED, "lbl-invoice\\u202egpj.exe"),
        (PROVIDER, "Evil\\x1b[31mCloud\\x9b2J"),
        ("a\u2066b\u2069c\u200e\u200f\u061c\x00\x7f", "a\\u2066b\\u2069c\\u200e\\u200f\\u061c\\x00\\x7f"),
        ("line\r\nnext\tcell", "line\\x0d\\x0anext\\x09cell"),
        ("é 中文 🙂 «ok» \\x1b", "é 中文 🙂 «ok» \\x1b"),  # other text, and a backslash, as they are
    ],
)
def test_control_and_bidi_characters_are_written_as_visible_escapes(text, shown):
    assert inert(text) == shown and no_raw(inert(text), lines=False)


def test_lines_keeps_line_feeds_and_tabs_only():
    assert inert("a\nb\tc\rd\x1b", lines=True) == "a\nb\tc\\x0dd\\x1b"


def test_every_such_character_is_escaped():
    assert no_raw(inert("".join(sorted(RAW))), lines=False)
    assert all(inert(c).startswith("\\") for c in RAW)


def test_the_terminal_shortlist_shows_hostile_labels_escaped():
    rows = [
        shortlist_row(TITLE_AND_CLEAR, "on_demand", PROVIDER, 2.99, 100.0, "caveat \x1b[2J here"),
        shortlist_row(REVERSED, "on_demand", "Lambda", 2.99, 50.0, "c"),
    ]
    text = format_shortlist(rows, {"chat": "ttft_p95_ms <= 1000\x1b[2J"}, notes={"chat": ["note \u202e"]}, wide=True)
    assert no_raw(text)
    for shown in ("lbl\\x1b]0;pwned\\x07\\x1b[2J", "lbl-invoice\\u202egpj.exe", "caveat \\x1b[2J here"):
        assert shown in text
    assert "ttft_p95_ms <= 1000\\x1b[2J" in text and "note \\u202e" in text


def test_aligned_tables_and_folded_lines_escape_every_cell():
    lines = align_rows(["run\nlabel", "provider"], [[TITLE_AND_CLEAR, PROVIDER], [REVERSED, "a\nb"]])
    assert all(no_raw(line, lines=False) for line in lines)
    assert lines[-1].startswith("lbl-invoice\\u202egpj.exe") and lines[-1].endswith("a\\x0ab")
    assert lines[3].index("Evil") == lines[4].index("a\\x0ab")  # widths counted on the escaped text
    assert wrapped(f"finding: {TITLE_AND_CLEAR}") == ["finding: lbl\\x1b]0;pwned\\x07\\x1b[2J"]


def test_query_tables_escape_and_csv_and_json_keep_the_raw_value():
    columns, rows = ["run_label", "price_provider"], [(TITLE_AND_CLEAR, PROVIDER), (REVERSED, None)]
    table = render(columns, rows, "table")
    assert no_raw(table) and "lbl\\x1b]0;pwned\\x07\\x1b[2J" in table and "lbl-invoice\\u202egpj.exe" in table
    assert [r["run_label"] for r in json.loads(render(columns, rows, "json"))] == [TITLE_AND_CLEAR, REVERSED]
    assert TITLE_AND_CLEAR in render(columns, rows, "csv")


def test_html_text_is_inert_then_escaped():
    assert escape(f"<b>{REVERSED}</b>") == "&lt;b&gt;lbl-invoice\\u202egpj.exe&lt;/b&gt;"
    assert escape('"\x1b"') == "&quot;\\x1b&quot;"
    chart = line_chart(
        title=f"latency of {REVERSED}",
        x_label="rate",
        y_label="ms",
        series=[Series(PROVIDER, [Point(1.0, 2.0, TITLE_AND_CLEAR), Point(2.0, 3.0, "b")], "#000")],
        lines=[],
        band=Band(1.0, 2.0, TITLE_AND_CLEAR, "#eee"),
        data={"config": REVERSED},
    )
    assert no_raw(chart) and "lbl-invoice\\u202egpj.exe" in chart


def test_progress_lines_and_dagsters_console_log_show_input_names_escaped(capsys, monkeypatch):
    """A step's log line naming a dumps folder (a name from inputs) reaches the terminal inert, as the run's
    progress line and in Dagster's console log (`make dev`), coloured or not."""
    import logging

    import dagster as dg

    from pipelines import progress

    folder = f"/srv/dumps/{REVERSED}"
    record = logging.LogRecord("benchbill", logging.INFO, __file__, 1, "%s: 1 files, 0.0 MB", (folder,), None)
    progress._ProgressHandler(None).emit(record)
    for colour in (False, True):
        monkeypatch.setattr(progress.settings, "colour", lambda stream, on=colour: on)
        context = dg.build_init_logger_context(logger_config={"log_level": "INFO", "name": f"console-{colour}"})
        progress.console_logger.logger_fn(context).info("%s: read", folder)
    err = capsys.readouterr().err
    assert no_raw(err) and err.count("/srv/dumps/lbl-invoice\\u202egpj.exe") == 3, err
