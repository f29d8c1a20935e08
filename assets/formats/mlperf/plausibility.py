"""Whether an MLPerf result may serve as a reference: plausible (its per-accelerator figure can be trusted)
and official (published by MLCommons as a round's result). Flagged rows stay in `benchmark.mlperf_results`
with the reason; `benchmark.mlperf_reference` and `benchmark.mlperf_round_over_round` leave them out.

The rules, each a named constant below:

- **Accelerator count contradicts the system name** (`SYSTEM_NAME_COUNT`): the system name states a count
  of the result's accelerator in the prefix form (`4x NVIDIA H100 80GB HBM3`, `4xH100-NVL-94GB`,
  `8xMI300X`, `4x8xH100-SXM-80GB` = 32) and that count is neither the accelerators per node nor the total
  the result declares (nor their sum, for systems naming several groups). Example: a v3.1 edge result
  of "Dell PowerEdge XE8640 (4x NVIDIA H100 80GB HBM3, TensorRT)" declares 1 accelerator; its value is
  the 4-GPU system's, 4x too high per accelerator. A count is about the accelerator only when the first
  word holding a digit after it (`H100`, `MI300X`, `4090`) is a word of the accelerator's name, so
  `2xEPYC_9575F` or `2x Intel Xeon 8592+` (host processors) never count.
- **Per-accelerator value far from its peers** (`PEER_OUTLIER_FACTOR`, `MIN_PEERS`, `CORROBORATION_FACTOR`):
  a throughput result whose per-accelerator value is more than `PEER_OUTLIER_FACTOR` times above or below
  the median of its group (itself and at least `MIN_PEERS` other results of the same round, division,
  accelerator, benchmark, scenario and unit), unless another result of the group lies within
  `CORROBORATION_FACTOR` of it. Closed and network divisions only (open-division models differ); rows
  already flagged or unofficial are not peers; same round only (across rounds software alone moves results
  several-fold). Corroboration matters on the real tables: v4.0 RTX 4090 resnet Offline holds two TensorRT
  results near 45,000 samples/s per GPU and four untuned reference runs near 3,900; a bare median rule
  flags the two tuned results and round-over-round would then show a false 10x gain in v5.1.
- **Unofficial** (`UNOFFICIAL_SOURCE`, `DETAILS_ROUND`): the file or URL the row came from names an
  unofficial or test submissions repository (MLCommons keeps its automation tests in
  `mlcommons/mlperf_inference_unofficial_submissions_vX.Y`; the fixture folder is `unofficial_submissions`),
  or the row's Details link points at another round's repository (those v5.0 test rows link to
  `mlcommons/submissions_inference_4.1`). Official rows link to their own round
  (`inference_results_v5.1`, or a fork of it named for that round).
"""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

# `4x`, `4 x`, `4x8x` (nodes x per node) right before a name; not `GBx4` suffixes, not `x86`.
SYSTEM_NAME_COUNT = re.compile(r"(?<![\w.])(\d{1,4})\s*x\s*(?:(\d{1,4})\s*x\s*)?(?=[A-Za-z])", re.IGNORECASE)
_NAME_END = re.compile(r"[,()\[\];]")  # a counted name ends at the next separator
_WORD_SPLIT = re.compile(r"[\s\-_/']+")
NAME_WORDS_LOOKED_AT = 3  # the accelerator's model word comes within the first words after the count

PEER_OUTLIER_FACTOR = 5.0  # more than 5x above or below its group's median per-accelerator value
MIN_PEERS = 3  # fewer peers than this: no median to judge by
CORROBORATION_FACTOR = 2.0  # another result within 2x of a far-off one corroborates it: not flagged
PEER_DIVISIONS = ("closed", "network")  # open-division results run changed models: not peers

UNOFFICIAL_SOURCE = re.compile(r"unofficial|test[_-]?submissions", re.IGNORECASE)
DETAILS_ROUND = re.compile(r"(?:inference_results|submissions_inference)_v?(\d+\.\d+)", re.IGNORECASE)


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD_SPLIT.split(text) if w]


def stated_counts(system_name: str | None, accelerator_raw: str | None) -> list[int]:
    """The counts of the result's accelerator the system name states (`4x H100` -> [4], `4x8xH100` -> [32])."""
    if not system_name or not accelerator_raw:
        return []
    accelerator_words = set(_words(accelerator_raw))
    counts = []
    for match in SYSTEM_NAME_COUNT.finditer(system_name):
        rest = _NAME_END.split(system_name[match.end() :], maxsplit=1)[0]
        model_word = next((w for w in _words(rest)[:NAME_WORDS_LOOKED_AT] if any(c.isdigit() for c in w)), None)
        if model_word is None or model_word not in accelerator_words:
            continue
        count = int(match.group(1)) * (int(match.group(2)) if match.group(2) else 1)
        counts.append(count)
    return counts


