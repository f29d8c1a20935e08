"""The accepted range of every numeric key of the operator's files (the profiles YAML, the prices CSV, run.yaml),
in one table: each parser checks its values with `check`, so a value out of range is refused by its key with the
range it must lie in, before it reaches any arithmetic (a 1 microsecond peak window, a prior of 1e-300)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class OutOfRange(ValueError):
    """A value outside its key's accepted range (or not a number); the message names the key and the range."""


@dataclass(frozen=True)
class Range:
    """Accepted values: from `low` to `high`, each bound included unless `low_open` / `high_open`; `whole`: whole
    numbers only; `unit` as written after the bounds."""

    low: float
    high: float
    low_open: bool = False
    high_open: bool = False
    whole: bool = False
    unit: str = ""

    def text(self) -> str:
        unit = f" {self.unit}" if self.unit else ""
        if self.whole:
            return f"a whole number from {self.low:g} to {self.high:g}{unit}"
        if self.low == 0 and self.low_open and self.high_open:
            return f"a positive number below {self.high:g}{unit}"
        low = f"above {self.low:g}" if self.low_open else f"at least {self.low:g}"
        high = f"below {self.high:g}" if self.high_open else f"at most {self.high:g}"
        if not self.low_open and not self.high_open:
            return f"a number from {self.low:g} to {self.high:g}{unit}"
        return f"a number {low} and {high}{unit}"

    def holds(self, value: float) -> bool:
        above = value > self.low if self.low_open else value >= self.low
        below = value < self.high if self.high_open else value <= self.high
        return above and below  # NaN holds neither

    def check(self, value: Any, key: str) -> Any:
        """`value` as a float (an int when `whole`); OutOfRange naming `key` and the range when it is not a number
        (a bool is not), not whole where it must be, or outside the range."""
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not number or (self.whole and not isinstance(value, int)) or not self.holds(value):
            raise OutOfRange(f"{key} must be {self.text()} (got {value!r})")
        return int(value) if self.whole else float(value)


# The longest prompt or answer a request can have: the largest context window of a served model (Llama 4 Scout's
# 10 million tokens). Token lengths and means beyond it are refused, so no simulation is asked for an absurd length.
TOKENS_PER_REQUEST_MAX = 10_000_000

PROFILES = "profiles yaml"
PRICES = "prices csv"
RUN_YAML = "run.yaml"
SLO_MS = "slo.<ttft|tpot|itl|e2e>_<p50|p90|p95|p99>_ms"
# Every numeric key, by file: its accepted range. tests/unit/test_input_ranges.py walks the parsers' keys and
# checks that each numeric one is here and refused outside its range.
INPUT_RANGES: dict[str, dict[str, Range]] = {
    PROFILES: {
        SLO_MS: Range(0, 1e8, low_open=True, high_open=True, unit="ms"),  # 1e8 ms is ~28 hours
        "slo.error_rate_max": Range(0, 1),
        # MLPerf Server throughput x the prior projects a config we have not measured: a fraction of it, above
        # 0.001 (a thousandth would make any accelerator count affordable) and at most 1.5.
        "delivered_fraction_prior": Range(0.001, 1.5, low_open=True),
        "workload.input_tokens_mean": Range(0, TOKENS_PER_REQUEST_MAX, low_open=True, unit="tokens"),
        "workload.output_tokens_mean": Range(0, TOKENS_PER_REQUEST_MAX, low_open=True, unit="tokens"),
        # the stated length forms (assets/config/workload_lengths.py): a number or {fixed}, {mean, cv}, {p50, p90, p99}
        **{
            f"workload.{side}_tokens{key}": Range(0, TOKENS_PER_REQUEST_MAX, low_open=True, unit="tokens")
            for side in ("input", "output")
            for key in ("", ".fixed", ".mean", ".p50", ".p90", ".p99")
        },
        # a length's coefficient of variation: 0 fixed, 1 the assumed chat spread; real logs show 1 to 3
        "workload.input_tokens.cv": Range(0, 100),
        "workload.output_tokens.cv": Range(0, 100),
        "workload.requests_per_day": Range(0, 1e13, low_open=True, high_open=True),
        "workload.mean_requests_per_s": Range(0, 1e8, low_open=True, high_open=True),
        "workload.peak_to_mean": Range(1, 1e6),
        # the inter-arrival coefficient of variation: 0 evenly spaced, 1 Poisson; the Azure code trace's is 13
        "workload.arrival_cv": Range(0, 100),
        "workload.peak_window_s": Range(1, 86400, unit="s"),  # a second to a day
        "workload.min_replicas": Range(0, 100000, whole=True),
        "quality[].min": Range(-1e12, 1e12),
        "quality[].max": Range(-1e12, 1e12),
        "quality[].min_relative": Range(0, 10, low_open=True),  # a ratio to the best-evidenced result
        "quality[].max_relative": Range(0, 10, low_open=True),
        "quality[].tolerance": Range(0, 1e12),  # in the metric's unit: run-to-run noise of a point value
    },
    PRICES: {
        # below a cheap spot GPU's cents, above a whole large system's hourly cost per accelerator, a price is a
        # typo or a unit mistake (and would rank a config first or last)
        "usd_per_accelerator_hour": Range(0.05, 500, unit="USD"),
    },
    RUN_YAML: {
        "accelerator_count": Range(1, 100000, whole=True),
    },
}


def check(file: str, key: str, value: Any, where: str = "") -> Any:
    """`value` of `key` of a `file` kind (a key of INPUT_RANGES) checked against its range; OutOfRange says
    `where` (the file and the entry), the key and the range."""
    prefix = f"{where}: " if where else ""
    return INPUT_RANGES[file][key].check(value, prefix + key)
