"""Every numeric key of the profiles YAML, the prices CSV and run.yaml has a stated range (one table,
INPUT_RANGES in assets/core/ranges.py), found by walking the keys the parsers accept; a value just outside it is
refused by the key's name with the range, before any arithmetic."""

import datetime
import re

import pytest

from assets.config import prices, profiles
from assets.config.workload_lengths import LENGTH_FORM_KEYS, LENGTH_FORMS, SIDES
from assets.core.errors import IngestError
from assets.core.ranges import INPUT_RANGES, PRICES, PROFILES, RUN_YAML, SLO_MS, Range
from assets.runs import sidecar
from schemas.vocab import QUALITY_BOUND_KINDS
from tests.support.data import REPO_ROOT

# The keys the parsers accept that hold text (names, dates, paths, free-form settings) or nest other keys.
TEXT_KEYS = {
    PROFILES: {
        "name",
        "model",
        "baseline",
        "workload.traffic_log",
        "workload.lengths_file",
        "quality[].task",
        "quality[].metric",
    },
    PRICES: {"accelerator", "price_class", "provider", "source", "as_of"},
    RUN_YAML: {
        "accelerator",
        "model",
        "precision",
        "runtime",
        "runtime_version",
        "arrival",
        "label",
        "settings",
        "tool_version",
        "plan",
        "overrides",
    },
}
NESTING = {"slo", "workload", "quality"}
SLO_KEYS = [f"{m}_{p}_ms" for m in ("ttft", "tpot", "itl", "e2e") for p in ("p50", "p90", "p95", "p99")]


def accepted_keys() -> dict[str, set[str]]:
    """The keys each parser accepts, walked from its own key lists (a new key must be listed here by the parser)."""
    profile_keys = (profiles.PROFILE_KEYS - NESTING) | {f"workload.{k}" for k in profiles.WORKLOAD_KEYS}
    profile_keys |= {f"workload.{side}_tokens.{k}" for side in SIDES for k in LENGTH_FORM_KEYS}
    assert all(profiles.SLO_KEY.match(k) for k in SLO_KEYS)
    profile_keys |= {SLO_MS, "slo.error_rate_max"}
    profile_keys |= {"quality[].task", "quality[].metric", *(f"quality[].{k}" for k in QUALITY_BOUND_KINDS)}
    profile_keys |= {f"quality[].{k}" for k in profiles.QUALITY_OPTIONAL_KEYS}
    return {
        PROFILES: profile_keys,
        PRICES: set(prices.PRICE_COLUMNS),
        RUN_YAML: set(sidecar.REQUIRED_KEYS + sidecar.OPTIONAL_KEYS),
    }


def test_every_numeric_input_key_has_a_stated_range():
    for file, keys in accepted_keys().items():
        numeric = keys - TEXT_KEYS[file]
        assert numeric == set(INPUT_RANGES[file]), file


def outside(rng: Range) -> list[float]:
    """A value just below and one just above the range."""
    step = 1 if rng.whole else max(abs(rng.low) * 0.01, 1e-9)
    below = rng.low if rng.low_open else rng.low - step
    above = rng.high if rng.high_open else rng.high + (1 if rng.whole else max(abs(rng.high) * 0.01, 1e-9))
    return [below, above]


def profile_with(key: str, value: object) -> dict:
    entry: dict = {
        "name": "p",
        "model": "llama3.1-8b",
        "slo": {"ttft_p95_ms": 1000},
        "delivered_fraction_prior": [0.5, 0.8],
    }
    if key == SLO_MS:
        entry["slo"] = {"ttft_p95_ms": value}
    elif key.startswith("slo."):
        entry["slo"][key.removeprefix("slo.")] = value
    elif key == "delivered_fraction_prior":
        entry[key] = [value, value]
    elif key.startswith("workload."):
        name = key.removeprefix("workload.")
        volume = {"requests_per_day": 86400, "peak_to_mean": 2} if name == "requests_per_day" else {}
        entry["workload"] = {"mean_requests_per_s": 25, "peak_to_mean": 2} if not volume else volume
        side, _, form_key = name.partition(".")
        if form_key:  # a key of a length form: beside the others of its form, each in range and in order
            form = next(keys for keys in LENGTH_FORMS.values() if form_key in keys)
            companions = {"fixed": 1, "mean": 200, "cv": 1, "p50": 1, "p90": 1e7, "p99": 1e7}
            entry["workload"][side] = {k: companions[k] for k in form} | {form_key: value}
        else:
            entry["workload"][name] = value
    else:
        bound = {"max": 1} if key.removeprefix("quality[].") in profiles.QUALITY_OPTIONAL_KEYS else {}
        entry["quality"] = [{"task": "gsm8k", "metric": "acc", **bound, key.removeprefix("quality[]."): value}]
    return {"profiles": [entry]}


