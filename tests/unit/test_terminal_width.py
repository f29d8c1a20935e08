"""The terminal at any width: the width read (COLUMNS, a pipe's default), prose folded to it with a hanging indent,
and the shortlist's table in the columns that fit it (every column with `wide`), nothing lost."""

import os
import re
import shutil

import pytest

from assets.report.terminal_shortlist import TERMINAL_COLUMNS, format_shortlist, with_capacity
from assets.report.textformat import NARROWEST, PIPE_WIDTH, cut_to_width, terminal_width, wrapped
from pipelines.progress import say
from tests.unit.test_textformat import marts_order, shortlist_row, table_lines

SENTENCE = (
    "at our volume: vllm+batch_size on 1x nvidia-h100-sxm-80gb at reserved SemiAnalysis TCO (3-yr rental) 1.30 USD "
    "per accelerator-hour: 9 to 12 replicas for our peak of 211.3 requests/s (mean 138.9), 8,541 to 11,388 USD a month"
)


def no_terminal(*_args, **_kwargs):
    raise OSError("not a terminal")


def test_the_width_is_the_terminals_and_columns_wins(monkeypatch):
    monkeypatch.setenv("COLUMNS", "93")
    assert terminal_width() == 93
    monkeypatch.setenv("COLUMNS", "12")  # folding prose into 12 columns reads as nothing: never below NARROWEST
    assert terminal_width() == NARROWEST == 40


def test_a_pipe_or_a_file_reads_as_an_80_column_terminal(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setattr(os, "get_terminal_size", no_terminal)  # what shutil asks of a pipe's descriptor
    assert shutil.get_terminal_size((PIPE_WIDTH, 24)).columns == terminal_width() == PIPE_WIDTH == 80


@pytest.mark.parametrize("width", [40, 60, 80, 120])
def test_a_folded_sentence_fits_the_width_and_reads_as_one_item_with_every_word(width):
    lines = wrapped(SENTENCE, width, indent="  ", hanging="  ")
    assert len(lines) > 1 and all(len(line) <= width for line in lines)
    assert lines[0].startswith("  at our volume") and all(line.startswith("    ") for line in lines[1:])
    assert " ".join(line.strip() for line in lines) == SENTENCE  # no word lost, none broken


def test_a_word_longer_than_the_width_is_broken_so_that_every_line_fits():
    lines = wrapped("quarantined: /data/" + "x" * 90 + ".csv", 40, hanging="    ")
    assert all(len(line) <= 40 for line in lines) and "".join(line.strip() for line in lines).count("x") == 90


def test_the_width_by_default_is_the_terminals(monkeypatch):
    monkeypatch.setenv("COLUMNS", "50")
    assert max(len(line) for line in wrapped(SENTENCE)) <= 50 < len(SENTENCE)


def test_a_message_on_stderr_folds_each_of_its_lines_under_its_first(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "60")
    say(f"{SENTENCE}\nsecond line of the message", indent="  ", hanging="  ")
    lines = capsys.readouterr().err.splitlines()
    assert all(len(line) <= 60 for line in lines) and lines[0].startswith("  at our volume")
    assert all(line.startswith("    ") for line in lines[1:]) and lines[-1] == "    second line of the message"


def test_numbers_are_never_cut_even_when_they_are_the_widest_column():
    body = [["8x nvidia-h200-sxm-141gb", "0.00933-0.01857-0.02000-0.03000"]]
    assert cut_to_width(["config", "$ per 1k requests"], body, 40, [10, None])
    assert body == [["8x nvidia~", "0.00933-0.01857-0.02000-0.03000"]]


CAVEATS = "precision differs: MLPerf fp8, ours bf16; token mix differs: our traffic about 1155 input / 211 output"
PLANNED = marts_order(  # two configs on a long accelerator id, billed at our volume (capacity plan rows)
    [
        shortlist_row("vllm+batch_size", "reserved", "SemiAnalysis", 1.30, 18.73, CAVEATS),
        shortlist_row("vllm", "reserved", "SemiAnalysis", 1.30, 16.15, CAVEATS),
    ]
)
PLAN = [
    {"profile": "chat", "config_key": "vllm+batch_size", "price_class": "reserved", "price_provider": "SemiAnalysis"}
    | {"replicas_low": 9, "replicas_high": 12, "monthly_usd_low": 8541.2, "monthly_usd_high": 11388.4},
    {"profile": "chat", "config_key": "vllm", "price_class": "reserved", "price_provider": "SemiAnalysis"}
    | {"replicas_low": 9, "replicas_high": 14, "monthly_usd_low": 8541.2, "monthly_usd_high": 13286.0},
]
NOTES = {"chat": [SENTENCE, "measure next: " + SENTENCE]}


def headers(text):
    """The two title lines above each table's dashed rule."""
    lines = text.splitlines()
    return [lines[i + d] for i, line in enumerate(lines) if line.startswith("-  ") for d in (-2, -1)]


def cells(line):
    return re.split(r"  +", line.strip())


def test_at_80_columns_the_table_keeps_what_a_reader_needs_to_decide_and_says_where_the_rest_is():
    text = format_shortlist(with_capacity(PLANNED, PLAN), {"chat": "ttft_p95_ms <= 1000"}, notes=NOTES, width=80)
    assert max(len(line) for line in text.splitlines()) <= 80
    first, second = (cells(line) for line in table_lines(text))
    assert first[0] == "1" and first[1].startswith("1x h100-sxm") and first[2] == "vllm+batch_size"  # vendor dropped
    assert first[3:] == ["reserved", "18.73-20.60", "9-12", "8,541-11,388"]  # class, billed band, replicas, month
    assert second[3:] == ["reserved", "16.15-17.77", "9-14", "8,541-13,286"]
    assert all(not re.search(r"\d~", cell) for cell in first + second)  # a cut is a name's, never a number's
    folded = " ".join(text.split())
    assert "more columns (left out at 80 columns: MLPerf tok/s/acc," in folded and "benchbill run --wide" in folded
    assert " ".join(SENTENCE.split()) in folded  # the decision folded, not cut


def test_wide_prints_every_column_and_every_figure_of_the_narrow_table_is_in_it():
    planned = with_capacity(PLANNED, PLAN)
    narrow = format_shortlist(planned, notes=NOTES, width=80)
    wide = format_shortlist(planned, notes=NOTES, width=80, wide=True)
    header = "\n".join(headers(wide))
    for title, *_ in TERMINAL_COLUMNS:
        if title != "quality":  # shown only where a profile states a quality requirement
            assert all(part in header for part in title.split("\n")), title
    wide_rows = [cells(line) for line in table_lines(wide)]
    for row, narrow_row in zip(wide_rows, (cells(line) for line in table_lines(narrow))):
        assert row[1] == "1x nvidia-h100-sxm-80gb" and "more columns" not in wide
        assert [c for c in narrow_row[3:] if c not in row] == []  # every figure shown narrow is in the wide row
    prose = [line for line in wide.splitlines() if line not in header and not re.match(r"^[\d#-]", line)]
    assert max(len(line) for line in prose) <= 80 < max(len(line) for line in wide.splitlines())  # prose still folds


def test_a_profile_with_no_volume_keeps_its_cost_per_request_and_shows_no_empty_plan_columns():
    text = format_shortlist(PLANNED, width=80)
    titles = "\n".join(headers(text))
    assert "replicas" not in titles and "USD a" not in titles
    assert "$ per 1k" in titles and max(len(line) for line in text.splitlines()) <= 80
