"""The figures docs/reliability.md ("Reliability and security: what was tried and held") states are the tests' own:
counted from the corpus, the faults, the kill points, the readers and the archives; and the worked example of
docs/capacity-plan.md is the raw trace recomputed."""

import collections
import csv
import datetime
import math
import re

from tests.e2e import test_concurrency, test_kills
from tests.integration import test_bad_input_corpus, test_security_archive_members
from tests.support.data import DATA, REPO_ROOT
from tests.unit import (
    test_bounded_inputs,
    test_calibrate_bounds,
    test_faults_http_retries,
    test_input_ranges,
    test_quality_plausibility,
    test_security_sql_and_archive_limits,
    test_sql_checks,
    test_sql_guards,
)

RELIABILITY = REPO_ROOT.joinpath("docs", "reliability.md").read_text()
assert RELIABILITY.startswith("# Reliability and security: what was tried and held\n")
# every entry: what was tried and what held (the calibrated model's and bounded work's on their own page)
SECTION = (
    RELIABILITY.split("\n## Bugs these tests found")[0]
    + REPO_ROOT.joinpath("docs", "reliability-calibrated.md").read_text()
)
OUTCOMES = {  # how the page groups the corpus's outcomes
    "end in a clear error": ("error",),
    "quarantine the rows or the file": (
        "quarantined",
        "quarantined+records",
        "quarantined-request",
        "skipped|quarantined",
    ),
    "read exactly the intact numbers": ("same", "same-value-from-summary"),
    "keep an unknown name raw and flagged": ("flagged",),
    "skip a file that is no dump": ("skipped",),
    "read what is left": ("requests-only", "missing", "precision-unknown"),
}


def cases_of(*modules) -> int:
    """The test cases of `modules`: each test function once per parametrized case."""
    count = 0
    for module in modules:
        for name, function in vars(module).items():
            if name.startswith("test_") and callable(function):
                marks = [m for m in getattr(function, "pytestmark", []) if m.name == "parametrize"]
                count += math.prod(len(m.args[1]) for m in marks)
    return count


def stated(phrase: str) -> int:
    match = re.search(r"(?:\*\*)?([\d,]+) (?:\*\*)?" + re.escape(phrase), SECTION)
    assert match, f"docs/reliability.md does not state '<n> {phrase}'"
    return int(match.group(1).replace(",", ""))


def test_the_reliability_page_states_the_figures_of_the_tests():
    cases = test_bad_input_corpus.CASES
    assert stated("bad-input cases") == len(cases)
    assert stated("kinds of input") == len(test_bad_input_corpus.TARGETS)
    counts = collections.Counter(expected for *_x, expected, _reason in cases)
    assert sum(len(group) for group in OUTCOMES.values()) == len(counts)
    for phrase, group in OUTCOMES.items():
        assert stated(phrase) == sum(counts[g] for g in group), phrase
    assert stated("HTTP faults") == len(test_faults_http_retries.FAULTS)
    assert stated("kill points") == len(test_kills.KILL_POINTS)
    assert stated("concurrent readers") == sum(test_concurrency.READERS.values())
    assert stated("of them also holding a connection") == sum(
        n for mode, n in test_concurrency.READERS.items() if mode != "parquet"
    )
    assert stated("hostile literals") == len(test_security_sql_and_archive_limits.HOSTILE_TEXTS)
    assert stated("hostile archive members") == len(test_security_archive_members.REFUSED_MEMBERS)
    assert stated("archives over their limits") == len(test_security_sql_and_archive_limits.BOMBS)
    assert stated("writing statements") == len(test_sql_guards.WRITES)
    assert stated("out-of-range values") == len(test_input_ranges.CASES)
    assert stated("outputs the calibrated model") == sum(len(rows) for rows in test_sql_checks.MODEL_OUTPUTS.values())
    assert stated("bounded-work cases") == cases_of(test_bounded_inputs, test_calibrate_bounds)
    assert stated("values outside their metric's range") == len(test_quality_plausibility.OUT_OF_RANGE_VALUES) + len(
        test_quality_plausibility.OUT_OF_RANGE_ROWS
    )


# --- the capacity plan's worked example (docs/capacity-plan.md, "Worked example") ---------------------------

CAPACITY = REPO_ROOT.joinpath("docs", "capacity-plan.md").read_text().split("\n## Worked example\n")[1]
CAPACITY = CAPACITY.split("\n## ")[0]
AZURE_CONV = DATA / "traffic" / "azure-llm-inference-2023" / "AzureLLMInferenceTrace_conv.csv"


def capacity_figure(pattern: str) -> tuple[str, ...]:
    match = re.search(pattern.replace(" ", r"\s+"), CAPACITY)  # the page wraps its lines anywhere
    assert match, f"docs/capacity-plan.md's worked example does not state {pattern!r}"
    return match.groups()


def number(text: str) -> float:
    return float(text.replace(",", ""))


