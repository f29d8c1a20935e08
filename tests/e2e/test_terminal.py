"""What `make run` prints, on the inputs `make run` reads (the real v5.1 and v4.1 round tables and
examples/dumps): every line fits a 160-column terminal, no number is in scientific notation, each
profile shows its top configs one row each, and `--all` shows every config and price class."""

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
    """(stdout, stderr) of `benchbill run` on make run's inputs, then of `benchbill run --all` (nothing changed)."""
    folder = tmp_path_factory.mktemp("make-run")
    capture = pytest.MonkeyPatch()
    outputs = []
    try:
        capture.chdir(folder)  # `make run` passes `--warehouse warehouse`, relative to where it runs
        for extra in ([], ["--all"]):
            out, err = io.StringIO(), io.StringIO()
            capture.setattr(sys, "stdout", out)
            capture.setattr(sys, "stderr", err)
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


def test_every_line_fits_a_160_column_terminal_without_scientific_notation(printed):
    _warehouse, [(out, err), (all_out, _)] = printed
    for stream in (out, err, all_out):
        too_wide = [line for line in stream.splitlines() if len(line) > 160]
        assert not too_wide, too_wide
        assert not SCIENTIFIC.search(stream), SCIENTIFIC.search(stream)


def test_each_profile_shows_its_top_5_configs_one_row_each_in_its_ranking(printed):
    warehouse, [(out, _err), _] = printed
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
    warehouse, [(out, _err), _] = printed
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
    price_cell = next(c for c in row if c.split(" ")[0] in classes)
    assert price_cell.endswith(f" {cheapest:.2f}")
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
    _warehouse, [(out, _err), _] = printed
    section = out.split("\nchat-8b-interactive: ")[1].split("\n\n")[0]
    notes = re.findall(r"^ +(\d+)\. (.*)$", section, re.M)
    assert [int(n) for n, _t in notes] == list(range(1, len(notes) + 1))
    assert len({t for _n, t in notes}) == len(notes)
    references = {n for row in profile_tables(out)["chat-8b-interactive"] for n in referenced(row[-1])}
    assert references == set(range(1, len(notes) + 1))
    assert any("precision differs: MLPerf fp8, ours bf16" in t for _n, t in notes)


def test_run_all_shows_every_config_and_price_class(printed):
    warehouse, [_, (all_out, all_err)] = printed
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
    warehouse, [(out, _err), _] = printed
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