def refusal(file: str, key: str, value: object) -> str:
    """The message the parser of `file` refuses `value` of `key` with ('' when it is accepted)."""
    try:
        if file == PROFILES:
            content = profile_with(key, value)
            profiles.parse_profiles(content, "p.yaml")
            profiles.parse_quality_bounds(content, "p.yaml")
        elif file == PRICES:
            raw = {"accelerator": "H100", "price_class": "on_demand", key: str(value), "provider": "x", "source": "y"}
            prices.price_row({**raw, "as_of": "2026-01-01"}, source="p.csv", index=0, today=datetime.date(2026, 6, 1))
        else:
            config = {"accelerator": "H100", "model": "m", "precision": "fp8", "runtime": "vllm"}
            config |= {"runtime_version": "1", "arrival": "poisson", key: value}
            sidecar.run_config(config, ["run.yaml"])
    except (IngestError, prices.PriceProblem, sidecar.SidecarProblem) as problem:
        return str(problem)
    return ""


CASES = [
    (file, key, value) for file, keys in INPUT_RANGES.items() for key, rng in keys.items() for value in outside(rng)
]


@pytest.mark.parametrize("file,key,value", CASES, ids=[f"{f}:{k}={v:g}" for f, k, v in CASES])
def test_a_value_outside_its_range_is_refused_by_name_with_the_range(file, key, value):
    rng = INPUT_RANGES[file][key]
    message = refusal(file, key, value)
    name = "slo.ttft_p95_ms" if key == SLO_MS else key.removeprefix("quality[].")
    assert re.search(re.escape(name) + r"\b", message), message
    bounds = f"{rng.low:g} to {rng.high:g}" if file == PRICES else rng.text()
    assert bounds in message, message


@pytest.mark.parametrize("file,key", [(f, k) for f, keys in INPUT_RANGES.items() for k in keys])
def test_the_ends_of_each_range_that_are_in_it_are_accepted(file, key):
    rng = INPUT_RANGES[file][key]
    for value in (rng.low, rng.high):
        if (value == rng.low and rng.low_open) or (value == rng.high and rng.high_open):
            continue
        assert refusal(file, key, int(value) if rng.whole else value) == "", (key, value)


def test_the_absurd_values_that_reached_arithmetic_are_refused():
    """`peak_window_s: 0.000001` allocated 28 GB of windows; a prior of 1e-300 overflowed the capacity plan."""
    assert "workload.peak_window_s must be a number from 1 to 86400 s (got 1e-06)" in refusal(
        PROFILES, "workload.peak_window_s", 0.000001
    )
    assert "delivered_fraction_prior must be a number above 0.001 and at most 1.5 (got 1e-300)" in refusal(
        PROFILES, "delivered_fraction_prior", 1e-300
    )
    assert "accelerator_count must be a whole number from 1 to 100000" in refusal(RUN_YAML, "accelerator_count", 10**12)


def test_the_documented_table_is_the_table():
    page = REPO_ROOT.joinpath("docs", "inputs-profiles-and-prices.md").read_text()
    rows = {line for line in page.splitlines() if line.startswith("| ")}
    for file, keys in INPUT_RANGES.items():
        for key, rng in keys.items():
            assert f"| {file} | `{key.replace('|', chr(92) + '|')}` | {rng.text()} |" in rows, key