def test_the_capacity_worked_example_is_the_trace_recomputed():
    """Recomputed from the raw trace (csv, datetime), the stated volume, delivered bands and price: the windows,
    mean and peak, every figure of the table on the band billed (calibrated on the trace; tests/e2e/
    test_capacity_plan.py ties it and the measured band to the warehouse), and the measured-band arithmetic."""
    (per_day,) = capacity_figure(r"scaled to \*\*([\d,]+) requests a day\*\*")
    (requests,) = capacity_figure(r"\(`AzureLLMInferenceTrace_conv.csv`, ([\d,]+) requests")
    with open(AZURE_CONV, newline="") as handle:
        stamps = [row["TIMESTAMP"] for row in csv.DictReader(handle)]
    ticks = sorted(
        int(datetime.datetime.strptime(s[:19], "%Y-%m-%d %H:%M:%S").replace(tzinfo=datetime.UTC).timestamp())
        * 10_000_000
        + int(s[20:].ljust(7, "0"))
        for s in stamps
    )
    offsets = [(t - ticks[0]) / 1e7 for t in ticks]
    counts = [0] * int(offsets[-1] // 60)
    for t in offsets:
        if int(t // 60) < len(counts):
            counts[int(t // 60)] += 1
    scale = number(per_day) / 86400 / (sum(counts) / len(counts) / 60)
    rates = [c / 60 * scale for c in counts]
    mean, peak = sum(rates) / len(rates), max(rates)
    assert number(requests) == len(stamps)
    assert capacity_figure(
        r"\*\*(\d+) windows\*\*, mean \*\*([\d.]+) requests/s\*\*, peak \*\*([\d.]+) requests/s"
    ) == (
        str(len(counts)),
        f"{mean:.2f}",
        f"{peak:.2f}",
    )
    (ratio,) = capacity_figure(r"\(peak / mean ([\d.]+)\)")
    assert ratio == f"{peak / mean:.2f}"
    (usd,) = capacity_figure(r"on-demand\s+([\d.]+) USD per accelerator-hour")
    monthly = lambda replicas: replicas * number(usd) * 730  # noqa: E731

    def plan(low: float, high: float) -> tuple[int, int, list[float], list[float]]:
        r_low, r_high = math.ceil(peak / high), math.ceil(peak / low)
        utilisation = sorted((mean / (r_high * low), mean / (r_low * high)))
        auto = [
            sum(max(1, math.ceil(r / high)) for r in rates) / len(rates),
            sum(max(1, math.ceil(r / low)) for r in rates) / len(rates),
        ]
        return r_low, r_high, utilisation, [monthly(a) for a in auto]

    measured, billed = {}, {}
    for run in ("vllm", "vllm+batch_size"):
        cells = [c.strip() for c in capacity_figure(r"\n\| " + re.escape(run) + r" \|([^\n]+)\|")[0].split("|")]
        measured[run] = tuple(number(x) for x in cells[0].split(" - "))
        billed[run] = tuple(number(x) for x in cells[1].split(" - "))  # the band the bill rests on: calibrated
        r_low, r_high, utilisation, auto = plan(*billed[run])
        assert cells[2:7] == [
            f"{r_low} - {r_high}",
            f"{monthly(r_low):,.2f} - {monthly(r_high):,.2f}",
            f"{utilisation[0]:.2f} - {utilisation[1]:.2f}",
            f"{monthly(r_low) / (mean * 730 * 3600) * 1e6:.2f} - {monthly(r_high) / (mean * 730 * 3600) * 1e6:.2f}",
            f"{auto[0]:,.2f} - {auto[1]:,.2f}",
        ], run
    # every "peak / band = replicas" the page states
    for top, band, ratio in re.findall(r"([\d.]+) / ([\d.]+) = ([\d.]+)", CAPACITY):
        assert number(top) == round(peak, 2) and ratio == f"{number(top) / number(band):.1f}"
    # calibrated: one band for both runs, so the move is the band's width either way
    r_low, r_high, _u, _a = plan(*billed["vllm"])
    assert capacity_figure(r"changes the bill by (-?[\d,]+) to ([\d,]+) USD a month") == (
        f"{monthly(r_low) - monthly(r_high):,.0f}",
        f"{monthly(r_high) - monthly(r_low):,.0f}",
    )
    assert capacity_figure(r"each needs (\d+) to (\d+) replicas at the peak") == (str(r_low), str(r_high))
    # measured as run: what a profile the sweeps match bills on
    (v_low, v_high, _u, v_auto), (b_low, b_high, _u2, b_auto) = (
        plan(*measured["vllm"]),
        plan(*measured["vllm+batch_size"]),
    )
    assert v_low == v_high == b_low == b_high
    assert capacity_figure(r"both need (\d+) replicas at the peak") == (str(v_low),)
    assert capacity_figure(r"= [\d.]+\), ([\d,.]+) USD a month, so statically") == (f"{monthly(v_low):,.2f}",)
    assert capacity_figure(r"\(([\d,.]+) to ([\d,.]+) against ([\d,.]+) to ([\d,.]+) USD a month\)") == tuple(
        f"{x:,.2f}" for x in (*v_auto, *b_auto)
    )
    saving = capacity_figure(r"autoscaled \([^)]*\), it saves ([\d,]+) to ([\d,]+) USD a month")
    assert saving == (f"{v_auto[0] - b_auto[1]:,.0f}", f"{v_auto[1] - b_auto[0]:,.0f}")
    full_load = capacity_figure(r"\(Lambda, vllm: ([\d.]+) to ([\d.]+) USD per 1M requests, on the calibrated band\)")
    assert full_load == tuple(f"{number(usd) / (b * 3600) * 1e6:.2f}" for b in reversed(billed["vllm"]))
    last, failing = (number(x) for x in capacity_figure(r"between the sweep's ([\d.]+) and ([\d.]+) requests/s"))
    assert capacity_figure(r"asks for ([\d.]+), ([\d.]+) and ([\d.]+) requests/s") == tuple(
        f"{last + k * (failing - last) / 4:.2f}" for k in (1, 2, 3)
    )
