"""What `make run` prints, on the inputs `make run` reads (the real v5.1 and v4.1 round tables and
examples/dumps): at 80 columns every line of the decision fits, its tables keep what a reader needs and every
figure they leave out is in `--wide`; no number is in scientific notation, each profile shows its top configs one
row each, and `--all` shows every config and price class."""

import csv
import io
import math
import re
import shlex
import sys

import duckdb
import pytest

from assets.core.paths import DEFAULT_PRICES
from assets.report.textformat import range_text
from pipelines.cli import main
from tests.support.data import DATA, REPO_ROOT, V41_TABLE, V51_TABLE

# `make run`'s arguments (the Makefile's RUN_ARGS when ../shared is beside the repository).
MAKE_RUN_ARGS = [
    "--mlperf",
    str(V51_TABLE),
    "--mlperf",
    str(V41_TABLE),
    "--dumps",
    str(REPO_ROOT / "examples" / "dumps"),
    "--allow-links-into",
    str(DATA),
    "--profiles",
    str(REPO_ROOT / "examples" / "run-profiles.yaml"),
]
SCIENTIFIC = re.compile(r"\b\d+(\.\d+)?[eE][-+]\d+")  # 1e-05, 1.28e+20 (a hex digest is not)
TABLE_ROW = re.compile(r"^(\d+)  +(\d+)x (\S+) +(\S+) ")


def test_make_run_reads_the_inputs_this_test_reads():
    makefile = (REPO_ROOT / "Makefile").read_text()
    run_args = re.search(r"^RUN_ARGS \?= (.*?)(?<!\\)\n", makefile, re.S | re.M).group(1).replace("\\\n", " ")
    shared = str(DATA.parent)
    assert shlex.split(run_args.replace("$(SHARED)", shared)) == [
        a.replace(str(REPO_ROOT) + "/", "") for a in MAKE_RUN_ARGS
    ]
    assert "$(BIN)/benchbill run --warehouse $(WAREHOUSE) $(RUN_ARGS)" in makefile


@pytest.fixture(scope="module")
def printed(tmp_path_factory):
    """(stdout, stderr) of `benchbill run` on make run's inputs on an 80-column terminal, then (nothing changed: the
    published shortlist printed again) of `benchbill run --all` at 80 columns and of `benchbill run --wide` at 160
    columns (every column of each table; the prose as a 160-column terminal folds it)."""
    folder = tmp_path_factory.mktemp("make-run")
    capture = pytest.MonkeyPatch()
    outputs = []
    try:
        capture.chdir(folder)  # `make run` passes `--warehouse warehouse`, relative to where it runs
        for columns, extra in ((80, []), (80, ["--all"]), (160, ["--wide"])):
            out, err = io.StringIO(), io.StringIO()
            capture.setattr(sys, "stdout", out)
            capture.setattr(sys, "stderr", err)
            capture.setenv("COLUMNS", str(columns))  # the width shutil.get_terminal_size reads first
            assert main(["run", "--warehouse", "warehouse", *MAKE_RUN_ARGS, *extra]) == 0
            outputs.append((out.getvalue(), err.getvalue()))
    finally:
        capture.undo()
    return folder / "warehouse", outputs


def shortlist(warehouse):
    with duckdb.connect(str(warehouse / "serving.duckdb"), read_only=True) as conn:
        cursor = conn.execute("SELECT * FROM marts.config_shortlist")
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]


def profile_tables(text):
    """{profile: [table rows split on runs of two spaces]} from the printed shortlist."""
    tables, current = {}, None
    for line in text.splitlines():
        heading = re.match(r"^(\S+): (top \d+ of \d+ configs|\d+ configs, \d+ rows); SLO ", line)
        if heading:
            current = tables.setdefault(heading.group(1), [])
        elif current is not None and TABLE_ROW.match(line):
            current.append(re.split(r"  +", line.strip()))
    return tables


def test_at_80_columns_every_line_fits_but_a_path_longer_than_the_terminal_without_scientific_notation(printed):
    """The decision, tables, caveats, findings and progress fit 80 columns; only the lines that end the output naming
    where the published files are may be wider, as wide as the absolute path they hold (a path is not folded: it
    would no longer paste)."""
    warehouse, [(out, err), (all_out, all_err), (wide_out, _)] = printed
    for stream in (out, err, all_out, all_err):
        too_wide = [line for line in stream.splitlines() if len(line) > 80]
        assert [line for line in too_wide if str(warehouse) not in line] == [], too_wide
    for stream in (out, all_out):
        decision = stream.split("\nserving file: ")[0]
        assert max(len(line) for line in decision.splitlines()) <= 80
    for stream in (out, err, all_out, wide_out):
        assert not SCIENTIFIC.search(stream), SCIENTIFIC.search(stream)