def count_contradiction(row: dict[str, Any]) -> str | None:
    """Why the declared accelerator count contradicts the system name, or None when it does not (or cannot
    be told: CPU-only, no count declared, or no count stated in the name)."""
    if row.get("is_cpu_only"):
        return None
    declared = {c for c in (row.get("accelerators_per_node"), row.get("accelerator_count")) if c}
    stated = stated_counts(row.get("system_name"), row.get("accelerator_raw"))
    if not declared or not stated or declared & {*stated, sum(stated)}:
        return None
    total = row.get("accelerator_count")
    return (
        f"system name {row['system_name']!r} states {stated[0] if len(stated) == 1 else stated} "
        f"{row['accelerator_raw']} but the result declares {row.get('accelerators_per_node')} per node x "
        f"{row.get('nodes')} node(s) = {total}: its value is likely the whole named system's, so the "
        "per-accelerator figure cannot be trusted"
    )


def unofficial_reason(row: dict[str, Any]) -> str | None:
    """Why a row is not an official MLPerf result, or None when nothing says so."""
    for where in (row.get("source"), row.get("source_location")):
        if where and UNOFFICIAL_SOURCE.search(where):
            return f"read from {where}, an unofficial/test submissions source, not a published round"
    details = row.get("details_url")
    match = DETAILS_ROUND.search(details) if details else None
    if match and f"v{match.group(1)}" != row["round"]:
        return (
            f"its Details link {details} points at round v{match.group(1)}'s repository, "
            f"not round {row['round']}'s published results"
        )
    return None


def row_flags(row: dict[str, Any]) -> dict[str, Any]:
    """The plausibility and official columns of one row, from the row alone (peers come later)."""
    implausible = count_contradiction(row)
    unofficial = unofficial_reason(row)
    return {
        "plausible": implausible is None,
        "implausible_reason": implausible,
        "official": unofficial is None,
        "unofficial_reason": unofficial,
    }


def _peer_group(row: dict[str, Any]) -> tuple | None:
    if (
        row["division"] not in PEER_DIVISIONS
        or row.get("result_per_accelerator") is None
        or row.get("accelerator_id") is None
    ):
        return None
    return (
        row["round"],
        row["division"],
        row["accelerator_id"],
        row["mlperf_model"],
        row["scenario"],
        row["result_unit"],
    )


def flag_peer_outliers(rows: Iterable[dict[str, Any]]) -> int:
    """Flag (in place) each throughput row whose per-accelerator value is more than PEER_OUTLIER_FACTOR from
    its group's median (at least MIN_PEERS peers: the other plausible official rows of the group) with no peer
    within CORROBORATION_FACTOR of it; returns how many were flagged. Every row is judged against the same
    peers (the flags set here do not move them)."""
    groups: dict[tuple, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        group = _peer_group(row)
        if group is not None:
            groups[group].append(row)
    flagged = []
    for members in groups.values():
        trusted = [r for r in members if r["plausible"] and r["official"]]
        for row in members:
            if not row["plausible"]:
                continue
            peers = [r["result_per_accelerator"] for r in trusted if r is not row]
            if len(peers) < MIN_PEERS:
                continue
            # The row counts in its own median: in a group split into two camps nobody is an outlier.
            value = row["result_per_accelerator"]
            median = statistics.median([*peers, value])
            ratio = value / median
            far = ratio > PEER_OUTLIER_FACTOR or ratio < 1 / PEER_OUTLIER_FACTOR
            if far and not any(1 / CORROBORATION_FACTOR <= peer / value <= CORROBORATION_FACTOR for peer in peers):
                flagged.append((row, median, ratio, len(peers)))
    for row, median, ratio, count in flagged:
        row["plausible"] = False
        row["implausible_reason"] = (
            f"per-accelerator value {row['result_per_accelerator']:.6g} {row['result_unit']} is {ratio:.3g}x the "
            f"median {median:.6g} of it and {count} peer results (same round, division, accelerator, benchmark, "
            f"scenario); more than {PEER_OUTLIER_FACTOR:g}x from it and no peer within {CORROBORATION_FACTOR:g}x of it"
        )
    return len(flagged)
