"""Distribution-free intervals for percentiles: order-statistic ranks, and the bracket quantiles that
bound them for large load levels."""

from __future__ import annotations

import math
from statistics import NormalDist

PERCENTILE_PROBABILITIES = (0.5, 0.9, 0.95, 0.99)
CONFIDENCE = 0.95
EXACT_UP_TO = 20_000  # requests per load level up to which intervals come from exact binomial ranks


def bracket(p: float, n: int = EXACT_UP_TO, confidence: float = CONFIDENCE) -> float:
    """Half-width in probability of the order-statistic interval of the p-quantile at n values, plus
    a margin of 4 ranks: for more than n values, the quantiles at p -/+ bracket(p) lie outside that
    interval, so they bound it (conservatively)."""
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    return z * math.sqrt(p * (1 - p) / n) + 4 / n


def bracket_probabilities() -> list[float]:
    """The probabilities sql/observed/request_pass/request_groups.sql evaluates (written there as literals, in this
    order): each percentile and its two bracket ends."""
    return sorted({round(q, 7) for p in PERCENTILE_PROBABILITIES for q in (p - bracket(p), p, p + bracket(p))})


def order_statistic_ranks(n: int, p: float, confidence: float = CONFIDENCE) -> tuple[int | None, int | None]:
    """1-based ranks (l, u) of the equal-tailed, distribution-free interval [X(l), X(u)] for the
    p-quantile of n values: the number B of values below the true quantile is Binomial(n, p), and
    [X(l), X(u)] misses it with probability P(B <= l - 1) + P(B >= u), each at most (1 - confidence) / 2.
    None for an end that n values cannot give at that confidence (too few values)."""
    tail = (1 - confidence) / 2
    mean, sd = n * p, math.sqrt(n * p * (1 - p))
    low_k, high_k = max(0, math.floor(mean - 12 * sd - 30)), min(n, math.ceil(mean + 12 * sd + 30))
    log_p, log_q, log_n = math.log(p), math.log1p(-p), math.lgamma(n + 1)
    cdf, lower, upper = 0.0, None, None
    for k in range(low_k, high_k + 1):
        cdf += math.exp(log_n - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * log_p + (n - k) * log_q)
        if cdf <= tail:
            lower = k + 1  # P(B <= k) <= tail: X(k + 1) is a lower end
        if upper is None and cdf >= 1 - tail:
            upper = k + 1  # P(B >= k + 1) <= tail
    return lower, (upper if upper is not None and upper <= n else None)