def headings(text):
    """Each table's column titles (the two lines above its dashed rule), one text per table."""
    lines = text.splitlines()
    return [f"{lines[i - 2]}\n{lines[i - 1]}" for i, line in enumerate(lines) if line.startswith("--  ")]


def test_at_80_columns_each_table_keeps_what_a_reader_needs_and_every_figure_left_out_is_in_wide(printed):
    """Per profile, the narrow table keeps config, run, price class, billed band, replicas and monthly bill (the
    capacity plan at our volume), names the columns it leaves out and `--wide`; the wide table shows the same rows
    with every figure of the narrow one and the columns left out."""
    warehouse, [(out, _err), _, (wide_out, _)] = printed
    with duckdb.connect(str(warehouse / "serving.duckdb"), read_only=True) as conn:
        planned = {p for (p,) in conn.execute("SELECT DISTINCT profile FROM analytics.capacity_plan").fetchall()}
    narrow, wide = profile_tables(out), profile_tables(wide_out)
    assert set(narrow) == set(wide) == planned  # make run's profiles both state a volume
    for heading in headings(out):
        assert all(title in heading for title in ("config", "run", "class", "billed", "replicas", "month"))
    for heading in headings(wide_out):
        assert all(t in heading for t in ("MLPerf", "delivered", "$ per 1k", "$ per 1M", "hour", "prec", "caveats"))
    for profile, rows in narrow.items():
        assert [r[0] for r in rows] == [r[0] for r in wide[profile]], profile  # the same configs, by rank
        for row, wide_row in zip(rows, wide[profile]):
            accelerator = wide_row[1].replace("nvidia-", "").replace("amd-", "")  # vendors dropped when narrow
            assert accelerator.startswith(row[1].rstrip("~")), (row[1], wide_row[1])
            assert [cell for cell in row[2:] if cell not in wide_row and not cell.endswith("~")] == [], profile
    folded = " ".join(out.split())
    assert folded.count("more columns (left out at 80 columns: ") == len(narrow)
    assert "benchbill run --wide" in folded and "more columns" not in wide_out


def test_each_profile_shows_its_top_5_configs_one_row_each_in_its_ranking(printed):
    warehouse, [_, _, (out, _err)] = printed
    rows = shortlist(warehouse)
    tables = profile_tables(out)
    assert set(tables) == {r["profile"] for r in rows}
    for profile, table in tables.items():
        first = {}  # config -> its first row in the profile's ranking (rank_in_profile)
        for r in sorted((r for r in rows if r["profile"] == profile), key=lambda r: r["rank_in_profile"]):
            first.setdefault(r["config_key"], r)
        shown = list(first.values())[:5]
        expected = [
            (f"{r['accelerator_count']}x {r['accelerator_id']}", r["run_label"] or "projected", r["price_class"])
            for r in shown
        ]
        assert [(r[1], r[2], r[6].split(" ")[0]) for r in table] == expected, profile
        assert [int(r[0]) for r in table] == [r["rank_in_profile"] for r in shown]  # the report's numbers


def test_a_row_shows_the_price_range_across_the_providers_of_its_class_per_1000_requests(printed):
    """The vllm run on one H100 at its cheapest price class (reserved 1.30 USD/h in the bundled prices):
    USD per 1,000 requests = price / (billed requests/s x 3600) x 1,000, recomputed here on the band the bill rests
    on (`billed_basis`: the profile's Azure trace differs from the sweep's workload, so the calibrated band), shown
    beside the cost, and a caveat saying so with the band measured as run."""
    warehouse, [_, _, (out, _err)] = printed
    (row,) = [r for r in profile_tables(out)["chat-8b-interactive"] if r[2] == "vllm"]
    with DEFAULT_PRICES.open() as f:
        h100 = [p for p in csv.DictReader(f) if p["accelerator"] == "nvidia-h100-sxm-80gb"]
    cheapest = min(float(p["usd_per_accelerator_hour"]) for p in h100)
    classes = {p["price_class"] for p in h100 if float(p["usd_per_accelerator_hour"]) == cheapest}
    (band,) = {
        (
            r["billed_basis"],
            r["measured_requests_per_s_low"],
            r["measured_requests_per_s_high"],
            r["billed_requests_per_s_low"],
            r["billed_requests_per_s_high"],
        )
        for r in shortlist(warehouse)
        if r["run_label"] == "vllm" and r["profile"] == "chat-8b-interactive" and r["price_class"] in classes
    }
    basis, measured, billed = band[0], band[1:3], band[3:5]
    assert basis == "calibrated"  # make run's chat-8b-interactive has the Azure trace: 1,155/211 tokens, CV 1.09
    low, high = (cheapest / (rate * 3600) * 1000 for rate in reversed(billed))
    price_cell = next(c for c in row if c in classes)
    assert row[row.index(price_cell) + 1] == f"{cheapest:.2f}"  # the class's $/acc-hour beside it
    cost = f"{low:.{_digits(low)}f}-{high:.{_digits(low)}f}"  # 3 significant digits of the smaller end
    billed_cell = range_text(*billed, "rate", "-")
    assert row.index(billed_cell) + 1 == row.index(cost)  # the band the cost is priced on, beside it
    assert billed_cell != range_text(*measured, "rate", "-") and range_text(*measured, "rate", "-") not in row
    # the row says that its costs rest on another band than the one it shows
    (caveats,) = {
        r["caveats"]
        for r in shortlist(warehouse)
        if r["run_label"] == "vllm" and r["profile"] == "chat-8b-interactive" and r["price_class"] in classes
    }
    assert f"costs rest on the band calibrated on our traffic, {billed[0]:.2f}-{billed[1]:.2f} requests/s" in caveats
    assert f"not the band measured as run, {measured[0]:.2f}-{measured[1]:.2f} requests/s" in caveats
    # the decision quotes the recommended config's band's own error first, then the model's held-out median and worst
    (error,) = {
        r["calibrated_band_rel_error"]
        for r in shortlist(warehouse)
        if r["rank_in_profile"] == 1 and r["profile"] == "chat-8b-interactive"
    }
    section = " ".join(out.split("\nchat-8b-interactive: ")[1].split("\n\n")[0].split())
    assert f"(band error +-{100 * error:.1f}%; engine model held-out error median " in section


def _digits(value: float) -> int:
    """Decimals that give `value` (0 < value < 1) three significant digits."""
    return 2 - math.floor(math.log10(value))


def referenced(cell):
    """The caveat numbers a row refers to: `1,3-6,8` is 1, 3, 4, 5, 6 and 8."""
    numbers = set()
    for part in cell.split(","):
        first, _, last = part.partition("-")
        numbers |= set(range(int(first), int(last or first) + 1))
    return numbers


def test_caveats_are_numbered_once_per_profile_and_referenced_by_number(printed):
    _warehouse, [_, _, (out, _err)] = printed
    section = out.split("\nchat-8b-interactive: ")[1].split("\n\n")[0]
    notes = re.findall(r"^ +(\d+)\. (.*)$", section, re.M)
    assert [int(n) for n, _t in notes] == list(range(1, len(notes) + 1))
    assert len({t for _n, t in notes}) == len(notes)
    references = {n for row in profile_tables(out)["chat-8b-interactive"] for n in referenced(row[-1])}
    assert references == set(range(1, len(notes) + 1))
    assert any("precision differs: MLPerf fp8, ours bf16" in t for _n, t in notes)


def test_run_all_shows_every_config_and_price_class(printed):
    warehouse, [_, (all_out, all_err), _] = printed
    assert "nothing changed since the last publish" in all_err
    rows = shortlist(warehouse)
    tables = profile_tables(all_out)
    for profile, table in tables.items():
        classes = {(r["config_key"], r["price_class"]) for r in rows if r["profile"] == profile}
        assert len(table) == len(classes), profile


BASIS_WORDS = {
    "measured": "billed on the band measured as run",
    "calibrated": "billed on the band calibrated on our traffic, ",
    "projected": "billed on the band projected from MLPerf",
}


def test_each_profile_says_its_bill_at_our_volume_or_what_to_state_for_it(printed):
    warehouse, [_, _, (out, _err)] = printed
    with duckdb.connect(str(warehouse / "serving.duckdb"), read_only=True) as conn:
        profiles = [p for (p,) in conn.execute("SELECT profile FROM analytics.profiles").fetchall()]
        bases = conn.execute("SELECT profile, billed_basis FROM marts.capacity_plan").fetchall()
    billed = {p for p, _basis in bases}
    for profile in profiles:
        section = out.split(f"\n{profile}: ")[1].split("\n\n")[0]
        first_note = section.splitlines()[1]
        if profile in billed:
            assert first_note.startswith("  at our volume: ") and " USD a month" in section
            # the evidence class of the band the bill rests on, named (billed_basis of one of its rows)
            said = [basis for p, basis in bases if p == profile and BASIS_WORDS[basis] in " ".join(section.split())]
            assert said, profile
        else:
            assert first_note.startswith("  no volume stated, so no monthly bill: set workload.requests_per_day")
